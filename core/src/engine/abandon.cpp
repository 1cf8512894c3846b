// core/src/engine/abandon.cpp: `tether abandon` (docs/cli.md#abandon): take dataset commits out of
// history (descendants rewritten, bookmarks moved), previewing the gc that would release what
// they alone referenced, or running it with --gc.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/abandon.hpp"
#include "tether/engine/drop.hpp"
#include "tether/engine/forget_workspace.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

namespace {

// What an abandon plan decided (its context): the commits, whether gc follows, and what the
// plan reviewed.
struct AbandonPayload {
  std::vector<std::string> commits;
  bool gc = false;
  std::string workspace_id, vcs_head, history_digest;

  Json to_json() const {
    return Json{{"commits", commits},
                {"gc", gc},
                {"workspace_id", workspace_id},
                {"vcs_head", vcs_head},
                {"history_digest", history_digest}};
  }
  static AbandonPayload from(const Plan& plan) {
    const ContextReader r{plan.context, "abandon"};
    AbandonPayload p;
    p.commits = r.strings("commits");
    p.gc = r.boolean("gc");
    p.workspace_id = r.string("workspace_id");
    p.vcs_head = r.string("vcs_head");
    p.history_digest = r.string("history_digest");
    return p;
  }
};

}  // namespace

static AbandonResult apply_abandon(Context& cx, const Plan& plan);
static Plan plan_abandon(Context& cx, const AbandonOptions& opt);

// ---- abandon -------------------------------------------------------------------------------

static Plan plan_abandon(Context& cx, const AbandonOptions& opt) {
  if (opt.revs.empty()) throw ConfigError("name the commit(s) to abandon");
  Plan plan;
  plan.command = "abandon";
  plan.created_at = now_iso_seconds(cx);
  auto head = cx.vcs->head();
  if (!head) throw VcsError("there are no commits to abandon");
  std::vector<std::string> commits;
  for (const auto& rev : opt.revs) {
    std::string c = cx.vcs->resolve(rev);
    if (std::find(commits.begin(), commits.end(), c) != commits.end()) continue;
    if (!cx.vcs->is_ancestor(c, *head))
      throw VcsError(short12(c) + " is not on the current branch; tether can only abandon commits of the checked-out history");
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = cx.vcs->history(q);
    if (info.empty() || info[0].parents.empty()) throw VcsError("cannot abandon the root commit " + short12(c));
    plan.actions.push_back({PlanOp::AbandonCommit, "", "", short12(c), info[0].summary, Json{{"commit", c}}});
    commits.push_back(c);
  }
  std::set<std::string> gone(commits.begin(), commits.end());
  for (const auto& [b, c] : cx.vcs->bookmarks())
    if (gone.count(c)) plan.actions.push_back({PlanOp::MoveBookmark, "", "", b, "to its nearest kept ancestor", Json{{"from", c}}});

  // What gc would then release: the history without these commits (descendants keep their
  // manifests, so their references stay).
  GcScope scope;
  scope.exclude_commits = gone;
  GcOptions g;
  Plan preview = plan_gc(cx, g, scope);
  std::size_t n = 0;
  for (const auto& a : preview.actions)
    if (a.op == PlanOp::Unpin || a.op == PlanOp::DeleteListing) {
      if (opt.gc) plan.actions.push_back(a);
      ++n;
    }
  for (const auto& note : preview.notes) plan.notes.push_back(note);
  if (n == 0) {
    // A store it could not list may hold pins that become unreferenced: not "nothing".
    if (plan_unreachable(preview).empty()) plan.notes.push_back("nothing becomes unreferenced");
  } else if (!opt.gc)
    plan.notes.push_back(std::to_string(n) + " pin(s)/listing(s) become unreferenced; --gc releases them (or `tether gc --no-dry-run` later)");
  else plan.notes.push_back("gc actions are re-planned once the commits are gone");

  AbandonPayload payload;
  payload.commits = commits;
  payload.gc = opt.gc;
  payload.workspace_id = cx.workspace->workspace_id;
  payload.vcs_head = *head;
  payload.history_digest = cx.vcs->history_digest();
  plan.context = payload.to_json();
  plan.preconditions.push_back({"workspace_id", cx.workspace->workspace_id, "", Json::object(),
                                "the plan belongs to checkout " + cx.workspace->short_id() + "; this is {observed}"});
  plan.preconditions.push_back({"vcs_head", *head, "", Json::object(),
                                "the checkout moved since the abandon plan was made (now at {observed})"});
  plan.preconditions.push_back({"history_digest", payload.history_digest, "", Json::object(),
                                "the repository's history changed since the abandon plan was made"});
  return plan;
}

static AbandonResult apply_abandon(Context& cx, const Plan& plan) {
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  AbandonResult res;
  res.plan = plan;
  const AbandonPayload ctx = AbandonPayload::from(plan);
  const std::vector<std::string>& commits = ctx.commits;
  Json pre{{"vcs", vcs_position(cx)}, {"workspace", model::workspace_to_toml(*cx.workspace)}};
  const auto before = cx.vcs->bookmarks();
  // First parents, for bookmarks left on an abandoned commit.
  std::map<std::string, std::string> first_parent;
  for (const auto& c : commits) {
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = cx.vcs->history(q);
    if (!info.empty() && !info[0].parents.empty()) first_parent[c] = info[0].parents[0];
  }
  auto done = cx.vcs->abandon(commits, vcs_path(cx, ".tether/objects"));
  res.abandoned = done.abandoned;
  res.rewritten = done.rewritten;
  std::set<std::string> gone(done.abandoned.begin(), done.abandoned.end());
  auto now = cx.vcs->bookmarks();
  for (const auto& [b, old] : before) {
    auto it = now.find(b);
    if (it == now.end()) continue;
    if (it->second != old) {
      res.bookmarks_moved[b] = it->second;  // the VCS moved it with the rewrite
      continue;
    }
    if (!gone.count(old)) continue;
    std::string target = old;
    while (gone.count(target) && first_parent.count(target)) target = first_parent[target];
    if (auto r = done.rewritten.find(target); r != done.rewritten.end()) target = r->second;
    try {
      cx.vcs->bookmark_set(b, target, old);
      res.bookmarks_moved[b] = target;
    } catch (const std::exception& e) {
      res.failed[b] = std::string("could not be moved off the abandoned commit: ") + e.what();
    }
  }
  reload(cx);
  GcOptions g;
  res.gc_plan = plan_gc(cx, g, GcScope{});
  Json unreferenced = Json::array();
  for (const auto& a : res.gc_plan.actions)
    if (a.op == PlanOp::Unpin) unreferenced.push_back(a.target);
  OpLog oplog = op_log(cx);
  std::string op_id = oplog.begin("abandon", pre);
  oplog.end(op_id, Json{{"abandoned", res.abandoned},
                        {"rewritten_commits", res.rewritten},
                        {"bookmarks_moved", res.bookmarks_moved},
                        {"unreferenced", unreferenced},
                        {"failed", res.failed}});
  res.applied = true;
  // Applied also when only a store could not be listed, so that the report says so.
  if (ctx.gc && (res.gc_plan.writes() > 0 || !plan_unreachable(res.gc_plan).empty()))
    res.gc = apply_gc(cx, res.gc_plan, op_id);
  return res;
}

AbandonResult abandon(Repo& repo, const AbandonOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  // A saved plan is planned again from the commits it records (they must still be abandonable:
  // on the checked-out history, not the root) and must come out the same.
  auto rederive = [&](const Plan& p) {
    const AbandonPayload ctx = AbandonPayload::from(p);
    check_preconditions(cx, p);
    AbandonOptions again;
    again.gc = ctx.gc;
    again.revs = ctx.commits;
    if (again.revs.empty()) throw StalePlanError("the saved abandon plan names no commit; re-run the plan");
    require_rederived(p, plan_abandon(cx, again));
  };
  AbandonResult res = run_planned<AbandonResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_abandon(cx, opt); },
      [&](const Plan& p) { return apply_abandon(cx, p); });
  res.gc_unreachable = plan_unreachable(res.gc_plan);
  return res;
}

Json AbandonResult::to_json() const {
  return Json{{"abandoned", abandoned},
              {"rewritten_commits", rewritten},
              {"bookmarks_moved", bookmarks_moved},
              {"gc_plan", gc_plan.to_json()},
              {"gc_applied", gc.has_value()},
              {"gc", gc ? gc->to_json() : Json(nullptr)},
              {"failed", failed}};
}

// What `tether ops` says of an abandon (ops.cpp's table).
std::string summarize_abandon(const OpEntry& e) {
  std::vector<std::string> ids;
  for (const auto& a : names_of(e.result.value("abandoned", Json::array()))) ids.push_back(a.substr(0, 12));
  return "abandoned " + join(ids) + "; " + plural(count_of(e.result, "unreferenced"), "pin") + " freed";
}

}  // namespace tether::engine
