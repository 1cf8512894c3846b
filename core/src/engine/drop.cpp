// core/src/engine/drop.cpp: `tether drop` (docs/cli.md#drop): leave a bookmark, abandon the commits
// only it holds, delete it, and collect its pins and working branches.
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

// What a drop plan decided (its context): the bookmark, the commits only it reaches, where
// this checkout goes when it is on the bookmark, and what the plan reviewed.
struct DropPayload {
  std::string bookmark;
  std::vector<std::string> commits;
  std::optional<std::string> leave;  // the destination, when this checkout is on the bookmark
  bool force_prune = false;
  bool delete_stores = false;  // written only when set
  std::string workspace_id;
  std::optional<std::string> vcs_head;
  std::string history_digest;
  std::map<std::string, std::string> unreachable;  // what its gc could not list; written only when any

  Json to_json() const {
    Json j{{"bookmark", bookmark},
           {"commits", commits},
           {"leave", leave ? Json(*leave) : Json(nullptr)},
           {"force_prune", force_prune},
           {"workspace_id", workspace_id},
           {"vcs_head", vcs_head ? Json(*vcs_head) : Json(nullptr)},
           {"history_digest", history_digest}};
    if (!unreachable.empty()) j["unreachable"] = unreachable;
    if (delete_stores) j["delete_stores"] = true;
    return j;
  }
  static DropPayload from(const Plan& plan) {
    const ContextReader r{plan.context, "drop"};
    DropPayload p;
    p.bookmark = r.string("bookmark");
    p.commits = r.strings("commits");
    p.leave = r.string_or_null("leave");
    p.force_prune = r.boolean("force_prune");
    if (const Json* d = r.find("delete_stores")) {
      if (!d->is_boolean()) r.refuse("delete_stores", "is not a boolean");
      p.delete_stores = d->get<bool>();
    }
    p.workspace_id = r.string("workspace_id");
    p.vcs_head = r.string_or_null("vcs_head");
    p.history_digest = r.string("history_digest");
    p.unreachable = plan_unreachable(plan);
    return p;
  }
};

}  // namespace

static DropResult apply_drop(Context& cx, const Plan& plan);
static Plan plan_drop(Context& cx, const DropOptions& opt);

// ---- drop ----------------------------------------------------------------------------------

static Plan plan_drop(Context& cx, const DropOptions& opt) {
  const std::string& b = opt.bookmark;
  const std::string trunk = cx.config.trunk();
  if (b == trunk) throw ConfigError("'" + b + "' is the trunk bookmark; it cannot be dropped");
  auto bookmarks = cx.vcs->bookmarks();
  if (!bookmarks.count(b)) throw ConfigError("no bookmark '" + b + "'");
  std::vector<std::string> holders;
  auto others = other_workspaces(cx);
  for (const auto& [id, bm] : others)
    if (bm == b) holders.push_back(id.substr(0, 8));
  if (!holders.empty())
    throw ConfigError("bookmark '" + b + "' is worked on by checkout(s) " + join(holders) +
                      "; `tether forget-workspace` or `tether new` there first");
  std::string dest = opt.to.value_or(trunk);
  if (dest == b) throw ConfigError("--to names the bookmark being dropped; name another one");
  if (dest != trunk && !bookmarks.count(dest)) throw ConfigError("no bookmark '" + dest + "' to leave for");
  const bool here = cx.vcs->current_bookmark() == b;
  if (here) {
    std::vector<std::string> on_dest;
    for (const auto& [id, bm] : others)
      if (bm == dest && dest != trunk) on_dest.push_back(id.substr(0, 8));
    if (!on_dest.empty())
      throw ConfigError("cannot leave for '" + dest + "': checkout(s) " + join(on_dest) + " work on it; `--to` another bookmark");
  }
  auto commits = cx.vcs->exclusive_commits(b);

  Plan plan;
  plan.command = "drop";
  plan.created_at = now_iso_seconds(cx);
  auto head = cx.vcs->head();
  DropPayload payload;
  payload.bookmark = b;
  payload.commits = commits;
  if (here) payload.leave = dest;
  payload.force_prune = opt.force_prune;
  payload.delete_stores = opt.delete_stores;
  payload.workspace_id = cx.workspace->workspace_id;
  payload.vcs_head = head;
  payload.history_digest = cx.vcs->history_digest();
  plan.preconditions.push_back({"workspace_id", cx.workspace->workspace_id, "", Json::object(),
                                "the plan belongs to checkout " + cx.workspace->short_id() + "; this is {observed}"});
  plan.preconditions.push_back({"history_digest", payload.history_digest, "", Json::object(),
                                "the repository's history changed since the drop plan was made"});
  plan.preconditions.push_back({"bookmark_head", bookmarks.at(b), "", Json{{"bookmark", b}},
                                "bookmark " + b + " moved since the drop plan was made (now {observed})"});
  plan.preconditions.push_back({"no_new_holders", Json(nullptr), "", Json{{"bookmark", b}},
                                "checkout(s) {observed} began working on " + b + " since the drop plan was made"});
  if (head)
    plan.preconditions.push_back({"vcs_head", *head, "", Json::object(),
                                  "the checkout moved since the drop plan was made (now at {observed})"});
  plan.preconditions.push_back({"workspace_bookmark", cx.workspace->bookmark ? Json(*cx.workspace->bookmark) : Json(nullptr),
                                "", Json::object(), "this checkout's bookmark changed since the drop plan was made (now {observed})"});

  if (here)
    plan.actions.push_back({PlanOp::LeaveBookmark, "", "", dest, "this checkout is on " + b + "; `new " + dest + "` first", Json::object()});
  for (const auto& c : commits) {
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = cx.vcs->history(q);
    plan.actions.push_back({PlanOp::AbandonCommit, "", "", short12(c), info.empty() ? "" : info[0].summary, Json{{"commit", c}}});
  }
  plan.actions.push_back({PlanOp::DeleteBookmark, "", "", b, "the git branch", Json::object()});

  // The gc the drop runs, planned as if the commits were gone.
  GcScope scope;
  scope.exclude_commits.insert(commits.begin(), commits.end());
  scope.only_bookmark = b;
  scope.dropped_states = dropped_states(cx, commits);
  if (here) scope.here_manifests = bookmarks.count(dest) ? manifests_at(cx, dest) : std::map<std::string, model::ObjectManifest>{};
  GcOptions g;
  g.prune_bookmarks = true;
  g.force_prune = opt.force_prune;
  g.delete_stores = opt.delete_stores;
  Plan preview = plan_gc(cx, g, scope);
  for (const auto& a : preview.actions)
    if (a.op != PlanOp::ForgetWorkingRef) plan.actions.push_back(a);
  for (const auto& n : preview.notes) plan.notes.push_back(n);
  if (auto remotes = cx.vcs->remote_counterparts(b); !remotes.empty())
    plan.notes.push_back(join(remotes) + (commits.empty() ? " still reach its commits" : " also exist") +
                         "; `git push <remote> --delete " + b + "` removes them");
  if (preview.writes() > 0)
    plan.notes.push_back("store actions are what gc will plan once the commits are gone; they are re-planned at apply");
  payload.unreachable = plan_unreachable(preview);
  plan.context = payload.to_json();
  return plan;
}

static DropResult apply_drop(Context& cx, const Plan& plan) {
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  const DropPayload ctx = DropPayload::from(plan);
  const std::string& b = ctx.bookmark;
  const std::vector<std::string>& planned = ctx.commits;
  if (ctx.workspace_id != cx.workspace->workspace_id)
    throw StalePlanError("the drop plan belongs to another checkout; re-run the plan");
  auto now = cx.vcs->exclusive_commits(b);
  if (now != planned) {
    std::string extra;
    std::set<std::string> still(now.begin(), now.end());
    std::vector<std::string> reached;
    for (const auto& c : planned)
      if (!still.count(c)) reached.push_back(short12(c));
    if (!reached.empty()) extra = "; another bookmark now reaches " + join(reached);
    throw StalePlanError("the commits only " + b + " reaches changed since the drop plan was made (" +
                         std::to_string(planned.size()) + " planned, " + std::to_string(now.size()) + " now" + extra +
                         "); re-run the plan");
  }
  const bool here = cx.vcs->current_bookmark() == b;
  const bool planned_here = ctx.leave.has_value();
  if (here != planned_here)
    throw StalePlanError(std::string("this checkout ") + (here ? "is on " + b + " now" : "is no longer on " + b) +
                         ", unlike when the drop plan was made; re-run the plan");

  DropResult res;
  res.plan = plan;
  res.bookmark = b;
  const std::string head = cx.vcs->bookmarks().at(b);
  // What the dropped commits pinned or recorded: their branches' heads are safe to delete.
  GcScope scope;
  scope.only_bookmark = b;
  scope.dropped_states = dropped_states(cx, planned);

  OpLog oplog = op_log(cx);
  std::string op_id = oplog.begin("drop", Json{{"vcs", vcs_position(cx)}, {"workspace", model::workspace_to_toml(*cx.workspace)}});
  try {
    if (here) {
      const std::string& dest = *ctx.leave;
      NewOptions n;
      n.rev = dest;
      if (dest == cx.config.trunk() && !cx.vcs->bookmarks().count(dest)) n.bookmark = dest;
      cx.op_parent = op_id;
      try {
        new_workspace(cx, n);
      } catch (...) {
        cx.op_parent.reset();
        throw;
      }
      cx.op_parent.reset();
      res.left_for = dest;
      oplog.progress(op_id, Json{{"action", "leave-bookmark"}, {"target", dest}});
    }
    cx.vcs->delete_bookmark(b, head);
    res.abandoned = planned;
    oplog.progress(op_id, Json{{"action", "delete-bookmark"}, {"target", b}, {"commit", head}});
    reload(cx);
    GcOptions g;
    g.prune_bookmarks = true;
    g.force_prune = ctx.force_prune;
    g.delete_stores = ctx.delete_stores;
    Plan gc_plan = plan_gc(cx, g, scope);
    std::erase_if(gc_plan.actions, [](const PlanAction& a) { return a.op == PlanOp::ForgetWorkingRef; });
    res.gc = gc_plan.writes() > 0 || !plan_unreachable(gc_plan).empty() ? apply_gc(cx, gc_plan, op_id) : GcReport{};
    if (!res.gc->applied) res.gc->plan = gc_plan;
  } catch (const std::exception& e) {
    oplog.end(op_id, Json{{"bookmark", b}, {"left_for", res.left_for ? Json(*res.left_for) : Json(nullptr)},
                          {"abandoned", res.abandoned}, {"failed", e.what()}});
    throw;
  }
  Json gc_json = res.gc ? res.gc->to_json() : Json(nullptr);
  if (gc_json.is_object()) gc_json.erase("dry_run");
  oplog.end(op_id, Json{{"bookmark", b},
                        {"left_for", res.left_for ? Json(*res.left_for) : Json(nullptr)},
                        {"abandoned", res.abandoned},
                        {"gc", gc_json}});
  res.applied = true;
  return res;
}

DropResult drop(Repo& repo, const DropOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  // A saved plan is planned again from the bookmark and destination it records and must come
  // out the same: the commits, branches and pins it removes are then this checkout's.
  auto rederive = [&](const Plan& p) {
    const DropPayload ctx = DropPayload::from(p);
    check_preconditions(cx, p);
    DropOptions again;
    again.bookmark = ctx.bookmark;
    again.to = ctx.leave;
    again.force_prune = ctx.force_prune;
    again.delete_stores = ctx.delete_stores;
    require_rederived(p, plan_drop(cx, again));
  };
  return run_planned<DropResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_drop(cx, opt); },
      [&](const Plan& p) { return apply_drop(cx, p); });
}

Json DropResult::to_json() const {
  // Only an applied drop prints JSON, so gc's "dry_run" says nothing here: it is left out.
  Json report = gc ? gc->to_json() : Json(nullptr);
  if (report.is_object()) report.erase("dry_run");
  return Json{{"bookmark", bookmark},
              {"left_for", left_for ? Json(*left_for) : Json(nullptr)},
              {"abandoned", abandoned},
              {"gc", report}};
}

// What `tether ops` says of a drop (ops.cpp's table).
std::string summarize_drop(const OpEntry& e) {
  const Json& r = e.result;
  std::string s = "dropped " + str_of(r, "bookmark") + ": " + plural(count_of(r, "abandoned"), "commit");
  if (std::string left = str_of(r, "left_for"); !left.empty()) s += "; left for " + left;
  return s;
}

}  // namespace tether::engine
