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
}  // namespace

CommitResult Repo::commit(const CommitOptions& opt) {
  auto lock = lock_checkout();
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run && !opt.no_vcs) repo_lock = lock_repository();
  if (opt.saved) {
    Plan saved = *opt.saved;
    if (!opt.message.empty()) saved.context["message"] = opt.message;  // -m overrides the saved message
    CommitResult res = apply_commit(saved, /*verify=*/true, "commit", opt.progress);
    return res;
  }
  std::vector<std::string> unchanged;
  Plan plan = plan_commit(opt, std::nullopt, unchanged);
  if (opt.dry_run) {
    CommitResult res;
    res.plan = std::move(plan);
    res.unchanged = std::move(unchanged);
    return res;
  }
  return apply_commit(plan, /*verify=*/false, "commit", opt.progress);
}

Plan Repo::plan_commit(const CommitOptions& opt, const std::optional<std::map<std::string, Json>>& fetched,
                       std::vector<std::string>& unchanged) {
  Plan plan;
  plan.command = "commit";
  plan.created_at = model::now_iso_utc_seconds();

  // 1. The states to record.
  auto moving = moving_keys();
  std::map<std::string, Json> states;
  if (fetched) {
    states = *fetched;
  } else if (opt.no_snapshot) {
    for (const auto& [k, s] : workspace_->last_snapshot) states[k] = s;
  } else {
    auto snap = fingerprint_keys(moving, /*upstream=*/false, opt.progress);
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
      const auto& m = manifests_.at(k);
      if (!(effective_capabilities(m) & sdk::kNeedsQuiescence)) continue;
      try {
        backend(m.kind).check_quiescence(m.locator, working_ref(k), k);
      } catch (const BackendError& e) {
        busy.push_back(e.what());
      }
    }
    if (!busy.empty()) throw_failures("are being written to", busy);
  }
  // Objects that do not move keep their committed state (a pull's fetched heads win).
  for (const auto& [k, m] : manifests_)
    if (m.state && std::find(moving.begin(), moving.end(), k) == moving.end() && (!fetched || !states.count(k)))
      states[k] = *m.state;

  std::string mhash = model::manifest_hash(manifests_);
  Json states_j = Json::object();
  for (const auto& [k, v] : states) states_j[k] = v;
  plan.context = Json{{"message", opt.message},   {"manifest_hash", mhash},
                      {"states", states_j},       {"workspace_id", workspace_->workspace_id},
                      {"pull", fetched.has_value()}, {"no_vcs", opt.no_vcs}};
  std::string here = workspace_->bookmark ? *workspace_->bookmark : "no bookmark";
  plan.preconditions.push_back({"workspace_id", workspace_->workspace_id, "", Json::object(),
                                "this commit plan was made in another checkout; re-run the plan here"});
  plan.preconditions.push_back({"workspace_bookmark", workspace_->bookmark ? Json(*workspace_->bookmark) : Json(nullptr), "",
                                Json::object(),
                                "this commit plan was made on " + here + "; the checkout is on {observed} now; re-run the plan"});
  plan.preconditions.push_back({"manifest_hash", mhash, "", Json::object(), "manifests changed since the plan was made; re-run the plan"});

  // 2. Per object: unchanged, pin, or record.
  for (const auto& [key, m] : manifests_) {
    auto st = states.find(key);
    if (st == states.end()) {
      plan.notes.push_back(key + ": no fingerprint; skipped");
      continue;
    }
    auto& b = backend(m.kind);
    uint32_t caps = effective_capabilities(m);
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
      plan.actions.push_back({"record", key, m.kind, "", "Observed: recorded, not recoverable",
                              Json{{"state", st->second}, {"recoverable", false}}});
    } else if (pinnable) {
      Json identity = b.identity(m.locator, key);
      std::string id = model::pin_id(dataset_id_, m.kind, identity, b.content_state(st->second));
      plan.actions.push_back({"pin", key, m.kind, model::pin_ref(id), "native ref at " + shortst,
                              Json{{"state", st->second}, {"pin_id", id}}});
    } else {
      std::string why = m.policy.pin == "record" ? "pin=record" : "Addressable";
      bool addressable = b.state_addressable(m.locator, st->second, key);
      std::string detail = why + ": state " + shortst + ", no native ref";
      if (!addressable) detail += "; recorded, not recoverable";
      plan.actions.push_back({"record", key, m.kind, "", detail, Json{{"state", st->second}, {"recoverable", addressable}}});
    }
  }
  if (!plan.actions.empty() && !opt.no_vcs)
    plan.actions.push_back({"vcs-commit", "", "", "", vcs_->kind() + " commit: " + model::py_repr(opt.message), Json::object()});
  return plan;
}

CommitResult Repo::apply_commit(const Plan& plan, bool verify, const std::string& op_name, const ProgressFn& progress) {
  CommitResult res;
  res.plan = plan;
  const std::string message = plan.context.value("message", std::string());
  const bool no_vcs = plan.context.value("no_vcs", false);
  if (verify) {
    check_preconditions(plan);
    // The planned states must still be what the systems hold.
    std::vector<std::string> keys;
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      if (!manifests_.count(a.key)) throw StalePlanError(model::py_repr(a.key) + " is no longer registered; re-run the plan");
      keys.push_back(a.key);
    }
    auto moving = moving_keys();
    std::vector<std::string> live;
    for (const auto& k : keys)
      if (std::find(moving.begin(), moving.end(), k) != moving.end()) live.push_back(k);
    auto snap = fingerprint_keys(live, /*upstream=*/false, progress);
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      auto it = snap.states.find(a.key);
      if (it == snap.states.end()) {
        if (auto e = snap.errors.find(a.key); e != snap.errors.end()) throw TetherError(e->second);
        // Not moving: tether records its committed state (a policy change), nothing the file says.
        const auto& m = manifests_.at(a.key);
        if (!plan.context.value("pull", false) && (!m.state || !backend(m.kind).same(*m.state, a.params["state"])))
          throw StalePlanError("the saved commit plan records " + model::py_repr(a.key) + " at " +
                               model::short_state(a.params["state"]) + ", which is neither its committed state nor what "
                               "its store holds; re-run the plan");
        continue;
      }
      if (!backend(a.kind).same(it->second, a.params["state"]))
        throw StalePlanError(model::py_repr(a.key) + " changed since the plan was made (" + model::short_state(a.params["state"]) +
                             " -> " + model::short_state(it->second) + "); re-run the plan");
    }
  }
  for (const auto& n : plan.notes)
    if (n.size() > 11 && n.compare(n.size() - 11, 11, ": unchanged") == 0) res.unchanged.push_back(n.substr(0, n.size() - 11));
  check_not_stale();
  if (!no_vcs) check_on_bookmark();

  const std::vector<std::string> paths = vcs_paths();
  bool manifests_dirty = !no_vcs && vcs_->is_dirty(paths);
  bool object_actions = false;
  for (const auto& a : plan.actions)
    if (a.op != "vcs-commit") object_actions = true;
  if (!object_actions && !manifests_dirty) return res;  // nothing to do: no op logged

  // 3. Apply. Journal first, so a crash leaves a record of what was started.
  Json pre_objects = Json::object();
  for (const auto& a : plan.actions) {
    if (a.key.empty()) continue;
    auto text = model::read_checkout_file(model::manifest_path(objects_dir(), a.key));
    pre_objects[a.key] = text ? Json(*text) : Json(nullptr);
  }
  Json pre{{"vcs", vcs_position()},
           {"objects", pre_objects},
           {"workspace", model::workspace_to_toml(*workspace_)}};
  OpLog oplog(tether_dir() / "ops.jsonl");
  std::string op_id = oplog.begin(op_name, pre);

  // Pins: one per pin id (two objects with one identity and state share it), concurrently.
  std::vector<const PlanAction*> pin_actions;
  std::set<std::string> seen;
  for (const auto& a : plan.actions)
    if (a.op == "pin" && seen.insert(a.params["pin_id"].get<std::string>()).second) pin_actions.push_back(&a);
  std::map<std::string, sdk::Pin> cut;  // pin id -> pin
  std::vector<std::pair<const PlanAction*, sdk::Pin>> created;
  std::vector<std::string> written_listings;
  auto rollback = [&](const std::string& why) {
    std::set<std::string> released;
    for (auto& [a, pin] : created) {
      try {
        backend(a->kind).unpin(manifests_.at(a->key).locator, pin, a->key);
        released.insert(pin.id);
      } catch (const std::exception&) {
        // Left for gc: the op log names it, the pinned index claims it, no commit references it.
      }
    }
    try {
      PinIndex(pinned_index_path()).release(released);
    } catch (const std::exception&) {
      // A stale claim only lets gc release a pin nothing references.
    }
    for (auto& [key, text] : pre_objects.items()) {
      if (text.is_null()) model::remove_manifest(objects_dir(), key);
      else model::write_checkout_file(model::manifest_path(objects_dir(), key), text.get<std::string>());
    }
    for (const auto& l : written_listings) model::remove_checkout_file(tether_dir() / "listings" / l);
    if (!written_listings.empty())
      model::remove_empty_checkout_dirs(tether_dir() / "listings", tether_dir().rel);  // only if now empty
    oplog.end(op_id, Json{{"failed", why}, {"rolled_back", true}});
  };

  try {
    auto pinned = fan_out<sdk::Pin>(pin_actions.size(), [&](std::size_t i) {
      const PlanAction& a = *pin_actions[i];
      const auto& m = manifests_.at(a.key);
      return backend(a.kind).pin(m.locator, a.params["state"], a.params["pin_id"].get<std::string>(), a.key);
    });
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < pin_actions.size(); ++i) {
      const PlanAction& a = *pin_actions[i];
      if (pinned[i].ok()) {
        const sdk::Pin& p = *pinned[i].value;
        cut[a.params["pin_id"].get<std::string>()] = p;
        if (p.created) {
          created.emplace_back(&a, p);
          if (auto err = PinIndex(pinned_index_path()).claim(dataset_id_, a.kind, p.id); err && res.warnings.empty())
            res.warnings.push_back("could not record " + a.key + "'s pin in the pinned index (gc will treat it as another "
                                   "clone's): " + *err);
        }
        oplog.progress(op_id, Json{{"action", "pin"}, {"key", a.key}, {"ref", p.ref}, {"created", p.created}});
        continue;
      }
      failures.push_back(pinned[i].keyed(a.key));
    }
    if (!failures.empty()) throw_failures("could not be pinned", failures);

    // Manifests and listings.
    for (const auto& a : plan.actions) {
      if (a.op == "vcs-commit") continue;
      const auto& m = manifests_.at(a.key);
      Json state = a.params["state"];
      std::optional<sdk::Pin> pin;
      bool recoverable = true;
      if (a.op == "pin") {
        pin = cut.at(a.params["pin_id"].get<std::string>());
        res.pinned[a.key] = pin->ref;
      } else {
        recoverable = a.params.value("recoverable", true);
        if (recoverable) res.pinned[a.key] = std::nullopt;
        else res.unrecoverable.push_back(a.key);
      }
      auto updated = m.with_pin(state, pin, recoverable);
      if (plan.context.value("pull", false)) updated.locator.erase("at");  // pulled to the branch head
      auto& b = backend(m.kind);
      if (effective_capabilities(m) & sdk::kDiff) {
        if (auto text = b.listing(m.locator, state, a.key)) {
          const std::string name = model::listing_name(m.kind, b.identity(m.locator, a.key), b.content_state(state));
          const auto p = tether_dir() / "listings" / name;
          if (!model::checkout_entry_exists(p)) {  // content-addressed, write-once
            model::write_checkout_file(p, *text);
            written_listings.push_back(name);
          }
        }
      }
      model::write_manifest(objects_dir(), updated);
    }
    oplog.progress(op_id, Json{{"action", "manifests"}});

    if (!no_vcs) {
      res.vcs_commit = vcs_->commit(vcs_paths(), message);
      if (res.vcs_commit) oplog.progress(op_id, Json{{"action", "vcs-commit"}, {"commit", *res.vcs_commit}});
    }
  } catch (const std::exception& e) {
    rollback(e.what());
    reload();
    throw;
  }

  // 4. The workspace: committed states become the base of their working refs.
  reload();
  for (const auto& a : plan.actions) {
    if (a.op == "vcs-commit") continue;
    if (workspace_->working_refs.count(a.key) || workspace_->pending_forks.count(a.key))
      workspace_->base_states[a.key] = a.params["state"];
    workspace_->set_snapshot(a.key, a.params["state"]);
  }
  workspace_->last_snapshot_at = model::now_iso_utc();
  write_workspace();
  Json pinned_ids = Json::object();
  for (const auto& a : plan.actions)
    if (!a.key.empty()) pinned_ids[a.key] = a.op == "pin" ? a.params["pin_id"] : Json(nullptr);
  oplog.end(op_id, Json{{"vcs_commit", res.vcs_commit ? Json(*res.vcs_commit) : Json(nullptr)},
                        {"pinned", pinned_ids},
                        {"unrecoverable", res.unrecoverable}});
  res.applied = true;
  return res;
}

Json CommitResult::to_json() const {
  Json pins = Json::object();
  for (const auto& [k, v] : pinned) pins[k] = v ? Json(*v) : Json(nullptr);
  return Json{{"vcs_commit", vcs_commit ? Json(*vcs_commit) : Json(nullptr)},
              {"pinned", pins},
              {"unrecoverable", unrecoverable},
              {"unchanged", unchanged}};
}

}  // namespace tether::engine
