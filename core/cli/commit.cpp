// core/cli/commit.cpp: `tether commit`.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

namespace {

// spec §4.0's plan rendering: `plan: <command> (N write(s))`, one aligned line per action,
// then the notes.
std::string render_plan(const engine::CommitPlan& plan) {
  std::string notes;
  for (const auto& n : plan.notes) notes += "\n  " + std::string(18, ' ') + "  " + n;
  if (plan.actions.empty()) return "  commit: nothing to do" + notes;
  std::size_t w = 0;
  for (const auto& a : plan.actions) w = std::max(w, a.key.size());
  std::string s = "plan: commit (" + std::to_string(plan.writes()) + " write(s))";
  for (const auto& a : plan.actions) {
    std::string label = w > 0 ? ljust(a.key, w) + "  " : "";
    std::string kindtag = a.kind.empty() ? "" : "[" + a.kind + "] ";
    std::string line = "  " + rjust(a.op, 18) + "  " + label + kindtag + a.target + "  " + a.detail;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += "\n" + line;
  }
  return s + notes;
}

}  // namespace

int run_commit(const Global& g, const CommitOptions& o) {
  if (!o.message || o.message->empty()) throw ConfigError("a message is required: -m/--message");
  auto repo = open_repo();
  engine::CommitOptions opt;
  opt.message = *o.message;
  opt.dry_run = o.dry_run;
  opt.strict = o.strict;
  opt.no_vcs = o.no_vcs;
  opt.no_snapshot = o.no_snapshot;
  Progress progress("fingerprinting", !g.json);
  opt.progress = progress.callback();
  auto r = repo->commit(opt);
  progress.finish();
  if (o.dry_run) {
    if (g.json) print_json(r.plan.to_json());
    else out(render_plan(r.plan));
    return 0;
  }
  if (g.json) {
    nlohmann::json pinned = nlohmann::json::object();
    for (const auto& [k, v] : r.pinned) pinned[k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    print_json({{"vcs_commit", r.vcs_commit ? nlohmann::json(*r.vcs_commit) : nlohmann::json(nullptr)},
                {"pinned", pinned},
                {"unrecoverable", r.unrecoverable},
                {"unchanged", r.unchanged}});
    return 0;
  }
  if (!r.applied) {
    out("nothing to commit: every object is unchanged");
    return 0;
  }
  for (const auto& [k, v] : r.pinned) out("  pinned " + k + " -> " + (v ? *v : std::string("(addressable)")));
  for (const auto& k : r.unrecoverable) out(yellow("  recorded " + k + " (not recoverable)"));
  if (r.vcs_commit) out("committed " + r.vcs_commit->substr(0, 12));
  else out("manifests written; no VCS commit");
  return 0;
}

}  // namespace tether::cli
