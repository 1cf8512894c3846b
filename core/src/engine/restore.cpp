// core/src/engine/restore.cpp: `tether restore` (docs/cli.md#restore): reset working branches onto
// the states an older revision recorded, planned key by key.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/commit.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/pull.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/restore.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

static RestoreResult apply_restore(Context& cx, const Plan& plan);
static Plan plan_restore(Context& cx, const RestoreOptions& opt);

namespace {
// What a restore plan decided (its context): the revision as given and the commit it
// resolved to, --discard, and the manifests and checkout it was made against.
struct RestorePayload {
  std::string from_rev, from_commit, manifest_hash, workspace_id;
  bool discard = false;

  Json to_json() const {
    return Json{{"from_rev", from_rev},           {"from_commit", from_commit}, {"discard", discard},
                {"manifest_hash", manifest_hash}, {"workspace_id", workspace_id}};
  }
  static RestorePayload from(const Plan& plan) {
    const ContextReader c{plan.context, "restore"};
    RestorePayload p;
    p.from_rev = c.string("from_rev");
    p.from_commit = c.string("from_commit");
    p.discard = c.boolean("discard");
    p.manifest_hash = c.string("manifest_hash");
    p.workspace_id = c.string("workspace_id");
    return p;
  }
};
}  // namespace

// ---- restore -----------------------------------------------------------------------------------

RestoreResult restore(Repo& repo, const RestoreOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run) repo_lock = lock_repository(cx);
  // A saved plan is planned again (same commit, same keys) and must come out the same: the
  // manifests, pins and states it restores from are then that commit's, not the file's.
  auto rederive = [&](const Plan& p) {
    check_preconditions(cx, p);
    const RestorePayload ctx = RestorePayload::from(p);
    RestoreOptions again;
    again.from = ctx.from_commit;
    again.discard = ctx.discard;
    for (const auto& a : p.actions)
      if (!a.key.empty() && std::find(again.keys.begin(), again.keys.end(), a.key) == again.keys.end())
        again.keys.push_back(a.key);
    if (again.from.empty()) throw StalePlanError("the saved restore plan names no commit; re-run the plan");
    require_rederived(p, plan_restore(cx, again));
  };
  RestoreResult r = run_planned<RestoreResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_restore(cx, opt); },
      [&](const Plan& p) { return apply_restore(cx, p); });
  if (r.from.empty()) r.from = RestorePayload::from(r.plan).from_rev;
  return r;
}

// Planning a restore, stage by stage: the revision and the plan's preconditions, then per
// named key whether it can be restored at all, which branch it writes through, whether that
// branch is shared with keys not named or with a named key restoring another state, and the
// fork (or reset, checked for writes) onto what the revision recorded.
struct RestorePlanner {
  Context& cx;
  const RestoreOptions& opt;
  Plan plan;
  std::map<std::string, model::ObjectManifest> then;  // the manifests at --from
  std::set<std::string> named;
  std::map<std::string, std::string> first_of_ref;  // ref -> first named key restoring it

  RestorePlanner(Context& r, const RestoreOptions& o) : cx(r), opt(o) {}

  Plan run() {
    begin_plan();
    std::vector<std::string> keys = opt.keys;
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    named = std::set<std::string>(keys.begin(), keys.end());
    for (const auto& key : keys) plan_key(key);
    return std::move(plan);
  }

  void begin_plan() {
    const auto& ws = *cx.workspace;
    plan.command = "restore";
    plan.created_at = now_iso_seconds(cx);
    std::string commit = cx.vcs->resolve(opt.from);
    then = manifests_at(cx, commit);
    std::string mhash = model::manifest_hash(cx.manifests);
    plan.context = RestorePayload{opt.from, commit, mhash, ws.workspace_id, opt.discard}.to_json();
    plan.preconditions.push_back({"manifest_hash", mhash, "", Json::object(), "manifests changed since the plan was made; re-run the plan"});
    plan.preconditions.push_back({"workspace_id", ws.workspace_id, "", Json::object(),
                                  "this restore plan was made in another checkout; re-run the plan here"});
    plan.preconditions.push_back({"workspace_bookmark", ws.bookmark ? Json(*ws.bookmark) : Json(nullptr), "",
                                  Json::object(), "this restore plan was made on " + ws.bookmark.value_or("no bookmark") + "; the checkout is on {observed} now; re-run the plan"});
  }

  void refuse(const std::string& key, const model::ObjectManifest& m, const std::string& why) {
    plan.actions.push_back({PlanOp::Refuse, key, m.kind, "", why});
  }

  void plan_key(const std::string& key) {
    auto cur = cx.manifests.find(key);
    if (cur == cx.manifests.end()) throw ConfigError("no such object: " + key);
    const auto& m = cur->second;
    auto t = then.find(key);
    if (t == then.end()) return refuse(key, m, "not registered at " + opt.from);
    const auto& was = t->second;
    uint32_t caps = cx.effective_capabilities(m);
    if (auto why = unrestorable(was, caps)) return refuse(key, m, *why);
    const std::string target = branch_of(key);
    if (auto why = shared_with_unnamed(key, m, target)) return refuse(key, m, *why);
    auto& b = cx.backend(m.kind);
    std::string from_label = was.pin ? was.pin->ref : model::short_state(*was.state);
    if (auto f = first_of_ref.find(target); f != first_of_ref.end()) {
      const auto& first_then = then.at(f->second);
      if (!b.same(*first_then.state, *was.state))
        return refuse(key, m, "shares " + target + " with '" + f->second + "' but pins a different state of it at " + opt.from +
                                  "; a branch is at one point");
      plan.actions.push_back({PlanOp::Share, key, m.kind, target, "same branch as " + f->second + ": reset once, for both",
                              Json{{"with", f->second}, {"then_state", *was.state}}});
      return;
    }
    first_of_ref[target] = key;
    plan_fork(key, m, b, was, caps, target, "from " + opt.from + ": " + from_label);
  }

  // Why the key cannot be restored from what the revision recorded, if it cannot.
  std::optional<std::string> unrestorable(const model::ObjectManifest& was, uint32_t caps) {
    if (!(caps & sdk::kFork) || on_trunk(cx)) return "no working branch to restore (not Forkable, or on trunk)";
    if (!was.state) return "nothing committed at " + opt.from;
    if (!(was.pin && (caps & sdk::kPin)) && !(caps & sdk::kAddressable))
      return "no pin at " + opt.from + " and the backend cannot fork from a state";
    return std::nullopt;
  }

  // The branch the key writes through: its working ref, its pending fork, else the one the
  // bookmark would give it.
  std::string branch_of(const std::string& key) {
    const auto& ws = *cx.workspace;
    if (auto w = working_ref(cx, key)) return *w;
    if (auto p = ws.pending_forks.find(key); p != ws.pending_forks.end()) return p->second;
    return model::working_ref_name(cx.dataset_id, *ws.bookmark);
  }

  // The branch is one point for every object writing through it: all of them are named, or
  // the refusal says how to name them.
  std::optional<std::string> shared_with_unnamed(const std::string& key, const model::ObjectManifest& m,
                                                 const std::string& target) {
    const auto& ws = *cx.workspace;
    std::vector<std::string> sharers;
    for (const auto* table : {&ws.working_refs, &ws.pending_forks})
      for (const auto& [k, r] : *table)
        if (k != key && r == target && cx.manifests.count(k) && cx.manifests.at(k).kind == m.kind) sharers.push_back(k);
    std::vector<std::string> unnamed;
    for (const auto& k : sharers)
      if (!named.count(k)) unnamed.push_back(k);
    if (unnamed.empty()) return std::nullopt;
    std::vector<std::string> all(named.begin(), named.end());
    all.insert(all.end(), unnamed.begin(), unnamed.end());
    std::sort(all.begin(), all.end());
    return target + " is also " + join(unnamed) + "'s working branch; restoring " + key +
           " alone would move theirs too -- name them: `tether restore " + join(all, " ") + " --from " + opt.from + "`";
  }

  // The fork onto the recorded state: a new branch, or a reset of the existing one when it
  // holds no writes this workspace has not committed (or --discard).
  void plan_fork(const std::string& key, const model::ObjectManifest& m, host::BackendProxy& b, const model::ObjectManifest& was,
                 uint32_t caps, const std::string& target, std::string detail) {
    const auto& ws = *cx.workspace;
    Json source = was.pin && (caps & sdk::kPin) ? Json{{"pin", Json{{"id", was.pin->id}, {"ref", was.pin->ref}}}}
                                                : Json{{"state", *was.state}};
    Json params{{"then", model::manifest_to_toml(was)}, {"then_state", *was.state}, {"source", source}};
    auto refs = b.list_working_refs(m.locator, key);
    if (std::find(refs.begin(), refs.end(), target) != refs.end()) {
      Json head;
      try {
        head = b.fingerprint(m.locator, target, key);
      } catch (const std::exception& e) {
        return refuse(key, m, target + " exists but its head could not be read (" + std::string(e.what()) + "); a reset would be blind");
      }
      auto known = [&](const std::map<std::string, Json>& table) {
        auto it = table.find(key);
        return it != table.end() && b.same(it->second, head);
      };
      bool writes = !known(ws.base_states) && !(m.state && b.same(*m.state, head)) && !known(ws.fork_points);
      if (writes && !opt.discard)
        return refuse(key, m, target + " has writes since this workspace last committed (" + model::short_state(head) +
                                  "); commit them, or pass --discard to throw them away");
      detail += "; resets " + target;
      if (writes) detail += ", discarding its writes (" + model::short_state(head) + ")";
      params["head"] = head;
      plan.preconditions.push_back({"ref_head", head, key, Json{{"ref", target}},
                                    "restore " + key + ": " + target + " moved since the plan was made (" + model::short_state(head) +
                                        " -> {observed}); re-run the plan"});
    } else {
      plan.preconditions.push_back({"ref_absent", nullptr, key, Json{{"ref", target}},
                                    "restore " + key + ": " + target + " exists since the plan was made; re-run the plan"});
    }
    plan.actions.push_back({PlanOp::Fork, key, m.kind, target, detail, params});
  }
};

static Plan plan_restore(Context& cx, const RestoreOptions& opt) { return RestorePlanner(cx, opt).run(); }

static RestoreResult apply_restore(Context& cx, const Plan& plan) {
  std::vector<std::string> refusals;
  for (const auto& a : plan.actions)
    if (a.op == PlanOp::Refuse) refusals.push_back(a.key + ": " + a.detail);
  if (!refusals.empty()) throw TetherError("cannot restore:\n  " + join(refusals, "\n  "));
  const RestorePayload ctx = RestorePayload::from(plan);
  RestoreResult res;
  res.plan = plan;
  res.from = ctx.from_rev;
  Json heads = Json::object();
  for (const auto& a : plan.actions)
    if (a.params.contains("head")) heads[a.key] = a.params["head"];
  OpLog oplog = op_log(cx);
  std::string op_id = oplog.begin("restore", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}, {"heads", heads}});
  std::vector<std::string> created, reset;
  model::Workspace& ws = *cx.workspace;
  try {
    for (const auto& a : plan.actions) {
      if (a.op != PlanOp::Fork) continue;
      const auto& m = cx.manifests.at(a.key);
      auto then = model::parse_manifest(a.params["then"].get<std::string>(), "the plan's manifest of " + a.key, a.key);
      sdk::Source source = a.params["source"].get<sdk::Source>();
      if (source.kind == sdk::Source::Kind::Pin) source = checked_source(cx, then);
      sdk::Expected expected = a.params.contains("head") ? sdk::Expected::at(a.params["head"]) : sdk::Expected::absent();
      std::string ref = cx.backend(m.kind).fork(m.locator, source, a.target, expected, a.key);
      record_touched(cx, a.key, m.kind, m.locator);
      (a.params.contains("head") ? reset : created).push_back(a.key);
      oplog.progress(op_id, Json{{"action", "fork"}, {"key", a.key}, {"ref", ref}});
      std::vector<std::string> keys{a.key};
      for (const auto& s : plan.actions)
        if (s.op == PlanOp::Share && s.params.value("with", std::string()) == a.key) keys.push_back(s.key);
      for (const auto& k : keys) {
        ws.working_refs[k] = ref;
        ws.pending_forks.erase(k);
        ws.pending_resets.erase(k);
        ws.fork_points[k] = a.params["then_state"];
        ws.set_snapshot(k, a.params["then_state"]);
        if (auto mm = cx.manifests.find(k); mm != cx.manifests.end() && mm->second.state) ws.base_states[k] = *mm->second.state;
        res.working_refs[k] = ref;
      }
      write_workspace(cx);
    }
  } catch (const std::exception& e) {
    oplog.end(op_id, Json{{"failed", e.what()}, {"created", created}, {"reset", reset}});
    throw;
  }
  oplog.end(op_id, Json{{"created", created},
                        {"reset", reset},
                        {"working_refs", res.working_refs},
                        {"from_commit", ctx.from_commit}});
  res.applied = true;
  return res;
}

Json RestoreResult::to_json() const { return Json{{"from", from}, {"working_refs", working_refs}}; }

// What `tether ops` says of a restore (ops.cpp's table).
std::string summarize_restore(const OpEntry& e) {
  const Json& r = e.result;
  std::vector<std::string> keys = names_of(r.value("working_refs", Json::object()));
  if (keys.empty()) {
    keys = names_of(r.value("created", Json::array()));
    for (const auto& k : names_of(r.value("reset", Json::array()))) keys.push_back(k);
  }
  return "restored " + join(keys) + " from " + str_of(r, "from_commit").substr(0, 12);
}

}  // namespace tether::engine
