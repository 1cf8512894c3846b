// core/cli/add.cpp: `tether add`: register an object (nothing is contacted). The locator is
// put together from the positional and the options; the engine validates and stores it.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/objects.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

namespace {

engine::AddRequest add_request(const AddOptions& o) {
  engine::AddRequest req;
  req.key = o.key;
  req.key_may_be_locator = !o.locator;
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
  if (o.host) loc["host"] = *o.host;
  if (o.port) loc["port"] = *o.port;
  if (o.table) loc["table"] = *o.table;
  apply_sets(loc, o.sets);
  if (o.at) loc["at"] = *o.at;
  return req;
}

}  // namespace

int run_add(const Global& g, const AddOptions& o) {
  engine::AddRequest req = add_request(o);
  auto repo = open_repo();
  auto r = engine::add(*repo, req);
  if (g.json) print_json(r.to_json());
  else out("added " + r.key + " (" + r.kind + (r.created ? ", created" : "") + ")" + (r.at ? " at " + *r.at : ""));
  // On stderr under --json too: JSON carries `created` and `maturity`, a log keeps the why.
  if (r.created)
    note("the store lifecycle (`--create`) is experimental: a created store is deleted only by an explicit gc step");
  if (r.maturity != "stable")
    note("the " + r.kind + " backend is " + r.maturity + ": its whole lifecycle has not yet run against the real system in CI (`tether backends`, docs/backends.md)");
  return 0;
}

}  // namespace tether::cli
