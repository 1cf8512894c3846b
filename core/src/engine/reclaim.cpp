// core/src/engine/reclaim.cpp: `abandon`, `drop` and `forget-workspace` (docs/cli.md):
// remove dataset commits, bookmarks and checkouts, then let gc release what only they held.
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
std::string short12(const std::string& id) { return id.substr(0, 12); }
}  // namespace

std::string Repo::store_group(const model::ObjectManifest& m) {
  try {
    return m.kind + "|" + backend(m.kind).ref_namespace(m.locator, m.key);
  } catch (const std::exception&) {
    return "";
  }
}

std::set<std::string> Repo::dropped_states(const std::vector<std::string>& commits) {
  std::set<std::string> out;
  for (const auto& c : commits)
    for (const auto& [k, m] : manifests_at(c))
      if (m.state)
        if (auto g = store_group(m); !g.empty())
          out.insert(g + "\n" + support::canonical_json(backend(m.kind).content_state(*m.state)));
  return out;
}

// ---- abandon -------------------------------------------------------------------------------

Plan Repo::plan_abandon(const AbandonOptions& opt) {
  if (opt.revs.empty()) throw ConfigError("name the commit(s) to abandon");
  Plan plan;
  plan.command = "abandon";
  plan.created_at = now_iso_seconds();
  auto head = vcs_->head();
  if (!head) throw VcsError("there are no commits to abandon");
  std::vector<std::string> commits;
  for (const auto& rev : opt.revs) {
    std::string c = vcs_->resolve(rev);
    if (std::find(commits.begin(), commits.end(), c) != commits.end()) continue;
    if (!vcs_->is_ancestor(c, *head))
      throw VcsError(short12(c) + " is not on the current branch; tether can only abandon commits of the checked-out history");
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = vcs_->history(q);
    if (info.empty() || info[0].parents.empty()) throw VcsError("cannot abandon the root commit " + short12(c));
    plan.actions.push_back({"abandon-commit", "", "", short12(c), info[0].summary, Json{{"commit", c}}});
    commits.push_back(c);
  }
  std::set<std::string> gone(commits.begin(), commits.end());
  for (const auto& [b, c] : vcs_->bookmarks())
    if (gone.count(c)) plan.actions.push_back({"move-bookmark", "", "", b, "to its nearest kept ancestor", Json{{"from", c}}});

  // What gc would then release: the history without these commits (descendants keep their
  // manifests, so their references stay).
  GcScope scope;
  scope.exclude_commits = gone;
  GcOptions g;
  Plan preview = plan_gc(g, scope);
  std::size_t n = 0;
  for (const auto& a : preview.actions)
    if (a.op == "unpin" || a.op == "delete-listing") {
      if (opt.gc) plan.actions.push_back(a);
      ++n;
    }
  for (const auto& note : preview.notes) plan.notes.push_back(note);
  if (n == 0) {
    // A store it could not list may hold pins that become unreferenced: not "nothing".
    if (!preview.context.contains("unreachable")) plan.notes.push_back("nothing becomes unreferenced");
  } else if (!opt.gc)
    plan.notes.push_back(std::to_string(n) + " pin(s)/listing(s) become unreferenced; --gc releases them (or `tether gc --no-dry-run` later)");
  else plan.notes.push_back("gc actions are re-planned once the commits are gone");

  plan.context = Json{{"commits", commits},
                      {"gc", opt.gc},
                      {"workspace_id", workspace_->workspace_id},
                      {"vcs_head", *head},
                      {"history_digest", vcs_->history_digest()}};
  plan.preconditions.push_back({"workspace_id", workspace_->workspace_id, "", Json::object(),
                                "the plan belongs to checkout " + workspace_->short_id() + "; this is {observed}"});
  plan.preconditions.push_back({"vcs_head", *head, "", Json::object(),
                                "the checkout moved since the abandon plan was made (now at {observed})"});
  plan.preconditions.push_back({"history_digest", plan.context["history_digest"], "", Json::object(),
                                "the repository's history changed since the abandon plan was made"});
  return plan;
}

AbandonResult Repo::apply_abandon(const Plan& plan) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  AbandonResult res;
  res.plan = plan;
  std::vector<std::string> commits = plan.context.at("commits").get<std::vector<std::string>>();
  Json pre{{"vcs", vcs_position()}, {"workspace", model::workspace_to_toml(*workspace_)}};
  const auto before = vcs_->bookmarks();
  // First parents, for bookmarks left on an abandoned commit.
  std::map<std::string, std::string> first_parent;
  for (const auto& c : commits) {
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = vcs_->history(q);
    if (!info.empty() && !info[0].parents.empty()) first_parent[c] = info[0].parents[0];
  }
  auto done = vcs_->abandon(commits, vcs_path(".tether/objects"));
  res.abandoned = done.abandoned;
  res.rewritten = done.rewritten;
  std::set<std::string> gone(done.abandoned.begin(), done.abandoned.end());
  auto now = vcs_->bookmarks();
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
      vcs_->bookmark_set(b, target, old);
      res.bookmarks_moved[b] = target;
    } catch (const std::exception& e) {
      res.failed[b] = std::string("could not be moved off the abandoned commit: ") + e.what();
    }
  }
  reload();
  GcOptions g;
  res.gc_plan = plan_gc(g, GcScope{});
  Json unreferenced = Json::array();
  for (const auto& a : res.gc_plan.actions)
    if (a.op == "unpin") unreferenced.push_back(a.target);
  OpLog oplog = op_log();
  std::string op_id = oplog.begin("abandon", pre);
  oplog.end(op_id, Json{{"abandoned", res.abandoned},
                        {"rewritten_commits", res.rewritten},
                        {"bookmarks_moved", res.bookmarks_moved},
                        {"unreferenced", unreferenced},
                        {"failed", res.failed}});
  res.applied = true;
  // Applied also when only a store could not be listed, so that the report says so.
  if (plan.context.value("gc", false) && (res.gc_plan.writes() > 0 || res.gc_plan.context.contains("unreachable")))
    res.gc = apply_gc(res.gc_plan, op_id);
  return res;
}

AbandonResult Repo::abandon(const AbandonOptions& opt) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  // A saved plan is planned again from the commits it records (they must still be abandonable:
  // on the checked-out history, not the root) and must come out the same.
  auto rederive = [&](const Plan& p) {
    check_preconditions(p);
    AbandonOptions again;
    again.gc = p.context.value("gc", false);
    if (auto c = p.context.find("commits"); c != p.context.end() && c->is_array())
      for (const auto& id : *c)
        if (id.is_string()) again.revs.push_back(id.get<std::string>());
    if (again.revs.empty()) throw StalePlanError("the saved abandon plan names no commit; re-run the plan");
    require_rederived(p, plan_abandon(again));
  };
  AbandonResult res = run_planned<AbandonResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_abandon(opt); },
      [&](const Plan& p) { return apply_abandon(p); });
  res.gc_unreachable = plan_unreachable(res.gc_plan);
  return res;
}

// ---- drop ----------------------------------------------------------------------------------

Plan Repo::plan_drop(const DropOptions& opt) {
  const std::string& b = opt.bookmark;
  const std::string trunk = config_.trunk();
  if (b == trunk) throw ConfigError("'" + b + "' is the trunk bookmark; it cannot be dropped");
  auto bookmarks = vcs_->bookmarks();
  if (!bookmarks.count(b)) throw ConfigError("no bookmark '" + b + "'");
  std::vector<std::string> holders;
  auto others = other_workspaces();
  for (const auto& [id, bm] : others)
    if (bm == b) holders.push_back(id.substr(0, 8));
  if (!holders.empty())
    throw ConfigError("bookmark '" + b + "' is worked on by checkout(s) " + join(holders) +
                      "; `tether forget-workspace` or `tether new` there first");
  std::string dest = opt.to.value_or(trunk);
  if (dest == b) throw ConfigError("--to names the bookmark being dropped; name another one");
  if (dest != trunk && !bookmarks.count(dest)) throw ConfigError("no bookmark '" + dest + "' to leave for");
  const bool here = vcs_->current_bookmark() == b;
  if (here) {
    std::vector<std::string> on_dest;
    for (const auto& [id, bm] : others)
      if (bm == dest && dest != trunk) on_dest.push_back(id.substr(0, 8));
    if (!on_dest.empty())
      throw ConfigError("cannot leave for '" + dest + "': checkout(s) " + join(on_dest) + " work on it; `--to` another bookmark");
  }
  auto commits = vcs_->exclusive_commits(b);

  Plan plan;
  plan.command = "drop";
  plan.created_at = now_iso_seconds();
  auto head = vcs_->head();
  plan.context = Json{{"bookmark", b},
                      {"commits", commits},
                      {"leave", here ? Json(dest) : Json(nullptr)},
                      {"force_prune", opt.force_prune},
                      {"workspace_id", workspace_->workspace_id},
                      {"vcs_head", head ? Json(*head) : Json(nullptr)},
                      {"history_digest", vcs_->history_digest()}};
  plan.preconditions.push_back({"workspace_id", workspace_->workspace_id, "", Json::object(),
                                "the plan belongs to checkout " + workspace_->short_id() + "; this is {observed}"});
  plan.preconditions.push_back({"history_digest", plan.context["history_digest"], "", Json::object(),
                                "the repository's history changed since the drop plan was made"});
  plan.preconditions.push_back({"bookmark_head", bookmarks.at(b), "", Json{{"bookmark", b}},
                                "bookmark " + b + " moved since the drop plan was made (now {observed})"});
  plan.preconditions.push_back({"no_new_holders", Json(nullptr), "", Json{{"bookmark", b}},
                                "checkout(s) {observed} began working on " + b + " since the drop plan was made"});
  if (head)
    plan.preconditions.push_back({"vcs_head", *head, "", Json::object(),
                                  "the checkout moved since the drop plan was made (now at {observed})"});
  plan.preconditions.push_back({"workspace_bookmark", workspace_->bookmark ? Json(*workspace_->bookmark) : Json(nullptr),
                                "", Json::object(), "this checkout's bookmark changed since the drop plan was made (now {observed})"});

  if (here)
    plan.actions.push_back({"leave-bookmark", "", "", dest, "this checkout is on " + b + "; `new " + dest + "` first", Json::object()});
  for (const auto& c : commits) {
    vcs::HistoryQuery q;
    q.rev = c;
    q.limit = 1;
    auto info = vcs_->history(q);
    plan.actions.push_back({"abandon-commit", "", "", short12(c), info.empty() ? "" : info[0].summary, Json{{"commit", c}}});
  }
  plan.actions.push_back({"delete-bookmark", "", "", b, "the git branch", Json::object()});

  // The gc the drop runs, planned as if the commits were gone.
  GcScope scope;
  scope.exclude_commits.insert(commits.begin(), commits.end());
  scope.only_bookmark = b;
  scope.dropped_states = dropped_states(commits);
  if (here) scope.here_manifests = bookmarks.count(dest) ? manifests_at(dest) : std::map<std::string, model::ObjectManifest>{};
  GcOptions g;
  g.prune_bookmarks = true;
  g.force_prune = opt.force_prune;
  Plan preview = plan_gc(g, scope);
  for (const auto& a : preview.actions)
    if (a.op != "forget-working-ref") plan.actions.push_back(a);
  for (const auto& n : preview.notes) plan.notes.push_back(n);
  if (auto remotes = vcs_->remote_counterparts(b); !remotes.empty())
    plan.notes.push_back(join(remotes) + (commits.empty() ? " still reach its commits" : " also exist") +
                         "; `git push <remote> --delete " + b + "` removes them");
  if (preview.writes() > 0)
    plan.notes.push_back("store actions are what gc will plan once the commits are gone; they are re-planned at apply");
  if (auto u = preview.context.find("unreachable"); u != preview.context.end()) plan.context["unreachable"] = *u;
  return plan;
}

DropResult Repo::apply_drop(const Plan& plan) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  const std::string b = plan.context.at("bookmark").get<std::string>();
  const auto planned = plan.context.at("commits").get<std::vector<std::string>>();
  if (plan.context.value("workspace_id", std::string()) != workspace_->workspace_id)
    throw StalePlanError("the drop plan belongs to another checkout; re-run the plan");
  auto now = vcs_->exclusive_commits(b);
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
  const bool here = vcs_->current_bookmark() == b;
  const bool planned_here = plan.context["leave"].is_string();
  if (here != planned_here)
    throw StalePlanError(std::string("this checkout ") + (here ? "is on " + b + " now" : "is no longer on " + b) +
                         ", unlike when the drop plan was made; re-run the plan");

  DropResult res;
  res.plan = plan;
  res.bookmark = b;
  const std::string head = vcs_->bookmarks().at(b);
  // What the dropped commits pinned or recorded: their branches' heads are safe to delete.
  GcScope scope;
  scope.only_bookmark = b;
  scope.dropped_states = dropped_states(planned);

  OpLog oplog = op_log();
  std::string op_id = oplog.begin("drop", Json{{"vcs", vcs_position()}, {"workspace", model::workspace_to_toml(*workspace_)}});
  try {
    if (here) {
      std::string dest = plan.context["leave"].get<std::string>();
      NewOptions n;
      n.rev = dest;
      if (dest == config_.trunk() && !vcs_->bookmarks().count(dest)) n.bookmark = dest;
      op_parent_ = op_id;
      try {
        new_workspace(n);
      } catch (...) {
        op_parent_.reset();
        throw;
      }
      op_parent_.reset();
      res.left_for = dest;
      oplog.progress(op_id, Json{{"action", "leave-bookmark"}, {"target", dest}});
    }
    vcs_->delete_bookmark(b, head);
    res.abandoned = planned;
    oplog.progress(op_id, Json{{"action", "delete-bookmark"}, {"target", b}, {"commit", head}});
    reload();
    GcOptions g;
    g.prune_bookmarks = true;
    g.force_prune = plan.context.value("force_prune", false);
    Plan gc_plan = plan_gc(g, scope);
    std::erase_if(gc_plan.actions, [](const PlanAction& a) { return a.op == "forget-working-ref"; });
    res.gc = gc_plan.writes() > 0 || gc_plan.context.contains("unreachable") ? apply_gc(gc_plan, op_id) : GcReport{};
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

DropResult Repo::drop(const DropOptions& opt) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  // A saved plan is planned again from the bookmark and destination it records and must come
  // out the same: the commits, branches and pins it removes are then this checkout's.
  auto rederive = [&](const Plan& p) {
    check_preconditions(p);
    DropOptions again;
    again.bookmark = p.context.value("bookmark", std::string());
    if (auto l = p.context.find("leave"); l != p.context.end() && l->is_string()) again.to = l->get<std::string>();
    again.force_prune = p.context.value("force_prune", false);
    require_rederived(p, plan_drop(again));
  };
  return run_planned<DropResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_drop(opt); },
      [&](const Plan& p) { return apply_drop(p); });
}

// ---- forget-workspace ----------------------------------------------------------------------

Plan Repo::plan_forget_workspace(const ForgetWorkspaceOptions& opt) {
  std::string target = opt.workspace.value_or(workspace_->workspace_id);
  if (target.size() < 8) throw ConfigError("a workspace id has at least 8 characters (tether ops and status show them)");
  std::string id8 = target.substr(0, 8);
  Plan plan;
  plan.command = "forget-workspace";
  plan.created_at = now_iso_seconds();
  const bool current = id8 == workspace_->short_id();
  plan.context = Json{{"workspace", id8}, {"current", current}};

  std::optional<fs::path> dir, root;
  std::error_code ec;
  if (current) {
    dir = root_;
    root = vcs_->root();
  } else {
    for (const auto& r : vcs_->workspace_roots()) {
      fs::path d = vcs_->rel().empty() ? r : r / vcs_->rel();
      try {
        auto ws = model::read_workspace(model::tether_path(d, "workspace.toml"));
        if (ws && ws->short_id() == id8) {
          dir = d;
          root = r;
          break;
        }
      } catch (const std::exception&) {
      }
    }
  }
  if (!dir) {
    plan.notes.push_back("workspace " + id8 + ": no live checkout found");
  } else {
    plan.context["root"] = root->string();
    for (const char* name : {"workspace.toml", "ops.jsonl"}) {
      fs::path p = *dir / ".tether" / name;
      if (model::checkout_entry_exists(model::tether_path(*dir, name))) plan.actions.push_back({"delete-file", "", "", p.string(), "per-workspace state", Json::object()});
    }
    fs::path main_root = vcs_->workspace_roots().empty() ? fs::path() : vcs_->workspace_roots().front();
    bool is_main = fs::weakly_canonical(*root, ec) == fs::weakly_canonical(main_root, ec);
    std::string detail = is_main ? "git's main worktree stays; only tether's state of it goes"
                                 : "git worktree remove";
    if (current && !is_main) detail += "; this directory is then gone";
    plan.actions.push_back({"forget-vcs-workspace", "", "", root->string(), detail, Json{{"main", is_main}}});
  }
  plan.notes.push_back(
      "store branches belong to bookmarks, not workspaces: none are touched (delete the bookmark and `gc --prune-bookmarks`)");
  return plan;
}

ForgetWorkspaceResult Repo::apply_forget_workspace(const Plan& plan) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  ForgetWorkspaceResult res;
  res.plan = plan;
  res.workspace = plan.context.value("workspace", std::string());
  log_op("forget-workspace", Json{{"workspace", model::workspace_to_toml(*workspace_)}}, Json{{"workspace", res.workspace}});
  const bool current = plan.context.value("current", false);
  for (const auto& a : plan.actions) {
    try {
      if (a.op == "delete-file") {
        std::error_code ec;
        fs::remove(a.target, ec);
        if (ec) throw TetherError(ec.message());
        res.removed_files.push_back(a.target);
      } else if (a.op == "forget-vcs-workspace") {
        if (a.params.value("main", false)) continue;
        res.vcs = vcs_->forget_workspace(a.target);
      }
    } catch (const std::exception& e) {
      res.failed[a.op + " " + a.target] = e.what();
    }
  }
  if (current) *workspace_ = model::fresh_workspace();
  res.applied = true;
  return res;
}

ForgetWorkspaceResult Repo::forget_workspace(const ForgetWorkspaceOptions& opt) {
  auto lock_c = lock_checkout();
  auto lock_r = lock_repository();
  return run_planned<ForgetWorkspaceResult>(
      opt.saved, opt.dry_run,
      [&](const Plan& p) {
        // It deletes files and worktrees by path: the paths are planned again, never read from the file.
        vet_saved_plan(p);
        ForgetWorkspaceOptions again;
        again.workspace = p.context.value("workspace", std::string());
        require_rederived(p, plan_forget_workspace(again));
      },
      [&] { return plan_forget_workspace(opt); },
      [&](const Plan& p) { return apply_forget_workspace(p); });
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

Json DropResult::to_json() const {
  // Only an applied drop prints JSON, so gc's "dry_run" says nothing here: it is left out.
  Json report = gc ? gc->to_json() : Json(nullptr);
  if (report.is_object()) report.erase("dry_run");
  return Json{{"bookmark", bookmark},
              {"left_for", left_for ? Json(*left_for) : Json(nullptr)},
              {"abandoned", abandoned},
              {"gc", report}};
}

Json ForgetWorkspaceResult::to_json() const {
  return Json{{"workspace", workspace},
              {"removed_files", removed_files},
              {"vcs", vcs ? Json(*vcs) : Json(nullptr)},
              {"failed", failed}};
}

}  // namespace tether::engine
