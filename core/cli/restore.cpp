// core/cli/restore.cpp: `tether restore`: reset working branches onto a revision's states.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/restore.hpp"

namespace tether::cli {

int run_restore(const Global& g, const RestoreOptions& o) {
  auto repo = open_repo();
  engine::RestoreOptions opt;
  opt.keys = o.keys;
  opt.from = o.from;
  opt.discard = o.discard;
  set_plan_options(opt, o.plan, "restore");
  auto r = engine::restore(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  for (const auto& [k, ref] : r.working_refs) out(k + " -> " + ref + "  (from " + r.from + ")");
  return 0;
}

}  // namespace tether::cli
