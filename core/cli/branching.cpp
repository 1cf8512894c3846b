// core/cli/branching.cpp: `tether new`, `open`, `pull`, `promote` and `restore`.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

using nlohmann::json;

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
  auto r = repo->new_workspace(opt);
  progress.finish();
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    json fps = json::object();
    for (const auto& [k, v] : r.fork_points) fps[k] = v;
    print_json({{"bookmark", r.bookmark ? json(*r.bookmark) : json(nullptr)},
                {"working_refs", r.working_refs},
                {"pending_forks", r.pending_forks},
                {"fork_points", fps}});
    return 0;
  }
  if (!r.bookmark) {
    out("on no bookmark: read-only (`tether new -b NAME` to write)");
    return 0;
  }
  bool keep = r.plan.context.value("keep", false);
  out(std::string("on ") + (r.trunk ? "trunk " : "") + "bookmark " + *r.bookmark + "; " +
      (keep ? "kept working refs" : "working refs set up"));
  for (const auto& [k, ref] : r.working_refs) {
    bool gone = std::find(r.unregistered.begin(), r.unregistered.end(), k) != r.unregistered.end();
    out("  " + k + " -> " + ref + (gone ? "  (not at this revision; branch kept for gc)" : ""));
  }
  for (const auto& [k, ref] : r.pending_forks) out("  " + k + " -> " + ref + "  (created on first writable open)");
  return 0;
}

int run_open(const Global& g, const OpenOptions& o) {
  auto repo = open_repo();
  std::optional<bool> writable;
  if (o.writable_flag) writable = true;
  if (o.read_only_flag) writable = false;
  auto r = repo->open_object(o.key, o.rev, writable, o.with_password);
  if (g.json) {
    // The backend's own fields (an ATTACH statement, a path and sha, ...) under "handle".
    print_json({{"key", r.key}, {"read_only", r.read_only}, {"address", r.address}, {"type", r.type}, {"handle", r.handle}});
    return 0;
  }
  // --with-password asks for the password in the printed handle; nothing else is shown raw.
  if (o.with_password) out_unredacted(r.display);
  else out(r.display);
  return 0;
}

int run_pull(const Global& g, const PullOptions& o) {
  auto repo = open_repo();
  Progress progress("reading heads", !g.json);
  auto r = repo->pull(o.bookmark, o.message, progress.callback());
  progress.finish();
  if (g.json) {
    json committed = json::object();
    for (const auto& [k, v] : r.committed) committed[k] = {{"from", v.first}, {"to", v.second}};
    json pinned = json::object();
    for (const auto& [k, v] : r.pinned) pinned[k] = v ? json(*v) : json(nullptr);
    print_json({{"bookmark", r.bookmark},
                {"committed", committed},
                {"unchanged", r.unchanged},
                {"skipped", r.skipped},
                {"vcs_commit", r.vcs_commit ? json(*r.vcs_commit) : json(nullptr)},
                {"pinned", pinned}});
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

int run_promote(const Global& g, const PromoteOptions& o) {
  auto repo = open_repo();
  engine::PromoteOptions opt;
  opt.keys = o.keys;
  opt.rev = o.rev;
  opt.strategy = o.strategy;
  opt.message = o.message;
  set_plan_options(opt, o.plan, "promote");
  auto r = repo->promote(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  bool applied_any = !r.fast_forwarded.empty() || !r.merged.empty();
  int rc = 0;
  if (!r.refused.empty()) rc = kExitFailure;
  if (!r.failed.empty()) rc = applied_any ? kExitPartial : kExitFailure;
  if (g.json) {
    json ff = json::object(), mg = json::object();
    for (const auto& [k, v] : r.fast_forwarded) ff[k] = v;
    for (const auto& [k, v] : r.merged) mg[k] = v;
    json j{{"fast_forwarded", ff},
           {"merged", mg},
           {"skipped", r.skipped},
           {"refused", r.refused},
           {"held", r.held},
           {"conflicts", r.conflicts},
           {"kept_forks", r.kept_forks},
           {"rolled_back", r.rolled_back},
           {"trunk_moved", r.trunk_moved ? json(*r.trunk_moved) : json(nullptr)},
           {"trunk_held", r.trunk_held ? json(*r.trunk_held) : json(nullptr)}};
    if (!r.failed.empty()) j["failed"] = r.failed;
    print_json(j);
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

int run_restore(const Global& g, const RestoreOptions& o) {
  auto repo = open_repo();
  engine::RestoreOptions opt;
  opt.keys = o.keys;
  opt.from = o.from;
  opt.discard = o.discard;
  set_plan_options(opt, o.plan, "restore");
  auto r = repo->restore(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    print_json({{"from", r.from}, {"working_refs", r.working_refs}});
    return 0;
  }
  for (const auto& [k, ref] : r.working_refs) out(k + " -> " + ref + "  (from " + r.from + ")");
  return 0;
}

}  // namespace tether::cli
