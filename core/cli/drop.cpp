// core/cli/drop.cpp: `tether drop`: delete a bookmark, the commits only it reaches and their branches.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/drop.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_drop(const Global& g, const DropOptions& o) {
  auto repo = open_repo();
  engine::DropOptions opt;
  opt.bookmark = o.bookmark;
  opt.to = o.to;
  opt.force_prune = o.force_prune;
  opt.delete_stores = o.delete_stores;
  if (opt.delete_stores && !g.json)
    note("reclaiming created stores is experimental: `delete-store` has no `repair`; read the plan");
  if (o.no_dry_run && (o.plan.dry_run || o.plan.plan_file)) throw ConfigError("--no-dry-run cannot be combined with --dry-run or --plan");
  opt.saved = load_saved_plan(o.plan, "drop");
  opt.dry_run = !o.no_dry_run && !opt.saved;
  auto r = engine::drop(*repo, opt);
  if (!r.applied) {
    PlanFlags shown = o.plan;
    shown.dry_run = true;
    show_plan(g, shown, *repo, r.plan);
    if (!g.json) out("(not applied; `--no-dry-run` drops it)");
    return 0;
  }
  if (g.json) {
    print_json(r.to_json());
    return r.gc ? gc_exit(*r.gc) : 0;
  }
  if (r.left_for) out("left " + r.bookmark + " for " + *r.left_for);
  std::string ids;
  for (const auto& c : r.abandoned) ids += (ids.empty() ? "" : ", ") + c.substr(0, 12);
  out("dropped " + r.bookmark + ": " + std::to_string(r.abandoned.size()) + " commit(s)" + (ids.empty() ? "" : " (" + ids + ")"));
  if (r.gc && r.gc->applied) {
    print_gc_report(*r.gc);
    print_failed(r.gc->failed);
    return gc_exit(*r.gc);
  }
  return 0;
}

}  // namespace tether::cli
