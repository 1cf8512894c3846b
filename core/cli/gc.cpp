// core/cli/gc.cpp: `tether gc`: release pins and branches no commit references.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

int run_gc(const Global& g, const GcOptions& o) {
  auto repo = open_repo();
  engine::GcOptions opt;
  opt.prune_bookmarks = o.prune_bookmarks;
  opt.prune_workspaces = o.prune_workspaces;
  opt.force_prune = o.force_prune;
  opt.release_foreign = o.release_foreign;
  opt.listings_only = o.listings;
  opt.keep_bookmarks = o.keep_bookmarks;
  opt.delete_stores = o.delete_stores;
  opt.cwd = std::filesystem::current_path();
  for (const auto& s : o.stores) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw ConfigError("--store expects KIND=LOCATOR, got " + model::py_repr(s));
    opt.stores.emplace_back(s.substr(0, eq), nlohmann::json{{"uri", s.substr(eq + 1)}});
  }
  if ((opt.delete_stores || !opt.stores.empty()) && !g.json)
    note("reclaiming created stores is experimental: `delete-store` has no `repair`; fetch every bookmark first, and "
         "read the plan");
  if (o.no_dry_run && (o.plan.dry_run || o.plan.plan_file)) throw ConfigError("--no-dry-run cannot be combined with --dry-run or --plan");
  opt.saved = load_saved_plan(o.plan, "gc");
  opt.dry_run = !o.no_dry_run && !opt.saved;
  Progress reading("reading history", !g.json), progress("listing pins", !g.json);
  opt.reading = reading.callback();
  opt.progress = progress.callback();
  auto r = engine::gc(*repo, opt);
  reading.finish();
  progress.finish();
  // The history walk's trees and manifest texts go with the exit, not entry by entry (the plan
  // and the report below need only the repository's root and the result).
  repo->leave_vcs_to_exit();
  if (!r.applied) {
    PlanFlags shown = o.plan;
    shown.dry_run = true;
    show_plan(g, shown, *repo, r.plan);
    if (!g.json) {
      if (r.plan.writes() > 0) out("(dry run; `tether gc --no-dry-run` applies it)");
      print_failed(r.unreachable);
    }
    return r.unreachable.empty() ? 0 : kExitPartial;
  }
  if (g.json) print_json(r.to_json());
  else {
    print_gc_report(r);
    print_failed(r.failed);
  }
  return gc_exit(r);
}

}  // namespace tether::cli
