// core/cli/pull.cpp: `tether pull`: commit what the bookmark's branches hold now.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/pull.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

int run_pull(const Global& g, const PullOptions& o) {
  auto repo = open_repo();
  Progress progress("reading heads", !g.json);
  auto r = engine::pull(*repo, o.bookmark, o.message, progress.callback());
  progress.finish();
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  for (const auto& [k, v] : r.committed)
    out("  pulled " + k + "  " + model::short_state(v.first) + " -> " + model::short_state(v.second));
  for (const auto& k : r.unchanged) out("  up to date " + k);
  for (const auto& [k, why] : r.skipped) out("  skipped " + k + ": " + why);
  if (r.vcs_commit) out("committed " + r.vcs_commit->substr(0, 12) + " on " + r.bookmark);
  else out(r.bookmark + " is up to date");
  return 0;
}

}  // namespace tether::cli
