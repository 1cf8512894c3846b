// core/cli/objects.cpp: `tether add`, `remove`, `set` and `log`.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

int run_add(const Global&, const AddOptions& o) {
  engine::AddRequest req;
  req.key = o.key;
  req.kind = o.kind;
  req.cwd = std::filesystem::current_path();
  req.file_policy = o.file_policy;
  req.pin_policy = o.pin_policy;
  req.create = o.create;
  auto& loc = req.locator;
  if (o.locator) loc["uri"] = *o.locator;
  if (o.branch) loc["branch"] = *o.branch;
  if (o.remote) loc["remote"] = *o.remote;
  if (o.region) loc["region"] = *o.region;
  if (o.project_id) loc["project_id"] = *o.project_id;
  if (o.database) loc["database"] = *o.database;
  if (o.role) loc["role"] = *o.role;
  for (const auto& kv : o.sets) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("--set expects key=value, got " + model::py_repr(kv));
    loc[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (o.at) loc["at"] = *o.at;
  auto repo = open_repo();
  auto r = repo->add(req);
  out("added " + r.key + " (" + r.kind + (r.created ? ", created" : "") + ")" + (r.at ? " at " + *r.at : ""));
  if (r.created)
    note("the store lifecycle (`--create`) is experimental: a created store is deleted only by an explicit gc step");
  if (r.maturity != "stable")
    note("the " + r.kind + " backend is " + r.maturity + ": its whole lifecycle has not yet run against the real system in CI (`tether backends`, docs/backends.md)");
  return 0;
}

int run_remove(const Global&, const RemoveOptions& o) {
  auto repo = open_repo();
  repo->remove(o.key);
  out("removed " + o.key);
  return 0;
}

int run_set(const Global& g, const SetOptions& o) {
  auto repo = open_repo();
  auto r = repo->set_policy(o.keys, o.all, o.file_policy, o.pin_policy);
  if (g.json) {
    nlohmann::json changed = nlohmann::json::object();
    for (const auto& [k, fields] : r.changed)
      for (const auto& [f, v] : fields) changed[k][f] = {{"from", v.first}, {"to", v.second}};
    print_json({{"changed", changed}, {"unchanged", r.unchanged}});
    return 0;
  }
  for (const auto& [k, fields] : r.changed) {
    std::string line = "  set " + k + " ";
    bool first = true;
    for (const auto& [f, v] : fields) {
      line += (first ? " " : ", ") + f + " " + v.first + " -> " + v.second;
      first = false;
    }
    out(line);
  }
  for (const auto& k : r.unchanged) out("  unchanged " + k);
  if (!r.changed.empty()) out("commit to record the policy");
  return 0;
}

int run_log(const Global& g, const LogOptions& o) {
  auto repo = open_repo();
  auto entries = repo->log(o.key, o.ref, o.limit);
  if (g.json) {
    auto arr = nlohmann::json::array();
    for (const auto& e : entries) arr.push_back(nlohmann::json(e));
    print_json(arr);
    return 0;
  }
  std::size_t w = 0;
  for (const auto& e : entries) w = std::max(w, e.id.size());
  for (const auto& e : entries) {
    std::string when = e.when.value_or("");
    for (auto& c : when)
      if (c == 'T') c = ' ';
    when = when.substr(0, 16);
    std::string line = "  " + ljust(e.id, w) + "  " + ljust(when, 16) + "  " + e.message;
    if (!e.refs.empty()) {
      std::string refs;
      for (const auto& r : e.refs) refs += (refs.empty() ? "" : ", ") + r;
      line += "  [" + refs + "]";
    }
    out(line);
  }
  return 0;
}

}  // namespace tether::cli
