// core/src/engine/plan_vet.cpp: what a saved plan (--from-plan) may make tether do.
//
// A saved plan's digest catches accidents (a truncated copy, a stray keystroke), not edits:
// anyone can recompute it. So a saved plan is untrusted input. Before one is applied, every
// value tether can derive from this checkout is derived again and must match the plan's copy
// (pin ids from kind, identity and state; an object's kind and locator from its manifest; the
// upstream branch), and everything else it names must lie inside this dataset: object keys
// pass validate_key, refs are in this dataset's namespaces. gc, repair and forget-workspace
// are planned again in full from the options the plan records, and must come out the same.
// promote's plan is promote.cpp's to vet.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/errors.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/names.hpp"

namespace tether::engine {

static bool owns_ref(const Context& cx, const std::string& ref);

namespace {

[[noreturn]] void refuse(const Plan& plan, const std::string& what) {
  throw StalePlanError("the saved " + plan.command + " plan " + what +
                       "; a plan's digest does not make it trustworthy -- re-run the plan here");
}

std::string str(const Json& j, const char* field) {
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Actions whose target is a store branch tether creates, resets or deletes.
const std::set<PlanOp> kBranchOps = {PlanOp::Fork,  PlanOp::DeferFork, PlanOp::Reuse,
                                     PlanOp::Share, PlanOp::Refork,    PlanOp::DeleteBranch};
// Actions whose target is the pin ref of params.pin_id.
const std::set<PlanOp> kPinOps = {PlanOp::Pin, PlanOp::Unpin, PlanOp::KeepPin, PlanOp::Repin};

}  // namespace

static bool owns_ref(const Context& cx, const std::string& ref) {
  const std::string ds8 = cx.dataset_id.substr(0, 8);
  if (ds8.size() != 8) return false;
  return ref.rfind("tether.ws." + ds8 + ".", 0) == 0 || ref.rfind("tether." + ds8 + ".", 0) == 0;
}

void vet_saved_plan(Context& cx, const Plan& plan) {
  if (plan.command == "promote") return;
  auto check_key = [&](const std::string& key) {
    if (!key.empty() && !model::is_safe_key(key)) refuse(plan, "names the unsafe object key " + model::py_repr(key));
  };
  auto check_ref = [&](const std::string& ref, const std::string& key) {
    if (!owns_ref(cx, ref))
      refuse(plan, "names the branch " + model::py_repr(ref) + " for " + key + ", outside this dataset's namespaces (tether." +
                       cx.dataset_id + ".*, tether.ws." + cx.dataset_id + ".*)");
  };
  const model::ObjectManifest* none = nullptr;
  auto registered = [&](const std::string& key) {
    auto it = cx.manifests.find(key);
    return it == cx.manifests.end() ? none : &it->second;
  };

  for (const auto& pc : plan.preconditions) {
    check_key(pc.key);
    if (!pc.params.is_object()) refuse(plan, "has a precondition whose params are not an object");
    if (pc.kind == "ref_head" || pc.kind == "ref_absent") check_ref(str(pc.params, "ref"), pc.key);
    if (auto loc = pc.params.find("locator"); loc != pc.params.end())
      if (const auto* m = registered(pc.key); !m || *loc != m->locator)
        refuse(plan, "points " + pc.key + " at a locator its manifest does not record");
  }

  // `pull` is set only by `tether pull`, which never saves its commit plan; it would skip the
  // state check below and move objects off their `at`.
  if (plan.command == "commit" && commit_plan_pulls(plan))
    refuse(plan, "claims to be a pull's commit, which is never saved");

  for (const auto& a : plan.actions) {
    check_key(a.key);
    if (!a.params.is_object()) refuse(plan, "has an action whose params are not an object");
    const std::string what = a.key.empty() ? std::string(op_name(a.op)) + " " + a.target : a.key;
    const model::ObjectManifest* m = registered(a.key);
    if (m && !a.kind.empty() && a.kind != m->kind)
      refuse(plan, "gives " + a.key + " the kind " + model::py_repr(a.kind) + "; it is registered as " + m->kind);
    if (auto k = a.params.find("key"); k != a.params.end()) check_key(k->is_string() ? k->get<std::string>() : "?");

    // gc and upgrade name the locators of history (re-derived in full instead); import sets new ones.
    if (auto loc = a.params.find("locator");
        loc != a.params.end() && m && *loc != m->locator && plan.command != "gc" && plan.command != "import" &&
        plan.command != "upgrade")
      refuse(plan, "points " + a.key + " at a locator its manifest does not record");

    if (a.params.contains("pin_id")) {
      const std::string id = str(a.params, "pin_id");
      if (model::pin_dataset(id) != cx.dataset_id)
        refuse(plan, "names the pin " + model::py_repr(id) + " for " + what + ", which is not a pin of this dataset");
      if (kPinOps.count(a.op) && a.target != model::pin_ref(id))
        refuse(plan, "names the ref " + model::py_repr(a.target) + " for the pin " + id);
      // A pin made from a state: its id is the hash of kind, identity and state
      // (docs/FORMAT.md#pin-ids-and-pin-refs).
      if ((a.op == PlanOp::Pin || a.op == PlanOp::Repin) && a.params.contains("state")) {
        const std::string kind = m ? m->kind : a.kind;
        const Json& locator = a.op == PlanOp::Repin ? a.params.value("locator", Json(nullptr)) : m ? m->locator : Json(nullptr);
        if (locator.is_null()) refuse(plan, "pins " + what + ", which is not registered");
        auto& b = cx.backend(kind);
        const std::string key = a.params.value("key", a.key);
        const std::string derived =
            model::pin_id(cx.dataset_id, kind, b.identity(locator, key), b.content_state(a.params["state"]));
        if (derived != id)
          refuse(plan, "gives " + what + " the pin id " + id + "; its kind, identity and state make " + derived);
      }
    }
    // Whether a recorded state can be reopened is the backend's answer, not the file's.
    if (plan.command == "commit" && a.op == PlanOp::Record && m) {
      const Json state = a.params.value("state", Json(nullptr));
      const uint32_t caps = cx.effective_capabilities(*m);
      const bool derived = std::string(sdk::tier_name(caps)) != "observed" &&
                           cx.backend(m->kind).state_addressable(m->locator, state, a.key);
      if (a.params.value("recoverable", true) != derived)
        refuse(plan, "marks " + a.key + (derived ? " not recoverable" : " recoverable") + ", which its backend does not say");
    }
    if (kBranchOps.count(a.op)) check_ref(a.target, what);
    if (a.op == PlanOp::Trunk && m && a.target != cx.backend(m->kind).base_branch(m->locator, a.key))
      refuse(plan, "puts " + a.key + " on " + model::py_repr(a.target) + ", which is not its upstream branch");
    if (auto s = a.params.find("source"); s != a.params.end() && s->is_object() && s->contains("ref"))
      check_ref(str(*s, "ref"), what);
  }
}

void require_rederived(const Plan& saved, const Plan& derived) {
  auto same = [](const PlanAction& x, const PlanAction& y) {
    return x.op == y.op && x.key == y.key && x.kind == y.kind && x.target == y.target && x.params == y.params;
  };
  const auto& s = saved.actions;
  const auto& d = derived.actions;
  auto [si, di] = std::mismatch(s.begin(), s.end(), d.begin(), d.end(), same);
  if (si == s.end() && di == d.end()) return;
  const std::string which = si != s.end() ? std::string(op_name(si->op)) + " " + (si->key.empty() ? si->target : si->key)
                                          : "(none; tether now plans " + std::string(op_name(di->op)) + " " + (di->key.empty() ? di->target : di->key) + ")";
  throw StalePlanError("the saved " + saved.command + " plan is not what tether plans here now (first difference: " + which +
                       "); re-run the plan");
}

}  // namespace tether::engine
