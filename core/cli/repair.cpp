// core/cli/repair.cpp: `tether repair`: recreate missing pins and working branches (docs/cli.md).
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/repair.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_repair(const Global& g, const RepairOptions& o) {
  auto repo = open_repo();
  engine::RepairOptions opt;
  opt.all_history = o.all_history;
  set_plan_options(opt, o.plan, "repair");
  auto r = engine::repair(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.failed.empty() ? kExitOk : kExitPartial;
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  for (const auto& [label, ref] : r.repinned) out("repinned  " + label + " -> " + ref);
  for (const auto& [key, ref] : r.reforked) out("reforked  " + key + " -> " + ref);
  for (const auto& [id, what] : r.finished) out("finished  promote " + id + ": " + what);
  for (const auto& n : r.notes) out("note      " + n);
  for (const auto& [target, why] : r.failed) err(red_err("FAILED") + "    " + target + ": " + why);
  return rc;
}

}  // namespace tether::cli
