// core/cli/add.cpp: `tether add`: register an object (nothing is contacted). The locator is
// put together from the positional and the options; the engine validates and stores it.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/log.hpp"
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

// --pick: the store's history, numbered, and a question on the terminal; the answer is a
// number from the list or (the start of) an id. The list and the question go to the terminal
// (stderr under --json, so stdout stays the result).
std::string pick_at(const Global& g, engine::Repo& repo, const engine::AddRequest& req) {
  if (!::isatty(STDIN_FILENO))
    throw ConfigError("--pick asks on a terminal, and there is none; list the history with `tether log " +
                      req.locator.value("uri", std::string("LOCATOR")) + " --kind " + req.kind +
                      "` and pass --at ID instead");
  auto history = engine::log_store(repo, req.kind, req.locator, req.cwd, std::nullopt, 20);
  if (history.entries.empty()) throw ConfigError("no history to choose from");
  std::size_t w = 0;
  for (const auto& e : history.entries) w = std::max(w, e.id.size());
  for (std::size_t i = 0; i < history.entries.size(); ++i) {
    std::string line = rjust(std::to_string(i + 1), 3) + ".   " + history_line(history.entries[i], w);
    g.json ? err(line) : out(line);  // both redact
  }
  std::ostream& tty = g.json ? std::cerr : std::cout;
  tty << "Pick an entry (number or id) [1]: " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) throw ConfigError("no entry picked");
  answer = answer.substr(0, answer.find_last_not_of(" \t\r") + 1);
  answer.erase(0, answer.find_first_not_of(" \t"));
  if (answer.empty()) answer = "1";
  if (answer.find_first_not_of("0123456789") == std::string::npos && answer.size() < 6) {
    std::size_t n = std::stoul(answer);
    if (n >= 1 && n <= history.entries.size()) return history.entries[n - 1].id;
  }
  for (const auto& e : history.entries)
    if (e.id.rfind(answer, 0) == 0) return e.id;
  throw ConfigError("no entry matches " + model::py_repr(answer));
}

}  // namespace

int run_add(const Global& g, const AddOptions& o) {
  engine::AddRequest req = add_request(o);
  auto repo = open_repo();
  if (o.pick) {
    req = engine::settle_key(*repo, req);
    req.locator["at"] = pick_at(g, *repo, req);
  }
  auto r = engine::add(*repo, req);
  if (g.json) print_json(r.to_json());
  else {
    out("added " + r.key + " (" + r.kind + (r.created ? ", created" : "") + ")" + (r.at ? " at " + *r.at : ""));
    if (r.fork) out("  " + r.key + " -> " + *r.fork + " (this bookmark's branch)");
  }
  for (const auto& w : r.warnings) warning(w);
  // On stderr under --json too: JSON carries `created` and `maturity`, a log keeps the why.
  if (r.created)
    note("the store lifecycle (`--create`, `gc --delete-stores`) is experimental: deleting a store has no `repair`; "
         "see docs/cli.md#gc");
  if (r.maturity != "stable")
    note("the " + r.kind + " backend is " + r.maturity + ": its whole lifecycle has not yet run against the real system in CI (`tether backends`, docs/backends.md)");
  return 0;
}

}  // namespace tether::cli
