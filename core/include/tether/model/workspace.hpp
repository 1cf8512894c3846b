// tether/model/workspace.hpp: `.tether/workspace.toml`, the per-checkout state
// (docs/FORMAT.md#workspacetoml).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tether/model/checkout.hpp"

namespace tether::model {

struct Workspace {
  std::string workspace_id;              // 32 lower hex; short form = first 8
  std::optional<std::string> bookmark;   // absent: read-only working copy
  std::optional<std::string> last_snapshot_at;
  std::map<std::string, std::string> working_refs;     // key -> branch that exists
  std::map<std::string, std::string> pending_forks;    // key -> branch decided, not yet created
  std::map<std::string, nlohmann::json> pending_resets;  // key -> head `new` agreed to reset
  std::map<std::string, nlohmann::json> fork_points;     // key -> state the branch forked from
  std::map<std::string, nlohmann::json> base_states;     // key -> committed state of the branch
  std::map<std::string, nlohmann::json> last_snapshot;   // key -> last fingerprint
  // key -> message of the last fingerprint that failed. Our choice (the Python format of b5
  // errors is unknown): a separate `[last_snapshot_errors]` table so a state can never be
  // mistaken for an error. A key is in at most one of last_snapshot / last_snapshot_errors.
  std::map<std::string, std::string> last_snapshot_errors;

  std::string short_id() const { return workspace_id.substr(0, 8); }
  void set_snapshot(const std::string& key, nlohmann::json state);
  void set_snapshot_error(const std::string& key, std::string message);
  // Forget every entry for `key` in every table.
  void forget_key(const std::string& key);

  bool operator==(const Workspace&) const = default;
};

// A new workspace with a fresh random id and no bookmark.
Workspace fresh_workspace();

// Parse workspace.toml text (`source` names it in errors). A file without workspace_id gets a
// fresh one. Nulls cannot occur (TOML); wrong types are ConfigError.
Workspace parse_workspace(std::string_view text, const std::string& source);
// nullopt when the file does not exist.
std::optional<Workspace> read_workspace(const CheckoutPath& path);

// TOML text: top-level scalars, then only the non-empty tables.
std::string workspace_to_toml(const Workspace& ws);
void write_workspace(const CheckoutPath& path, const Workspace& ws);

struct ClaimResult {
  Workspace workspace;  // the one on disk after the claim (ours, or the one that won)
  bool persisted;       // false: the file could not be written (read-only checkout)
};
// Create-if-absent: write `ws` to a temp file and link() it to `path`. If `path` already
// exists, the existing file wins and is returned. Other OS errors keep `ws` in memory.
ClaimResult claim_workspace(const CheckoutPath& path, const Workspace& ws);

// read_workspace, or claim a fresh one when the file is missing.
ClaimResult open_workspace(const CheckoutPath& path);

}  // namespace tether::model
