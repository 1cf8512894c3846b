// tether/model/names.hpp: names tether gives things in stores: pin ids and refs, listing names,
// working-ref names and bookmark slugs, the owner marker (docs/FORMAT.md#pin-ids-and-pin-refs,
// #listings, #store-branch-names).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tether::model {

// <dataset8>.<first 16 hex of B(cb(kind), cb(identity), cb(content_state), size=16)>.
std::string pin_id(std::string_view dataset_id, std::string_view kind, const nlohmann::json& identity,
                   const nlohmann::json& content_state);
// "tether." + pin_id.
std::string pin_ref(std::string_view pin_id);
// The dataset id of a current-format pin id (`<8 hex>.<rest without dots>`), else nullopt.
std::optional<std::string> pin_dataset(std::string_view pin_id);
// The pin id a ref names, folding an Icechunk generation suffix (`tether.<ds>.<h>.2` ->
// `<ds>.<h>`); nullopt unless the ref is `tether.` + a current-format pin id.
std::optional<std::string> pin_id_of_ref(std::string_view ref);

// First 20 hex of B(cb(kind), cb(identity), cb(content_state), size=16) + ".jsonl".
std::string listing_name(std::string_view kind, const nlohmann::json& identity, const nlohmann::json& content_state);

// Runs of characters outside [0-9A-Za-z_-] become "-", stripped of leading/trailing "-"; a name
// that changed gets "-" + 6 hex of B(cb(name), size=8) so distinct names never collide.
std::string bookmark_slug(std::string_view bookmark);
// "tether.ws." + dataset_id[:8] + "." + bookmark_slug(bookmark).
std::string working_ref_name(std::string_view dataset_id, std::string_view bookmark);

struct WorkingRefParts {
  std::string dataset_id;
  // Current format: the bookmark slug. Legacy (a8) format: `<slugify_key(key)>-<key6>`.
  std::string tail;
  std::optional<std::string> workspace;   // ws8 for the legacy per-workspace format
  std::optional<int64_t> generation;      // the `.N` suffix of a sibling branch, if any
  bool legacy() const { return workspace.has_value(); }
};
// Parses `tether.ws.<ds8>.<slug>[.N]` and legacy `tether.ws.<ds8>.<ws8>.<tail>[.N]`.
std::optional<WorkingRefParts> parse_working_ref(std::string_view ref);

// Legacy helpers kept for gc / upgrade: slugify_key lowers and dashes a key ("obj" if empty);
// key_digest6 = first 6 hex of B(cb(key), size=8).
std::string slugify_key(std::string_view key);
std::string key_digest6(std::string_view key);

// "tether.owner." + dataset_id, and back (nullopt without the prefix).
std::string owner_ref(std::string_view dataset_id);
std::optional<std::string> owner_from_ref(std::string_view ref);

}  // namespace tether::model
