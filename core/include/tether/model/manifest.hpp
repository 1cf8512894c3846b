// tether/model/manifest.hpp: object manifests, `.tether/objects/<key>.toml`, and the manifest
// hash that identifies a dataset tree (docs/FORMAT.md#object-manifests, #manifest-hash).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tether/model/checkout.hpp"
#include "tether/sdk/types.hpp"

namespace tether::model {

struct Policy {
  std::string file = "immutable";  // immutable | versioned
  std::string pin = "native";      // native | record
  bool operator==(const Policy&) const = default;
};
// Throw ConfigError `invalid policy.file: 'x'` / `invalid policy.pin: 'x'` (value as Python repr).
void validate_policy_file(const nlohmann::json& value);
void validate_policy_pin(const nlohmann::json& value);

struct ObjectManifest {
  std::string key;
  std::string kind;
  bool recoverable = true;
  std::optional<std::string> origin;       // "created" for add --create; absent = adopted
  std::optional<std::string> captured_at;  // ISO-8601 UTC, set when a state is recorded
  nlohmann::json locator = nlohmann::json::object();
  Policy policy;
  std::optional<nlohmann::json> state;     // full state, volatile keys included
  std::optional<sdk::Pin> pin;             // only id and ref are stored; `created` is runtime

  // cb({key, kind, locator, policy, state|null, pin {id, ref}|null, recoverable}): what the
  // manifest hash covers (captured_at and origin are not part of it).
  nlohmann::json canonical_value() const;
  std::string canonical() const;

  // This manifest recording `new_state` (pinned by `new_pin` or not), captured at `now` (ISO-8601).
  ObjectManifest with_pin(nlohmann::json new_state, std::optional<sdk::Pin> new_pin, bool new_recoverable,
                          std::string now) const;

  // All stored fields equal (sdk::Pin::created is ignored).
  bool operator==(const ObjectManifest& other) const;
};

// Parse manifest text. `source` names the file in messages (e.g. `.tether/objects/raw.toml`);
// every error is a ConfigError starting `<source>: ` (`<source>:<line>: ` for TOML syntax).
// With `expected_key`, the manifest's key must equal it (the key its path maps to). The key is
// validated. Unknown fields (legacy `policy.write`) are ignored. Used for text read out of the
// VCS as well as for files.
ObjectManifest parse_manifest(std::string_view text, const std::string& source,
                              const std::optional<std::string>& expected_key = std::nullopt);

// The TOML text, fields in the order of docs/FORMAT.md#object-manifests; nulls dropped; empty
// locator kept as `[locator]`.
std::string manifest_to_toml(const ObjectManifest& m);

// `objects` (a checkout's `.tether/objects`) / `<key>.toml`; the key is validated.
CheckoutPath manifest_path(const CheckoutPath& objects, std::string_view key);

// The manifest file at `rel` under objects; messages name it `.tether/objects/<rel>`.
// Opened without following symlinks (model/checkout.hpp).
ObjectManifest read_manifest(const CheckoutPath& objects, const std::filesystem::path& rel);

// Every `*.toml` under objects, recursively, in sorted path order, keyed by key. A missing
// directory is an empty dataset; a symlink anywhere under it is refused, never read through.
// `legacy_layout` (datasets before version 4, which `tether upgrade` moves): a file may also
// sit at its key's legacy path (legacy_manifest_path); two files of one key are refused.
std::map<std::string, ObjectManifest> load_manifests(const CheckoutPath& objects, bool legacy_layout = false);

// A manifest file of a commit or another checkout, at `rel` under objects: its key is the
// one the path gives, or one whose legacy path `rel` is (what a commit made before version 4
// holds). Otherwise as parse_manifest with that expected key.
ObjectManifest parse_manifest_file(std::string_view text, const std::string& source, const std::string& rel);

// Where versions before 4 kept a key's manifest: the last segment's final `.suffix` replaced
// by `.toml` (`foo.bar` -> `foo.toml`), so two keys could share one file. Relative to objects.
std::filesystem::path legacy_manifest_path(std::string_view key);

// Atomic write of the manifest file for m.key (creating parent directories, none of them
// through a symlink).
void write_manifest(const CheckoutPath& objects, const ObjectManifest& m);

// Delete the manifest of `key` and prune now-empty parent directories up to objects
// (objects itself stays). Returns false when there was no such file.
bool remove_manifest(const CheckoutPath& objects, std::string_view key);

// B(cb([key, canonical]) for each key in sorted order, size=32): 64 hex.
std::string manifest_hash(const std::map<std::string, ObjectManifest>& manifests);

}  // namespace tether::model
