// core/cli/commit.cpp: `tether commit`.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/commit.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_commit(const Global& g, const CommitOptions& o) {
  if ((!o.message || o.message->empty()) && !o.plan.from_plan) throw ConfigError("a message is required: -m/--message");
  auto repo = open_repo();
  engine::CommitOptions opt;
  opt.message = o.message.value_or("");  // with --from-plan, -m overrides the saved message
  set_plan_options(opt, o.plan, "commit");
  opt.strict = o.strict;
  opt.no_vcs = o.no_vcs;
  opt.no_snapshot = o.no_snapshot;
  opt.force = o.force;
  Progress progress("fingerprinting", !g.json);
  opt.progress = progress.callback();
  auto r = engine::commit(*repo, opt);
  progress.finish();
  for (const auto& w : r.warnings) warning(w);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  if (!r.applied) {
    out("nothing to commit: every object is unchanged");
    return 0;
  }
  // A recorded state the system can reopen without a native ref (DuckLake snapshots, ...).
  for (const auto& [k, v] : r.pinned)
    out(v ? "  pinned " + k + " -> " + *v : "  recorded " + k + " (addressable: reopened by its state, no native ref)");
  for (const auto& k : r.unrecoverable) out(yellow("  recorded " + k + " (not recoverable)"));
  if (r.vcs_commit) out("committed " + r.vcs_commit->substr(0, 12));
  else out("manifests written; no VCS commit");
  return 0;
}

}  // namespace tether::cli
