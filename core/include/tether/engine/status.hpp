// tether/engine/status.hpp: `tether status` and `tether snapshot` (docs/cli.md): each object's
// state as fingerprinted now, against the one its manifest records.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct ObjectStatus {
  std::string key, kind, tier;
  std::string label;  // error | new | behind | modified | clean
  std::optional<Json> state;
  bool pinned = false;
  bool recoverable = true;
  std::optional<std::string> origin;
  std::optional<std::string> verify;
  std::optional<std::string> error;
  Json to_json() const;  // one entry of status's "objects"
};
struct StatusReport {
  std::string manifest_hash;
  std::vector<std::string> stale_keys;
  std::vector<std::string> bookmark_drift;  // warnings: the checkout left, lost or moved its bookmark
  bool fresh = false;
  std::optional<std::string> snapshot_at;
  std::optional<std::string> bookmark;
  std::string trunk;
  std::vector<ObjectStatus> objects;
  bool has_error() const;
  Json to_json() const;  // `tether status --json` (docs/cli.md)
};

struct SnapshotResult {
  std::map<std::string, Json> states;
  std::map<std::string, std::string> errors;
  // `tether snapshot --json`: {key: state}; the errors go to stderr, not into the JSON.
  Json to_json() const;
};

SnapshotResult snapshot(Repo& repo, const ProgressFn& progress = {});
// `snapshot`: fingerprint first (default: when the cache is older than the workspace).
StatusReport status(Repo& repo, std::optional<bool> snapshot, const ProgressFn& progress = {});

}  // namespace tether::engine
