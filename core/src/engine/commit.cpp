// core/src/engine/commit.cpp: plan and apply a commit (docs/ARCHITECTURE.md walks through it).
//
// Pins are cut before the VCS commit, so the commit only ever references refs that exist.
// If anything fails before the VCS commit lands, the pins this commit created are released
// and the manifests restored. A pin whose release also fails stays in the store under this
// dataset's namespace (`tether.<dataset>.*`), unreferenced by any commit: the op log records
// it (a `pin` progress line of a commit that ended `rolled_back`), and `gc` finds it by
// listing the namespace's pins against every commit's manifests.
#include <set>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
#include "tether/engine/commit.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/status.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

namespace {
// One failure is its own one-line message (`[key] ...`); several are folded into one line.
[[noreturn]] void throw_failures(const std::string& what, const std::vector<std::string>& errors) {
  if (errors.size() == 1) throw TetherError(errors.front());
  throw TetherError("cannot commit: " + std::to_string(errors.size()) + " objects " + what + " (" + join(errors, "; ") + ")");
}

// What a commit plan decided (its context): the message, the manifests and states it was made
// from, the checkout, and whether a pull made it (pulled objects move off their `at`) or it
// leaves the VCS alone (--no-vcs).
struct CommitPayload {
  std::string message, manifest_hash, workspace_id;
  std::map<std::string, Json> states;
  bool pull = false, no_vcs = false;

  Json to_json() const {
    Json states_j = Json::object();
    for (const auto& [k, v] : states) states_j[k] = v;
    return Json{{"message", message},           {"manifest_hash", manifest_hash}, {"states", states_j},
                {"workspace_id", workspace_id}, {"pull", pull},                   {"no_vcs", no_vcs}};
  }
  static CommitPayload from(const Plan& plan) {
    const ContextReader c{plan.context, "commit"};
    CommitPayload p;
    p.message = c.string("message");
    p.manifest_hash = c.string("manifest_hash");
    p.states = c.object("states");
    p.workspace_id = c.string("workspace_id");
    p.pull = c.boolean("pull");
    p.no_vcs = c.boolean("no_vcs");
    return p;
  }
};
}  // namespace

bool commit_plan_pulls(const Plan& plan) { return CommitPayload::from(plan).pull; }

CommitResult commit(Repo& repo, const CommitOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run && !opt.no_vcs) repo_lock = lock_repository(cx);
  if (opt.saved) {
    Plan saved = *opt.saved;
    if (!opt.message.empty()) {  // -m overrides the saved message
      CommitPayload payload = CommitPayload::from(saved);
      payload.message = opt.message;
      saved.context = payload.to_json();
    }
    CommitResult res = apply_commit(cx, saved, /*verify=*/true, "commit", opt.progress);
    return res;
  }
  std::vector<std::string> unchanged;
  Plan plan = plan_commit(cx, opt, std::nullopt, unchanged);
  if (opt.dry_run) {
    CommitResult res;
    res.plan = std::move(plan);
    res.unchanged = std::move(unchanged);
    return res;
  }
  return apply_commit(cx, plan, /*verify=*/false, "commit", opt.progress);
}

Plan plan_commit(Context& cx, const CommitOptions& opt, const std::optional<std::map<std::string, Json>>& fetched,
                 std::vector<std::string>& unchanged) {
  Plan plan;
  plan.command = "commit";
  plan.created_at = now_iso_seconds(cx);

  // 1. The states to record.
  auto moving = moving_keys(cx);
  std::map<std::string, Json> states;
  if (fetched) {
    states = *fetched;
  } else if (opt.no_snapshot) {
    for (const auto& [k, s] : cx.workspace->last_snapshot) states[k] = s;
  } else {
    auto snap = fingerprint_keys(cx, moving, /*upstream=*/false, opt.progress);
    if (!snap.errors.empty()) {
      std::vector<std::string> errors;
      for (const auto& [k, e] : snap.errors) errors.push_back(e);
      throw_failures("could not be fingerprinted", errors);
    }
    states = std::move(snap.states);
  }
  // 2. A store still being written to would be pinned mid-change (NEEDS_QUIESCENCE).
  if (!opt.force) {
    std::vector<std::string> busy;
    for (const auto& k : moving) {
      const auto& m = cx.manifests.at(k);
      if (!(cx.effective_capabilities(m) & sdk::kNeedsQuiescence)) continue;
      try {
        cx.backend(m.kind).check_quiescence(m.locator, working_ref(cx, k), k);
      } catch (const BackendError& e) {
        busy.push_back(e.what());
      }
    }
    if (!busy.empty()) throw_failures("are being written to", busy);
  }
  // Objects that do not move keep their committed state (a pull's fetched heads win).
  for (const auto& [k, m] : cx.manifests)
    if (m.state && std::find(moving.begin(), moving.end(), k) == moving.end() && (!fetched || !states.count(k)))
      states[k] = *m.state;

  std::string mhash = model::manifest_hash(cx.manifests);
  plan.context = CommitPayload{opt.message, mhash, cx.workspace->workspace_id, states, fetched.has_value(), opt.no_vcs}.to_json();
  std::string here = cx.workspace->bookmark ? *cx.workspace->bookmark : "no bookmark";
  plan.preconditions.push_back({"workspace_id", cx.workspace->workspace_id, "", Json::object(),
                                "this commit plan was made in another checkout; re-run the plan here"});
  plan.preconditions.push_back({"workspace_bookmark", cx.workspace->bookmark ? Json(*cx.workspace->bookmark) : Json(nullptr), "",
                                Json::object(),
                                "this commit plan was made on " + here + "; the checkout is on {observed} now; re-run the plan"});
  plan.preconditions.push_back({"manifest_hash", mhash, "", Json::object(), "manifests changed since the plan was made; re-run the plan"});

  // 2. Per object: unchanged, pin, or record.
  for (const auto& [key, m] : cx.manifests) {
    auto st = states.find(key);
    if (st == states.end()) {
      plan.notes.push_back(key + ": no fingerprint; skipped");
      continue;
    }
    auto& b = cx.backend(m.kind);
    uint32_t caps = cx.effective_capabilities(m);
    bool pinnable = caps & sdk::kPin;
    if (m.state && b.same(*m.state, st->second)) {
      if (m.pin.has_value() == pinnable) {
        plan.notes.push_back(key + ": unchanged");
        unchanged.push_back(key);
        continue;
      }
      plan.notes.push_back(key + ": policy changed; " + (pinnable ? "pin created" : "pin released"));
    } else if (fetched) {
      plan.notes.push_back(key + ": fetched " + model::short_state(st->second));
    }
    std::string tier = sdk::tier_name(caps);
    std::string shortst = model::short_state(st->second);
    if (tier == "observed") {
      if (opt.strict)
        throw UnpinnedStateError(model::py_repr(key) + " is Observed-tier and cannot be pinned; drop --strict to record it as not recoverable", key);
      plan.actions.push_back({PlanOp::Record, key, m.kind, "", "Observed: recorded, not recoverable",
                              Json{{"state", st->second}, {"recoverable", false}}});
    } else if (pinnable) {
      Json identity = b.identity(m.locator, key);
      std::string id = model::pin_id(cx.dataset_id, m.kind, identity, b.content_state(st->second));
      plan.actions.push_back({PlanOp::Pin, key, m.kind, model::pin_ref(id), "native ref at " + shortst,
                              Json{{"state", st->second}, {"pin_id", id}}});
    } else {
      std::string why = m.policy.pin == "record" ? "pin=record" : "Addressable";
      bool addressable = b.state_addressable(m.locator, st->second, key);
      std::string detail = why + ": state " + shortst + ", no native ref";
      if (!addressable) detail += "; recorded, not recoverable";
      plan.actions.push_back({PlanOp::Record, key, m.kind, "", detail, Json{{"state", st->second}, {"recoverable", addressable}}});
    }
  }
  if (!plan.actions.empty() && !opt.no_vcs)
    plan.actions.push_back({PlanOp::VcsCommit, "", "", "", cx.vcs->kind() + " commit: " + model::py_repr(opt.message), Json::object()});
  return plan;
}

// Applying a commit plan, stage by stage: check a saved plan against the stores, journal the
// start, cut and record the pins, write the manifests and listings, commit the VCS, then move
// the workspace onto the committed states and close the journal entry. Until the VCS commit
// lands, a failing stage rolls back what the earlier ones did (roll_back).
struct Committer {
  Context& cx;
  const Plan& plan;
  const bool verify;
  const std::string& op_name;
  const ProgressFn& progress;
  const CommitPayload ctx;
  CommitResult res;
  Json pre_objects = Json::object();  // key -> its manifest text before the commit (null: none)
  OpLog oplog;
  std::string op_id;
  std::vector<const PlanAction*> pin_actions;  // one per pin id
  std::vector<Outcome<sdk::Pin>> pinned;       // beside pin_actions
  std::map<std::string, sdk::Pin> cut;         // pin id -> pin
  std::vector<std::pair<const PlanAction*, sdk::Pin>> created;
  std::vector<std::string> written_listings;

  Committer(Context& r, const Plan& p, bool v, const std::string& op, const ProgressFn& pr)
      : cx(r), plan(p), verify(v), op_name(op), progress(pr), ctx(CommitPayload::from(p)), oplog(op_log(r)) {}

  CommitResult run() {
    res.plan = plan;
    if (verify) check_saved_plan();
    for (const auto& n : plan.notes)
      if (n.size() > 11 && n.compare(n.size() - 11, 11, ": unchanged") == 0) res.unchanged.push_back(n.substr(0, n.size() - 11));
    check_not_stale(cx);
    if (!ctx.no_vcs) check_on_bookmark(cx);
    if (!anything_to_do()) return std::move(res);  // no op logged

    // Journal first, so a crash leaves a record of what was started.
    begin_journal();
    try {
      cut_pins();
      record_pins();
      write_manifests();
      oplog.progress(op_id, Json{{"action", "manifests"}});
      commit_vcs();
    } catch (const std::exception& e) {
      roll_back(e.what());
      reload(cx);
      throw;
    }
    reload(cx);
    update_workspace();
    end_journal();
    res.applied = true;
    return std::move(res);
  }

  // A saved plan: its preconditions hold and the planned states are still what the systems hold.
  void check_saved_plan() {
    check_preconditions(cx, plan);
    std::vector<std::string> keys;
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      if (!cx.manifests.count(a.key)) throw StalePlanError(model::py_repr(a.key) + " is no longer registered; re-run the plan");
      keys.push_back(a.key);
    }
    auto moving = moving_keys(cx);
    std::vector<std::string> live;
    for (const auto& k : keys)
      if (std::find(moving.begin(), moving.end(), k) != moving.end()) live.push_back(k);
    auto snap = fingerprint_keys(cx, live, /*upstream=*/false, progress);
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      auto it = snap.states.find(a.key);
      if (it == snap.states.end()) {
        if (auto e = snap.errors.find(a.key); e != snap.errors.end()) throw TetherError(e->second);
        // Not moving: tether records its committed state (a policy change), nothing the file says.
        const auto& m = cx.manifests.at(a.key);
        if (!ctx.pull && (!m.state || !cx.backend(m.kind).same(*m.state, a.params["state"])))
          throw StalePlanError("the saved commit plan records " + model::py_repr(a.key) + " at " +
                               model::short_state(a.params["state"]) + ", which is neither its committed state nor what "
                               "its store holds; re-run the plan");
        continue;
      }
      if (!cx.backend(a.kind).same(it->second, a.params["state"]))
        throw StalePlanError(model::py_repr(a.key) + " changed since the plan was made (" + model::short_state(a.params["state"]) +
                             " -> " + model::short_state(it->second) + "); re-run the plan");
    }
  }

  // An object action, or manifests the VCS would commit.
  bool anything_to_do() {
    const std::vector<std::string> paths = vcs_paths(cx);
    bool manifests_dirty = !ctx.no_vcs && cx.vcs->is_dirty(paths);
    bool object_actions = false;
    for (const auto& a : plan.actions)
      if (a.op != PlanOp::VcsCommit) object_actions = true;
    return object_actions || manifests_dirty;
  }

  // The op-log entry, with what a rollback or undo restores: the VCS position, the manifests
  // the plan touches, the workspace.
  void begin_journal() {
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      auto text = model::read_checkout_file(model::manifest_path(objects_dir(cx), a.key));
      pre_objects[a.key] = text ? Json(*text) : Json(nullptr);
    }
    Json pre{{"vcs", vcs_position(cx)},
             {"objects", pre_objects},
             {"workspace", model::workspace_to_toml(*cx.workspace)}};
    op_id = oplog.begin(op_name, pre);
  }

  // Pins: one per pin id (two objects with one identity and state share it), concurrently.
  void cut_pins() {
    std::set<std::string> seen;
    for (const auto& a : plan.actions)
      if (a.op == PlanOp::Pin && seen.insert(a.params["pin_id"].get<std::string>()).second) pin_actions.push_back(&a);
    pinned = fan_out<sdk::Pin>(pin_actions.size(), [&](std::size_t i) {
      const PlanAction& a = *pin_actions[i];
      const auto& m = cx.manifests.at(a.key);
      return cx.backend(a.kind).pin(m.locator, a.params["state"], a.params["pin_id"].get<std::string>(), a.key);
    });
  }

  // Each pin cut: claimed in the pinned index when this commit created it, and journaled.
  // Any failure fails the commit (after every pin is accounted for, so rollback sees them all).
  void record_pins() {
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < pin_actions.size(); ++i) {
      const PlanAction& a = *pin_actions[i];
      if (pinned[i].ok()) {
        const sdk::Pin& p = *pinned[i].value;
        cut[a.params["pin_id"].get<std::string>()] = p;
        record_touched(cx, a.key, a.kind, cx.manifests.at(a.key).locator);
        if (p.created) {
          created.emplace_back(&a, p);
          if (auto err = pin_index(cx).claim(cx.dataset_id, a.kind, p.id); err && res.warnings.empty())
            res.warnings.push_back("could not record " + a.key + "'s pin in the pinned index (gc will treat it as another "
                                   "clone's): " + *err);
        }
        oplog.progress(op_id, Json{{"action", "pin"}, {"key", a.key}, {"ref", p.ref}, {"created", p.created}});
        continue;
      }
      failures.push_back(pinned[i].keyed(a.key));
    }
    if (!failures.empty()) throw_failures("could not be pinned", failures);
  }

  // Each object's manifest at its new state (and pin), and its listing when the backend diffs.
  void write_manifests() {
    for (const auto& a : plan.actions) {
      if (a.op == PlanOp::VcsCommit) continue;
      const auto& m = cx.manifests.at(a.key);
      Json state = a.params["state"];
      std::optional<sdk::Pin> pin;
      bool recoverable = true;
      if (a.op == PlanOp::Pin) {
        pin = cut.at(a.params["pin_id"].get<std::string>());
        res.pinned[a.key] = pin->ref;
      } else {
        recoverable = a.params.value("recoverable", true);
        if (recoverable) res.pinned[a.key] = std::nullopt;
        else res.unrecoverable.push_back(a.key);
      }
      auto updated = m.with_pin(state, pin, recoverable, now_iso(cx));
      if (ctx.pull) updated.locator.erase("at");  // pulled to the branch head
      if (auto name = write_listing(cx, m, state)) written_listings.push_back(*name);
      model::write_manifest(objects_dir(cx), updated);
    }
  }

  void commit_vcs() {
    if (ctx.no_vcs) return;
    res.vcs_commit = cx.vcs->commit(vcs_paths(cx), ctx.message);
    if (res.vcs_commit) oplog.progress(op_id, Json{{"action", "vcs-commit"}, {"commit", *res.vcs_commit}});
  }

  // A stage before the VCS commit failed: release the pins this commit created, restore the
  // manifests, remove the listings it wrote, and end the entry as rolled back.
  void roll_back(const std::string& why) {
    std::set<std::string> released;
    for (auto& [a, pin] : created) {
      try {
        cx.backend(a->kind).unpin(cx.manifests.at(a->key).locator, pin, a->key);
        released.insert(pin.id);
      } catch (const std::exception&) {
        // Left for gc: the op log names it, the pinned index claims it, no commit references it.
      }
    }
    try {
      pin_index(cx).release(released);
    } catch (const std::exception&) {
      // A stale claim only lets gc release a pin nothing references.
    }
    for (auto& [key, text] : pre_objects.items()) {
      if (text.is_null()) model::remove_manifest(objects_dir(cx), key);
      else model::write_checkout_file(model::manifest_path(objects_dir(cx), key), text.get<std::string>());
    }
    for (const auto& l : written_listings) model::remove_checkout_file(tether_dir(cx) / "listings" / l);
    if (!written_listings.empty())
      model::remove_empty_checkout_dirs(tether_dir(cx) / "listings", tether_dir(cx).rel);  // only if now empty
    oplog.end(op_id, Json{{"failed", why}, {"rolled_back", true}});
  }

  // The workspace: committed states become the base of their working refs.
  void update_workspace() {
    auto& ws = *cx.workspace;
    for (const auto& a : plan.actions) {
      if (a.op == PlanOp::VcsCommit) continue;
      if (ws.working_refs.count(a.key) || ws.pending_forks.count(a.key)) ws.base_states[a.key] = a.params["state"];
      ws.set_snapshot(a.key, a.params["state"]);
    }
    ws.last_snapshot_at = now_iso(cx);
    write_workspace(cx);
  }

  void end_journal() {
    Json pinned_ids = Json::object();
    for (const auto& a : plan.actions)
      if (!a.key.empty()) pinned_ids[a.key] = a.op == PlanOp::Pin ? a.params["pin_id"] : Json(nullptr);
    oplog.end(op_id, Json{{"vcs_commit", res.vcs_commit ? Json(*res.vcs_commit) : Json(nullptr)},
                          {"pinned", pinned_ids},
                          {"unrecoverable", res.unrecoverable}});
  }
};

CommitResult apply_commit(Context& cx, const Plan& plan, bool verify, const std::string& op_name, const ProgressFn& progress) {
  return Committer(cx, plan, verify, op_name, progress).run();
}

Json CommitResult::to_json() const {
  Json pins = Json::object();
  for (const auto& [k, v] : pinned) pins[k] = v ? Json(*v) : Json(nullptr);
  return Json{{"vcs_commit", vcs_commit ? Json(*vcs_commit) : Json(nullptr)},
              {"pinned", pins},
              {"unrecoverable", unrecoverable},
              {"unchanged", unchanged}};
}

// What `tether ops` says of a commit (ops.cpp's table).
std::string summarize_commit(const OpEntry& e) {
  const Json& r = e.result;
  if (r.contains("failed")) return "failed" + std::string(bool_of(r, "rolled_back") ? ", rolled back" : "") + ": " +
                                   str_of(r, "failed");
  std::vector<std::string> pinned, recorded, parts;
  if (auto p = r.find("pinned"); p != r.end() && p->is_object())
    for (const auto& [k, v] : p->items()) (v.is_null() ? recorded : pinned).push_back(k);
  if (!pinned.empty()) parts.push_back("pinned " + join(pinned));
  if (!recorded.empty()) parts.push_back("recorded " + join(recorded));
  std::string c = str_of(r, "vcs_commit");
  if (!c.empty()) parts.push_back("vcs " + c.substr(0, 12));
  return parts.empty() ? "nothing changed" : join(parts, "; ");
}

// ---- undoing a commit or a pull (undo.cpp runs it; engine/undoer.hpp) ----

void undo_commit(Undoer& u) {
  const Json& r = u.target.result;
  if (bool_of(r, "rolled_back")) {
    u.skipped.push_back("the commit was rolled back when it failed; nothing to undo");
    return;
  }
  std::string c = str_of(r, "vcs_commit");
  if (c.empty()) {  // --no-vcs (or a commit that made none): the manifests and workspace come back
    u.restore_manifests();
    u.restore_workspace();
    if (u.restored.empty()) u.skipped.push_back("no VCS commit and no manifest to restore");
    return;
  }
  if (!u.cx.vcs->uncommit(c)) {
    u.irreversible.push_back("commit " + c.substr(0, 12) +
                           " is no longer the working copy's parent; uncommit it with jj/git first");
    return;
  }
  u.restored.push_back("uncommitted " + c.substr(0, 12) + "; its manifests are working-tree changes again (pins kept)");
}
void plan_undo_commit(Undoer& u) {
  const Json& r = u.target.result;
  if (bool_of(r, "rolled_back")) {
    u.note("the commit was rolled back when it failed; nothing to undo");
    return;
  }
  std::string c = str_of(r, "vcs_commit");
  if (c.empty()) {
    u.plan_manifests();
    u.plan_workspace();
    if (u.plan->actions.empty()) u.note("no VCS commit and no manifest to restore");
    return;
  }
  u.act(PlanOp::Uncommit, "", "", c.substr(0, 12), "its manifests become working-tree changes again (pins kept)",
      Json{{"commit", c}});
  if (u.cx.vcs->head() != c)
    u.note("commit " + c.substr(0, 12) + " is no longer the working copy's parent; uncommit it with jj/git first");
}

}  // namespace tether::engine
