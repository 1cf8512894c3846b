// core/cli/log.cpp: `tether log`: an object's native history.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/log.hpp"

namespace tether::cli {

int run_log(const Global& g, const LogOptions& o) {
  auto repo = open_repo();
  auto history = engine::log(*repo, o.key, o.ref, o.limit);
  if (g.json) {
    print_json(history.to_json());
    return 0;
  }
  std::size_t w = 0;
  for (const auto& e : history.entries) w = std::max(w, e.id.size());
  for (const auto& e : history.entries) {
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
