// core/cli/abandon.cpp: `tether abandon`: remove dataset commits from the history.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/abandon.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_abandon(const Global& g, const AbandonOptions& o) {
  auto repo = open_repo();
  engine::AbandonOptions opt;
  opt.revs = o.revs;
  opt.gc = o.gc;
  set_plan_options(opt, o.plan, "abandon");
  auto r = engine::abandon(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  // The commits are abandoned either way; a bookmark left behind or a store gc could not
  // list makes it partial (exit 3).
  auto failed = r.gc ? r.gc->failed : r.gc_unreachable;
  for (const auto& [b, why] : r.failed) failed["bookmark " + b] = why;
  const int rc = failed.empty() ? 0 : kExitPartial;
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  std::vector<std::string> ids;
  for (const auto& c : r.abandoned) ids.push_back(c.substr(0, 12));
  std::string line;
  for (const auto& id : ids) line += (line.empty() ? "" : ", ") + id;
  out("abandoned " + line);
  for (const auto& [b, c] : r.bookmarks_moved) out("  bookmark " + b + " -> " + c.substr(0, 12));
  if (r.gc) {
    print_gc_report(*r.gc);
  } else if (r.gc_plan.writes() == 0 && failed.empty()) {
    out("nothing became unreferenced");
  } else {
    out(render_plan(r.gc_plan));
    if (r.gc_plan.writes() > 0) out("(not applied; `tether gc --no-dry-run` releases these, or re-run with --gc)");
  }
  print_failed(failed);
  return rc;
}

}  // namespace tether::cli
