// core/src/engine/forget_workspace.cpp: `tether forget-workspace` (docs/cli.md#forget-workspace):
// remove a checkout's tether state (and a linked git worktree); store branches stay.
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

// What a forget-workspace plan decided (its context): the workspace, whether it is this
// checkout, and the root of its live checkout when one was found.
struct ForgetWorkspacePayload {
  std::string workspace;  // id8
  bool current = false;
  std::optional<std::string> root;

  Json to_json() const {
    Json j{{"workspace", workspace}, {"current", current}};
    if (root) j["root"] = *root;
    return j;
  }
  static ForgetWorkspacePayload from(const Plan& plan) {
    const ContextReader r{plan.context, "forget-workspace"};
    ForgetWorkspacePayload p;
    p.workspace = r.string("workspace");
    p.current = r.boolean("current");
    if (r.find("root")) p.root = r.string("root");
    return p;
  }
};

}  // namespace

static ForgetWorkspaceResult apply_forget_workspace(Context& cx, const Plan& plan);
static Plan plan_forget_workspace(Context& cx, const ForgetWorkspaceOptions& opt);

// ---- forget-workspace ----------------------------------------------------------------------

static Plan plan_forget_workspace(Context& cx, const ForgetWorkspaceOptions& opt) {
  std::string target = opt.workspace.value_or(cx.workspace->workspace_id);
  if (target.size() < 8) throw ConfigError("a workspace id has at least 8 characters (tether ops and status show them)");
  std::string id8 = target.substr(0, 8);
  Plan plan;
  plan.command = "forget-workspace";
  plan.created_at = now_iso_seconds(cx);
  const bool current = id8 == cx.workspace->short_id();
  ForgetWorkspacePayload payload;
  payload.workspace = id8;
  payload.current = current;

  std::optional<fs::path> dir, root;
  std::error_code ec;
  if (current) {
    dir = cx.root;
    root = cx.vcs->root();
  } else {
    for (const auto& r : cx.vcs->workspace_roots()) {
      fs::path d = cx.vcs->rel().empty() ? r : r / cx.vcs->rel();
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
    payload.root = root->string();
    for (const char* name : {"workspace.toml", "ops.jsonl"}) {
      fs::path p = *dir / ".tether" / name;
      if (model::checkout_entry_exists(model::tether_path(*dir, name))) plan.actions.push_back({PlanOp::DeleteFile, "", "", p.string(), "per-workspace state", Json::object()});
    }
    fs::path main_root = cx.vcs->workspace_roots().empty() ? fs::path() : cx.vcs->workspace_roots().front();
    bool is_main = fs::weakly_canonical(*root, ec) == fs::weakly_canonical(main_root, ec);
    std::string detail = is_main ? "git's main worktree stays; only tether's state of it goes"
                                 : "git worktree remove";
    if (current && !is_main) detail += "; this directory is then gone";
    plan.actions.push_back({PlanOp::ForgetVcsWorkspace, "", "", root->string(), detail, Json{{"main", is_main}}});
  }
  plan.notes.push_back(
      "store branches belong to bookmarks, not workspaces: none are touched (delete the bookmark and `gc --prune-bookmarks`)");
  plan.context = payload.to_json();
  return plan;
}

static ForgetWorkspaceResult apply_forget_workspace(Context& cx, const Plan& plan) {
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  ForgetWorkspaceResult res;
  res.plan = plan;
  const ForgetWorkspacePayload ctx = ForgetWorkspacePayload::from(plan);
  res.workspace = ctx.workspace;
  log_op(cx, "forget-workspace", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}}, Json{{"workspace", res.workspace}});
  for (const auto& a : plan.actions) {
    try {
      if (a.op == PlanOp::DeleteFile) {
        std::error_code ec;
        fs::remove(a.target, ec);
        if (ec) throw TetherError(ec.message());
        res.removed_files.push_back(a.target);
      } else if (a.op == PlanOp::ForgetVcsWorkspace) {
        if (a.params.value("main", false)) continue;
        res.vcs = cx.vcs->forget_workspace(a.target);
      }
    } catch (const std::exception& e) {
      res.failed[std::string(op_name(a.op)) + " " + a.target] = e.what();
    }
  }
  if (ctx.current) *cx.workspace = model::fresh_workspace();
  res.applied = true;
  return res;
}

ForgetWorkspaceResult forget_workspace(Repo& repo, const ForgetWorkspaceOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  return run_planned<ForgetWorkspaceResult>(
      opt.saved, opt.dry_run,
      [&](const Plan& p) {
        // It deletes files and worktrees by path: the paths are planned again, never read from the file.
        const ForgetWorkspacePayload ctx = ForgetWorkspacePayload::from(p);
        vet_saved_plan(cx, p);
        ForgetWorkspaceOptions again;
        again.workspace = ctx.workspace;
        require_rederived(p, plan_forget_workspace(cx, again));
      },
      [&] { return plan_forget_workspace(cx, opt); },
      [&](const Plan& p) { return apply_forget_workspace(cx, p); });
}

Json ForgetWorkspaceResult::to_json() const {
  return Json{{"workspace", workspace},
              {"removed_files", removed_files},
              {"vcs", vcs ? Json(*vcs) : Json(nullptr)},
              {"failed", failed}};
}

// What `tether ops` says of a forget-workspace (ops.cpp's table).
std::string summarize_forget_workspace(const OpEntry& e) {
  std::string id = str_of(e.result, "workspace_id");
  if (id.empty()) id = str_of(e.result, "workspace");
  return "forgot workspace " + id.substr(0, 8);
}

}  // namespace tether::engine
