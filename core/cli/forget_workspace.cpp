// core/cli/forget_workspace.cpp: `tether forget-workspace`: delete a checkout's tether state.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/forget_workspace.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_forget_workspace(const Global& g, const ForgetWorkspaceOptions& o) {
  auto repo = open_repo();
  engine::ForgetWorkspaceOptions opt;
  opt.workspace = o.workspace;
  set_plan_options(opt, o.plan, "forget-workspace");
  auto r = engine::forget_workspace(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.failed.empty() ? 0 : (r.removed_files.empty() && !r.vcs ? kExitFailure : kExitPartial);
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  if (r.plan.actions.empty()) {
    for (const auto& n : r.plan.notes) out(n);
    return 0;
  }
  out("forgot workspace " + r.workspace);
  for (const auto& f : r.removed_files) out("  removed  " + f);
  if (r.vcs) out("  vcs      " + *r.vcs);
  for (const auto& [what, why] : r.failed) err("  FAILED   " + what + ": " + why);
  return rc;
}

}  // namespace tether::cli
