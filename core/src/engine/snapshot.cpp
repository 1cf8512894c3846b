// core/src/engine/snapshot.cpp: `tether snapshot` (docs/cli.md#snapshot): fingerprint every object
// now and cache the states in the workspace.
#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/status.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"

namespace tether::engine {

SnapshotResult Repo::snapshot(const ProgressFn& progress) {
  auto lock = lock_checkout();
  std::vector<std::string> keys;
  if (on_trunk()) {
    for (const auto& [k, m] : manifests_) keys.push_back(k);
  } else {
    keys = moving_keys();
  }
  auto result = fingerprint_keys(keys, /*upstream=*/true, progress);
  // Keep entries of still-registered keys; overwrite what was just read.
  for (auto it = workspace_->last_snapshot.begin(); it != workspace_->last_snapshot.end();)
    it = manifests_.count(it->first) ? std::next(it) : workspace_->last_snapshot.erase(it);
  for (auto it = workspace_->last_snapshot_errors.begin(); it != workspace_->last_snapshot_errors.end();)
    it = manifests_.count(it->first) ? std::next(it) : workspace_->last_snapshot_errors.erase(it);
  for (const auto& [k, s] : result.states) workspace_->set_snapshot(k, s);
  for (const auto& [k, e] : result.errors) workspace_->set_snapshot_error(k, e);
  workspace_->last_snapshot_at = now_iso();
  write_workspace();
  return result;
}

Json SnapshotResult::to_json() const {
  Json j = Json::object();
  for (const auto& [k, s] : states) j[k] = s;
  return j;
}

}  // namespace tether::engine
