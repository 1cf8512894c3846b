// core/cli/new.cpp: `tether new`: work on a bookmark.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/new.hpp"

namespace tether::cli {

int run_new(const Global& g, const NewOptions& o) {
  auto repo = open_repo();
  engine::NewOptions opt;
  opt.rev = o.rev;
  opt.bookmark = o.bookmark;
  opt.shared = o.shared;
  opt.keep = o.keep;
  opt.discard = o.discard;
  if (o.eager_flag) opt.eager = true;
  if (o.lazy_flag) opt.eager = false;
  set_plan_options(opt, o.plan, "new");
  Progress progress("forking", !g.json);
  opt.progress = progress.callback();
  auto r = engine::new_workspace(*repo, opt);
  progress.finish();
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  if (!r.bookmark) {
    out("on no bookmark: read-only (`tether new -b NAME` to write)");
    return 0;
  }
  out(std::string("on ") + (r.trunk ? "trunk " : "") + "bookmark " + *r.bookmark + "; " +
      (r.kept ? "kept working refs" : "working refs set up"));
  for (const auto& [k, ref] : r.working_refs) {
    bool gone = std::find(r.unregistered.begin(), r.unregistered.end(), k) != r.unregistered.end();
    out("  " + k + " -> " + ref + (gone ? "  (not at this revision; branch kept for gc)" : ""));
  }
  for (const auto& [k, ref] : r.pending_forks) out("  " + k + " -> " + ref + "  (created on first writable open)");
  return 0;
}

}  // namespace tether::cli
