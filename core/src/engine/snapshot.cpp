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

SnapshotResult snapshot(Repo& repo, const ProgressFn& progress) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  std::vector<std::string> keys;
  if (on_trunk(cx)) {
    for (const auto& [k, m] : cx.manifests) keys.push_back(k);
  } else {
    keys = moving_keys(cx);
  }
  auto result = fingerprint_keys(cx, keys, /*upstream=*/true, progress);
  // Keep entries of still-registered keys; overwrite what was just read.
  for (auto it = cx.workspace->last_snapshot.begin(); it != cx.workspace->last_snapshot.end();)
    it = cx.manifests.count(it->first) ? std::next(it) : cx.workspace->last_snapshot.erase(it);
  for (auto it = cx.workspace->last_snapshot_errors.begin(); it != cx.workspace->last_snapshot_errors.end();)
    it = cx.manifests.count(it->first) ? std::next(it) : cx.workspace->last_snapshot_errors.erase(it);
  for (const auto& [k, s] : result.states) cx.workspace->set_snapshot(k, s);
  for (const auto& [k, e] : result.errors) cx.workspace->set_snapshot_error(k, e);
  cx.workspace->last_snapshot_at = now_iso(cx);
  write_workspace(cx);
  return result;
}

Json SnapshotResult::to_json() const {
  Json j = Json::object();
  for (const auto& [k, s] : states) j[k] = s;
  return j;
}

}  // namespace tether::engine
