// core/src/engine/repair.cpp: `tether repair` (docs/cli.md), a planned command. It
// recreates what the manifests promise and the stores lost: a pin that went missing is cut
// again at the recorded state (`repin`), a working branch of this checkout that disappeared
// is forked again from the manifest (`refork`), a promote a kill interrupted is finished from
// its journaled plan (`finish-promote`). A pin that drifted (names another state) is only
// reported: overwriting it could destroy what someone else pinned. Other operations that
// never finished are reported as notes, with what they had done.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/promote.hpp"
#include "tether/engine/repair.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

static RepairResult apply_repair(Context& cx, const Plan& plan);
static Plan plan_repair(Context& cx, const RepairOptions& opt);

namespace {

// What an interrupted operation had done, from its progress records
// (docs/FORMAT.md#the-op-log).
std::string incomplete_note(const OpEntry& e) {
  std::vector<std::string> done;
  for (const auto& p : e.progress) {
    std::string item = str_of(p, "action");
    if (item == "landing" || item == "rewinding" || item == "trunk-landing") continue;  // intents, not results
    if (item.empty()) item = "?";
    for (const char* k : {"key", "target", "ref", "commit"})
      if (auto it = p.find(k); it != p.end() && it->is_string()) {
        item += " " + it->get<std::string>();
        break;
      }
    done.push_back(item);
  }
  std::string s = "operation " + e.id + " (" + e.command + ", " + e.at + ") never finished; ";
  s += done.empty() ? "no action had completed" : "done before it stopped: " + join(done);
  if (e.plan.is_object())
    if (auto a = e.plan.find("actions"); a != e.plan.end() && a->is_array())
      s += " (of " + std::to_string(a->size()) + " planned)";
  return s + "; re-running the command finishes what is left (creating an absent ref from a pinned state is "
             "idempotent; a reset needs the head reviewed again), pins it created and no commit names are released "
             "by `gc`, branches it made are judged by `gc --prune-bookmarks`";
}

// What a repair plan decided (its context): the checkout it was made in and --all-history.
struct RepairPayload {
  std::string workspace_id;
  bool all_history = false;

  Json to_json() const { return Json{{"workspace_id", workspace_id}, {"all_history", all_history}}; }
  static RepairPayload from(const Plan& plan) {
    const ContextReader c{plan.context, "repair"};
    return RepairPayload{c.string("workspace_id"), c.boolean("all_history")};
  }
};

}  // namespace

RepairResult repair(Repo& repo, const RepairOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run) repo_lock = lock_repository(cx);
  RepairResult r = run_planned<RepairResult>(
      opt.saved, opt.dry_run,
      [&](const Plan& p) {
        check_preconditions(cx, p);
        // Planned again: the locators, states and pin ids it repins are then the manifests'.
        RepairOptions again;
        again.all_history = RepairPayload::from(p).all_history;
        require_rederived(p, plan_repair(cx, again));
      },
      [&] { return plan_repair(cx, opt); },
      [&](const Plan& p) { return apply_repair(cx, p); });
  r.notes = r.plan.notes;
  return r;
}

static Plan plan_repair(Context& cx, const RepairOptions& opt) {
  Plan plan;
  plan.command = "repair";
  plan.created_at = now_iso_seconds(cx);
  plan.context = RepairPayload{cx.workspace->workspace_id, opt.all_history}.to_json();
  plan.preconditions.push_back({"workspace_id", cx.workspace->workspace_id, "", Json::object(),
                                "this repair plan was made in another checkout; re-run the plan here"});
  plan.preconditions.push_back({"history_digest", cx.vcs->history_digest(), "", Json::object(),
                                "VCS history changed since the plan was made; re-run the plan"});

  // An interrupted promote journaled its whole plan: repair finishes it (rolls it forward),
  // so the bookmark ends landed whole; `tether undo` reverses it instead. Other interrupted
  // operations are reported.
  for (const auto& e : read_ops(cx)) {
    if (!e.incomplete() || e.undone_by.is_string()) continue;
    if (e.command == "promote" && e.pre.contains("plan") && e.pre["plan"].is_object()) {
      std::size_t moves = 0;
      if (auto acts = e.pre["plan"].find("actions"); acts != e.pre["plan"].end() && acts->is_array())
        for (const auto& a : *acts)
          if (auto op = parse_plan_op(str_of(a, "op")); op == PlanOp::FastForward || op == PlanOp::Merge) ++moves;
      plan.actions.push_back({PlanOp::FinishPromote, "", "", e.id,
                              "promote " + e.id + " (" + e.at + ") was interrupted; land what it had not of its " +
                                  std::to_string(moves) + " move(s) and settle the rest (`tether undo " + e.id +
                                  "` reverses it instead)",
                              Json{{"op", e.id}}});
      continue;
    }
    plan.notes.push_back(incomplete_note(e));
  }

  // Pins the manifests name: the working tree's, then (--all-history) every commit's.
  struct Target {
    std::string label;
    model::ObjectManifest m;
  };
  std::vector<Target> targets;
  std::set<std::string> seen;  // kind:pin_id
  auto consider = [&](const std::string& label, const model::ObjectManifest& m) {
    if (!m.pin || !m.state) return;
    if (seen.insert(m.kind + ":" + m.pin->id).second) targets.push_back({label, m});
  };
  for (const auto& [key, m] : cx.manifests) consider(key, m);
  if (opt.all_history) {
    vcs::HistoryQuery q;
    q.all = true;
    const std::string dir = vcs_path(cx, ".tether/objects");
    for (const auto& c : cx.vcs->history(q))
      for (const auto& [key, m] : parse_manifest_files(*cx.vcs->manifests_at(c.id, dir), c.id))
        consider(key + "@" + c.id.substr(0, 12), m);
  }
  auto reports = fan_out<sdk::VerifyReport>(targets.size(), [&](std::size_t i) {
    const auto& m = targets[i].m;
    return cx.backend(m.kind).verify(m.locator, *m.state, m.pin, false, m.key);
  });
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& [label, m] = targets[i];
    if (!reports[i].ok()) {
      plan.notes.push_back(label + ": could not verify (" + reports[i].message() + ")");
      continue;
    }
    const auto& rep = *reports[i].value;
    if (rep.status == sdk::VerifyStatus::Missing)
      plan.actions.push_back({PlanOp::Repin, label, m.kind, m.pin->ref,
                              "pin missing (" + rep.message + "); recreate at " + model::short_state(*m.state),
                              Json{{"locator", m.locator}, {"state", *m.state}, {"pin_id", m.pin->id}, {"key", m.key}}});
    else if (rep.status == sdk::VerifyStatus::Drifted)
      plan.notes.push_back(label + ": pin drifted, not touched (" + rep.message + ")");
  }

  // Working branches this checkout records that the store no longer has.
  if (!on_trunk(cx)) {
    for (const auto& [key, ref] : cx.workspace->working_refs) {
      auto it = cx.manifests.find(key);
      if (it == cx.manifests.end() || !it->second.state) continue;
      const auto& m = it->second;
      try {
        if (!(cx.effective_capabilities(m) & sdk::kFork)) continue;
        auto& be = cx.backend(m.kind);
        if (ref == be.base_branch(m.locator, key)) continue;
        auto refs = be.list_working_refs(m.locator, key);
        if (std::find(refs.begin(), refs.end(), ref) != refs.end()) continue;
        std::string from = m.pin ? "pin " + m.pin->ref : model::short_state(*m.state);
        plan.actions.push_back({PlanOp::Refork, key, m.kind, ref, "working branch missing; recreate from the manifest (" + from + ")",
                                Json{{"locator", m.locator}}});
        plan.preconditions.push_back({"ref_absent", nullptr, key, Json{{"ref", ref}, {"locator", m.locator}},
                                      ref + " exists again since the plan was made; re-run the plan"});
      } catch (const std::exception& e) {
        plan.notes.push_back(key + ": could not list working branches (" + std::string(e.what()) + ")");
      }
    }
  }
  if (plan.actions.empty()) plan.notes.push_back("nothing to repair");
  return plan;
}

static RepairResult apply_repair(Context& cx, const Plan& plan) {
  RepairResult res;
  res.plan = plan;
  res.applied = true;
  if (plan.writes() == 0) return res;
  OpLog oplog = op_log(cx);
  std::string op_id = oplog.begin("repair", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}});

  std::vector<const PlanAction*> repins, reforks, finishes;
  for (const auto& a : plan.actions) (a.op == PlanOp::Repin ? repins : a.op == PlanOp::FinishPromote ? finishes : reforks).push_back(&a);
  // Interrupted promotes first: a refork below must not race a base that is still moving.
  for (const auto* a : finishes) {
    try {
      const auto entries = op_log(cx).read();
      auto it = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return e.id == a->target; });
      if (it == entries.end() || !it->incomplete() || it->undone_by.is_string())
        throw StalePlanError("promote " + a->target + " is no longer interrupted; re-run the plan");
      Plan journaled = plan_from_json(it->pre["plan"], "promote", {}, "the journal of promote " + a->target);
      PromoteReport r = apply_promote(cx, journaled, &*it);
      std::vector<std::string> parts;
      std::vector<std::string> moved;
      for (const auto* t : {&r.fast_forwarded, &r.merged})
        for (const auto& [k, st] : *t) moved.push_back(k);
      parts.push_back(moved.empty() ? "nothing landed" : "landed " + join(moved));
      if (r.trunk_moved) parts.push_back(cx.config.trunk() + " -> " + r.trunk_moved->substr(0, 12));
      if (r.trunk_held) parts.push_back(cx.config.trunk() + " not moved: " + *r.trunk_held);
      for (const auto& [k, why] : r.failed) res.failed["finish-promote " + a->target + " " + k] = why;
      res.finished[a->target] = join(parts, "; ");
      oplog.progress(op_id, Json{{"action", "finish-promote"}, {"target", a->target}});
    } catch (const std::exception& e) {
      const auto* be = dynamic_cast<const BackendError*>(&e);
      res.failed["finish-promote " + a->target] = be ? be->bare_message() : std::string(e.what());
    }
  }
  auto pinned = fan_out<sdk::Pin>(repins.size(), [&](std::size_t i) {
    const PlanAction& a = *repins[i];
    return cx.backend(a.kind).pin(a.params["locator"], a.params["state"], a.params["pin_id"].get<std::string>(),
                               a.params.value("key", a.key));
  });
  for (std::size_t i = 0; i < repins.size(); ++i) {
    const PlanAction& a = *repins[i];
    if (!pinned[i].ok()) {
      res.failed["repin " + a.target] = pinned[i].message();
      continue;
    }
    const sdk::Pin& p = *pinned[i].value;
    if (p.created) pin_index(cx).claim(cx.dataset_id, a.kind, p.id);  // best effort, as commit
    record_touched(cx, a.params.value("key", a.key), a.kind, a.params["locator"]);
    res.repinned[a.key] = p.ref;
    oplog.progress(op_id, Json{{"action", "repin"}, {"key", a.key}, {"ref", p.ref}});
  }
  // After the repins: a refork starts from the pin they may just have recreated.
  model::Workspace& ws = *cx.workspace;
  for (const auto* a : reforks) {
    try {
      auto it = cx.manifests.find(a->key);
      if (it == cx.manifests.end() || !it->second.state)
        throw TetherError(a->key + " is no longer registered with a committed state");
      const auto& m = it->second;
      std::string ref = cx.backend(m.kind).fork(m.locator, checked_source(cx, m), a->target, sdk::Expected::absent(), a->key);
      record_touched(cx, a->key, m.kind, m.locator);
      ws.working_refs[a->key] = ref;
      ws.fork_points[a->key] = *m.state;
      ws.base_states[a->key] = *m.state;
      ws.set_snapshot(a->key, *m.state);
      res.reforked[a->key] = ref;
      oplog.progress(op_id, Json{{"action", "refork"}, {"key", a->key}, {"ref", ref}});
    } catch (const std::exception& e) {
      const auto* be = dynamic_cast<const BackendError*>(&e);
      res.failed["refork " + a->target] = be ? be->bare_message() : std::string(e.what());
    }
  }
  if (!res.reforked.empty()) write_workspace(cx);
  oplog.end(op_id, Json{{"repinned", res.repinned},
                        {"reforked", res.reforked},
                        {"finished", res.finished},
                        {"failed", res.failed},
                        {"notes", plan.notes}});
  return res;
}

Json RepairResult::to_json() const {
  return Json{{"repinned", repinned}, {"reforked", reforked}, {"finished", finished}, {"failed", failed}, {"notes", notes}};
}

// What `tether ops` says of a repair (ops.cpp's table).
std::string summarize_repair(const OpEntry& e) {
  return "repinned " + std::to_string(count_of(e.result, "repinned")) + ", reforked " +
         std::to_string(count_of(e.result, "reforked"));
}

}  // namespace tether::engine
