// core/cli/log.cpp: `tether log`: an object's native history.
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/log.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

namespace {

engine::LogResult history_of(engine::Repo& repo, const LogOptions& o) {
  if (!o.kind) {
    if (o.branch || !o.sets.empty())
      throw ConfigError("--branch and --set describe a store that is not registered: pass --kind with them");
    return engine::log(repo, o.key, o.ref, o.limit);
  }
  nlohmann::json locator{{"uri", o.key}};
  if (o.branch) locator["branch"] = *o.branch;
  apply_sets(locator, o.sets);
  return engine::log_store(repo, *o.kind, locator, std::filesystem::current_path(), o.ref, o.limit);
}

}  // namespace

int run_log(const Global& g, const LogOptions& o) {
  auto repo = open_repo();
  auto history = history_of(*repo, o);
  if (g.json) {
    print_json(history.to_json());
    return 0;
  }
  std::size_t w = 0;
  for (const auto& e : history.entries) w = std::max(w, e.id.size());
  for (const auto& e : history.entries) {
    std::string line = "  " + history_line(e, w);
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
