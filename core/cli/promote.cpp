// core/cli/promote.cpp: `tether promote`: land the bookmark's branches on their base branches.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/promote.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

int run_promote(const Global& g, const PromoteOptions& o) {
  auto repo = open_repo();
  engine::PromoteOptions opt;
  opt.keys = o.keys;
  opt.rev = o.rev;
  opt.strategy = o.strategy;
  opt.message = o.message;
  set_plan_options(opt, o.plan, "promote");
  auto r = engine::promote(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  bool applied_any = !r.fast_forwarded.empty() || !r.merged.empty();
  int rc = 0;
  if (!r.refused.empty()) rc = kExitFailure;
  if (!r.failed.empty()) rc = applied_any ? kExitPartial : kExitFailure;
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  auto line = [](const std::string& label, const std::string& rest) { return "  " + ljust(label, 15) + rest; };
  for (const auto& [k, v] : r.fast_forwarded) out(line("fast-forwarded", k + " -> " + model::py_repr(v)));
  for (const auto& [k, v] : r.merged) out(line("merged", k + " -> " + model::py_repr(v)));
  for (const auto& [k, why] : r.kept_forks) out(yellow(line("kept", k + ": " + why)));
  for (const auto& k : r.skipped) out(line("skipped", k));
  for (const auto& [k, why] : r.refused) {
    out(yellow(line("refused", (k.empty() ? std::string() : k + ": ") + why)));
    if (auto c = r.conflicts.find(k); c != r.conflicts.end())
      for (const auto& unit : c->second) out("                   conflict: " + unit);
  }
  for (const auto& [k, why] : r.held) out(line("held", k + ": " + why));
  for (const auto& [k, why] : r.rolled_back) out(yellow(line("rolled back", k + ": " + why)));
  for (const auto& [k, why] : r.failed) error_line("[" + k + "] " + why);
  if (!r.held.empty())
    out("nothing moved: a bookmark lands whole or not at all; name keys to land a subset, or finish the refused "
        "systems on the trunk and promote again");
  if (!r.merged.empty()) out("run `tether commit` to pin the merge result(s), then promote again");
  const std::string trunk = repo->config().trunk();
  if (r.trunk_moved) out(trunk + " -> " + r.trunk_moved->substr(0, 12));
  if (r.trunk_held) out(trunk + " not moved: " + *r.trunk_held);
  if (r.fast_forwarded.empty() && r.merged.empty() && r.refused.empty() && r.held.empty() && r.rolled_back.empty() &&
      r.failed.empty() && !r.trunk_moved)
    out("nothing to promote");
  return rc;
}

}  // namespace tether::cli
