// core/cli/set.cpp: `tether set`: change objects' policies.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/objects.hpp"

namespace tether::cli {

int run_set(const Global& g, const SetOptions& o) {
  auto repo = open_repo();
  auto r = engine::set_policy(*repo, o.keys, o.all, o.file_policy, o.pin_policy);
  if (g.json) {
    print_json(r.to_json());
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

}  // namespace tether::cli
