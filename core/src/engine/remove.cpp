// core/src/engine/remove.cpp: `tether remove` (docs/cli.md#remove): unregister an object; its
// store and working branch are not touched (gc collects the branch).
#include <cstdlib>

#include "engine/internal.hpp"
#include "tether/engine/objects.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/workspace.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

RemoveResult remove(Repo& repo, const std::string& key) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  auto it = cx.manifests.find(key);
  if (it == cx.manifests.end()) throw ConfigError("no such object: " + key);
  RemoveResult res{key, it->second.kind};
  Json pre{{"objects", Json{{key, model::manifest_to_toml(it->second)}}}, {"workspace", model::workspace_to_toml(*cx.workspace)}};
  unregister_object(cx, key);
  write_workspace(cx);
  log_op(cx, "remove", pre, Json{{"key", key}});
  return res;
}

Json RemoveResult::to_json() const { return Json{{"key", key}, {"kind", kind}}; }

// What `tether ops` says of a remove (ops.cpp's table).
std::string summarize_remove(const OpEntry& e) {
  return str_of(e.result, "key") + (e.result.contains("created") ? " (created store)" : "");
}

}  // namespace tether::engine
