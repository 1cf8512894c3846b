// core/src/engine/set.cpp: `tether set` (docs/cli.md#set): change objects' file and pin policies.
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

SetResult set_policy(Repo& repo, const std::vector<std::string>& keys_in, bool all, const std::optional<std::string>& file,
                     const std::optional<std::string>& pin) {
  Context& cx = Context::of(repo);
  if (!file && !pin) throw ConfigError("nothing to set: pass --file or --pin");
  if (file) check_policy("file", *file);
  if (pin) check_policy("pin", *pin);
  auto lock = lock_checkout(cx);
  std::vector<std::string> keys = keys_in;
  if (all) {
    keys.clear();
    for (const auto& [k, m] : cx.manifests) keys.push_back(k);
  }
  if (keys.empty()) throw ConfigError("give one or more KEY, or --all");
  for (const auto& k : keys)
    if (!cx.manifests.count(k)) throw ConfigError("no such object: " + k);
  SetResult res;
  Json pre_objects = Json::object();
  for (const auto& k : keys) {
    auto& m = cx.manifests.at(k);
    std::map<std::string, std::pair<std::string, std::string>> changes;
    if (file && *file != m.policy.file) changes["file"] = {m.policy.file, *file};
    if (pin && *pin != m.policy.pin) changes["pin"] = {m.policy.pin, *pin};
    if (changes.empty()) {
      res.unchanged.push_back(k);
      continue;
    }
    pre_objects[k] = model::manifest_to_toml(m);
    if (file) m.policy.file = *file;
    if (pin) m.policy.pin = *pin;
    model::write_manifest(objects_dir(cx), m);
    res.changed[k] = std::move(changes);
  }
  if (!res.changed.empty()) {
    Json changed = Json::object();
    for (const auto& [k, fields] : res.changed)
      for (const auto& [f, v] : fields) changed[k][f] = Json::array({v.first, v.second});
    log_op(cx, "set", Json{{"objects", pre_objects}, {"workspace", model::workspace_to_toml(*cx.workspace)}},
           Json{{"changed", changed}});
  }
  return res;
}

Json SetResult::to_json() const {
  Json fields = Json::object();
  for (const auto& [k, changes] : changed)
    for (const auto& [f, v] : changes) fields[k][f] = {{"from", v.first}, {"to", v.second}};
  return Json{{"changed", fields}, {"unchanged", unchanged}};
}

// What `tether ops` says of a set (ops.cpp's table).
std::string summarize_set(const OpEntry& e) {
  const Json& r = e.result;
  std::vector<std::string> items;
  if (auto c = r.find("changed"); c != r.end() && c->is_object())
    for (const auto& [k, fields] : c->items()) {
      std::string s = k + ":";
      for (const auto& [f, v] : fields.items())
        if (v.is_array() && v.size() == 2) s += " " + f + "=" + model::py_str(v[0]) + "->" + model::py_str(v[1]);
      items.push_back(s);
    }
  return join(items);
}

}  // namespace tether::engine
