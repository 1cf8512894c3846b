// core/src/engine/log.cpp: `tether log` (docs/cli.md#log): an object's native history, as its
// backend tells it.
#include <cstdlib>

#include "engine/internal.hpp"
#include "tether/engine/log.hpp"
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

LogResult log(Repo& repo, const std::string& key, const std::optional<std::string>& ref, int limit) {
  Context& cx = Context::of(repo);
  auto it = cx.manifests.find(key);
  if (it == cx.manifests.end()) throw ConfigError("no such object: " + key);
  const auto& m = it->second;
  auto& b = cx.backend(m.kind);
  if (!(b.capabilities() & sdk::kHistory))
    throw CapabilityError(m.kind + " objects have no native history to list (the " + m.kind +
                              " backend lacks HISTORY; `tether backends` shows each backend's capabilities)",
                          key);
  return LogResult{key, b.history(m.locator, ref ? ref : working_ref(cx, key), limit, key)};
}

LogResult log_store(Repo& repo, const std::string& kind, const Json& locator, const fs::path& cwd,
                    const std::optional<std::string>& ref, int limit) {
  Context& cx = Context::of(repo);
  auto& b = cx.backend(kind);
  const std::string label = locator.value("uri", kind);  // errors name the store as given
  if (!(b.capabilities() & sdk::kHistory))
    throw CapabilityError(kind + " stores have no native history to list (the " + kind +
                              " backend lacks HISTORY; `tether backends` shows each backend's capabilities)",
                          label);
  Json resolved = stored_locator(b, label, locator, cwd);
  return LogResult{label, b.history(resolved, ref, limit, label)};
}

Json LogResult::to_json() const {
  auto arr = Json::array();
  for (const auto& e : entries) arr.push_back(Json(e));
  return arr;
}

}  // namespace tether::engine
