// core/src/engine/new.cpp: `tether new` (docs/cli.md#new; docs/concepts.md): plan which working
// branch each object gets on a bookmark (reuse, fork now, fork on first writable open, share),
// then move the checkout there and make the forks, stage by stage.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/open.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

static NewResult apply_new(Context& cx, const Plan& plan);
static Plan plan_new(Context& cx, const NewOptions& opt);

namespace {
// What a `new` plan decided (its context): the revision and bookmark (null: none), whether the
// bookmark is created, the options it was planned with, and the manifests and checkout it was
// made against.
struct NewPayload {
  std::optional<std::string> rev, bookmark;
  bool create = false, shared = false, keep = false, eager = false, discard = false;
  std::string manifest_hash, workspace_id;

  Json to_json() const {
    return Json{{"rev", string_or_null(rev)},
                {"bookmark", string_or_null(bookmark)},
                {"create", create},
                {"shared", shared},
                {"keep", keep},
                {"eager", eager},
                {"discard", discard},
                {"manifest_hash", manifest_hash},
                {"workspace_id", workspace_id}};
  }
  static NewPayload from(const Plan& plan) {
    const ContextReader c{plan.context, "new"};
    NewPayload p;
    p.rev = c.string_or_null("rev");
    p.bookmark = c.string_or_null("bookmark");
    p.create = c.boolean("create");
    p.shared = c.boolean("shared");
    p.keep = c.boolean("keep");
    p.eager = c.boolean("eager");
    p.discard = c.boolean("discard");
    p.manifest_hash = c.string("manifest_hash");
    p.workspace_id = c.string("workspace_id");
    return p;
  }
};
}  // namespace

// ---- tether new ------------------------------------------------------------------------------

NewResult new_workspace(Repo& repo, const NewOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run) repo_lock = lock_repository(cx);
  // A saved plan is planned again from the options it records and must come out the same: the
  // branches, sources and heads it forks from are then this checkout's, not the file's.
  auto rederive = [&](const Plan& p) {
    check_preconditions(cx, p);
    const NewPayload c = NewPayload::from(p);
    NewOptions again;
    again.rev = c.rev;
    if (c.create && c.bookmark) again.bookmark = c.bookmark;
    again.shared = c.shared;
    again.keep = c.keep;
    again.discard = c.discard;
    again.eager = c.eager;
    Plan derived = plan_new(cx, again);
    if (NewPayload::from(derived).bookmark != c.bookmark)
      throw StalePlanError("the saved new plan is not what tether plans here now (bookmark " +
                           string_or_null(c.bookmark).dump() + "); re-run the plan");
    require_rederived(p, derived);
  };
  return run_planned<NewResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_new(cx, opt); }, [&](const Plan& p) { return apply_new(cx, p); });
}

// Planning `new`, stage by stage: which bookmark (and whether it is created), whether another
// checkout holds it, the trunk's upstream branches, then one fork (or reuse, share, refusal)
// per forkable object -- objects of one branch scope share the first one's branch.
struct NewPlanner {
  // The first object planned in a (kind, branch scope): the others share its branch.
  struct First {
    std::string key;
    std::optional<PlanOp> op;  // nothing when no action was planned
    Json state;
  };

  Context& cx;
  const NewOptions& opt;
  Plan plan;
  std::map<std::string, model::ObjectManifest> objects;
  std::map<std::string, std::string> bookmarks;
  std::string trunk;
  std::optional<std::string> bookmark;
  bool create = false, eager = false;
  std::string name;  // the working branch name of the bookmark
  std::map<std::pair<std::string, std::string>, First> scopes;

  NewPlanner(Context& r, const NewOptions& o) : cx(r), opt(o) {}

  Plan run() {
    plan.command = "new";
    plan.created_at = now_iso_seconds(cx);
    objects = opt.rev ? manifests_at(cx, *opt.rev) : cx.manifests;
    bookmarks = cx.vcs->bookmarks();
    trunk = cx.config.trunk();
    choose_bookmark();
    eager = opt.eager.value_or(cx.config.new_fork == "eager");
    set_context();
    if (opt.keep) {
      plan.notes.push_back("keep: refresh the baseline only; working refs unchanged");
      return std::move(plan);
    }
    if (!bookmark) {
      plan.notes.push_back("no bookmark: read-only working copy (`tether new -b NAME` to write)");
      return std::move(plan);
    }
    if (*bookmark != trunk && !opt.shared && held_elsewhere()) return std::move(plan);
    if (*bookmark == trunk) {
      plan_trunk();
      return std::move(plan);
    }
    name = model::working_ref_name(cx.dataset_id, *bookmark);
    for (const auto& entry : objects) plan_object(entry.second);
    return std::move(plan);
  }

  // Among bookmarks at one commit: this checkout's, else the trunk, else the only one.
  std::optional<std::string> pick(const std::vector<std::string>& candidates) const {
    auto has = [&](const std::string& b) { return std::find(candidates.begin(), candidates.end(), b) != candidates.end(); };
    const auto& mine = cx.workspace->bookmark;
    if (mine && has(*mine)) return mine;
    if (has(trunk)) return trunk;
    if (candidates.size() == 1) return candidates.front();
    return std::nullopt;
  }

  void choose_bookmark() {
    const auto& mine = cx.workspace->bookmark;
    if (opt.bookmark) {
      const std::string& b = *opt.bookmark;
      if (bookmarks.count(b)) throw ConfigError("bookmark '" + b + "' exists; `tether new " + b + "` joins it");
      std::string ref = model::working_ref_name(cx.dataset_id, b);
      auto dot = ref.rfind('.');
      bool numbered = dot + 1 < ref.size() && ref.find_first_not_of("0123456789", dot + 1) == std::string::npos;
      if (numbered)
        throw ConfigError("bookmark '" + b +
                          "' ends in `.<number>`, which is how a store names a sibling of a branch it cannot reset; pick "
                          "another name");
      bookmark = b;
      create = true;
    } else if (opt.rev && bookmarks.count(*opt.rev)) {
      bookmark = *opt.rev;
    } else if (opt.rev) {
      std::string commit = cx.vcs->resolve(*opt.rev);
      std::vector<std::string> at;
      for (const auto& [b, c] : bookmarks)
        if (c == commit) at.push_back(b);
      bookmark = pick(at);
    } else if (opt.keep) {
      bookmark = mine;
    } else {
      auto cur = cx.vcs->current_bookmark();
      if (!cur && mine) bookmark = mine;
      else bookmark = cur ? pick({*cur}) : std::nullopt;
    }
  }

  void set_context() {
    const auto& ws = *cx.workspace;
    const std::string mhash = model::manifest_hash(objects);
    plan.context =
        NewPayload{opt.rev, bookmark, create, opt.shared, opt.keep, eager, opt.discard, mhash, ws.workspace_id}.to_json();
    plan.preconditions.push_back({"manifest_hash", mhash, "", opt.rev ? Json{{"rev", *opt.rev}} : Json::object(),
                                  "manifests at the target differ from the plan; re-run the plan"});
    plan.preconditions.push_back({"workspace_id", ws.workspace_id, "", Json::object(),
                                  "this plan was made in another workspace; re-run the plan here"});
  }

  // A bookmark another live checkout works on is refused (without --shared); otherwise the
  // plan requires that none starts to before it is applied.
  bool held_elsewhere() {
    const std::string& b = *bookmark;
    std::vector<std::string> holders;
    for (const auto& [id, bm] : other_workspaces(cx))
      if (bm == b) holders.push_back(id.substr(0, 8));
    if (!holders.empty()) {
      plan.actions.push_back({PlanOp::Refuse, "", "", "", "bookmark '" + b + "' is held by live workspace(s) " + join(holders) +
                                                        "; pass --shared to write the same store branches from here too"});
      return true;
    }
    plan.preconditions.push_back({"no_new_holders", nullptr, "", Json{{"bookmark", b}},
                                  "bookmark '" + b + "' is now held by live workspace(s) {observed}; re-run the plan (or pass --shared)"});
    return false;
  }

  // On the trunk, writes go to each object's upstream branch: nothing is forked.
  void plan_trunk() {
    plan.notes.push_back("on trunk '" + *bookmark + "': writes land on each object's upstream branch");
    for (const auto& [key, m] : objects) {
      try {
        if (!(cx.effective_capabilities(m) & sdk::kFork) || has_at(m.locator)) continue;
        plan.actions.push_back({PlanOp::Trunk, key, m.kind, cx.backend(m.kind).base_branch(m.locator, key), "upstream branch"});
      } catch (const std::exception& e) {
        plan.notes.push_back(key + ": no upstream branch to write to (" + e.what() + ")");
      }
    }
  }

  void plan_object(const model::ObjectManifest& m) {
    const std::string& key = m.key;
    uint32_t caps = 0;
    try {
      caps = cx.effective_capabilities(m);
    } catch (const std::exception& e) {
      plan.notes.push_back(key + ": " + e.what());
      return;
    }
    if (!(caps & sdk::kFork)) return;
    if (!m.state) {
      plan.notes.push_back(key + ": nothing committed yet; fork after first commit");
      return;
    }
    auto& be = cx.backend(m.kind);
    auto scope = std::make_pair(m.kind, be.branch_scope(m.locator, key));
    if (auto f = scopes.find(scope); f != scopes.end()) {
      plan_share(m, f->second);
      return;
    }
    First& first = scopes[scope];
    first.key = key;
    first.state = *m.state;
    first.op = plan_fork(m, caps);
  }

  // An object in the branch scope of one planned before it shares that one's branch.
  void plan_share(const model::ObjectManifest& m, const First& first) {
    auto& be = cx.backend(m.kind);
    if (!first.op || first.op == PlanOp::Refuse) {
      plan.notes.push_back(m.key + ": shares a branch with " + first.key + ", which cannot fork");
    } else if (be.same(first.state, *m.state)) {
      plan.actions.push_back({PlanOp::Share, m.key, m.kind, name, "same branch as " + first.key + " (" + std::string(op_name(*first.op)) + ")",
                              Json{{"with", first.key}, {"state", *m.state}}});
    } else {
      plan.actions.push_back({PlanOp::Refuse, m.key, m.kind, name,
                              "shares branch " + name + " with '" + first.key + "' but pins " +
                                  model::short_state(*m.state) + " where it pins " + model::short_state(first.state) +
                                  "; a branch is at one point -- commit them together (`tether pull` on the trunk) "
                                  "before forking"});
    }
  }

  // The branch this checkout already records for the key (a sibling `<name>.<n>` a backend
  // returned counts), else `name` if the store has it.
  std::optional<std::string> existing_branch(const std::string& key, const std::vector<std::string>& refs) const {
    const auto& ws = *cx.workspace;
    std::optional<std::string> existing;
    for (const auto* table : {&ws.working_refs, &ws.pending_forks})
      if (auto it = table->find(key); it != table->end() && it->second.rfind(name, 0) == 0 &&
                                      std::find(refs.begin(), refs.end(), it->second) != refs.end())
        existing = it->second;
    if (!existing && std::find(refs.begin(), refs.end(), name) != refs.end()) existing = name;
    return existing;
  }

  // The first object of a branch scope: its fork (now or deferred), reuse or refusal; returns
  // the op planned (nothing when none was).
  std::optional<PlanOp> plan_fork(const model::ObjectManifest& m, uint32_t caps) {
    const std::string& key = m.key;
    auto& be = cx.backend(m.kind);
    std::vector<std::string> refs;
    try {
      refs = be.list_working_refs(m.locator, key);
    } catch (const std::exception& e) {
      plan.actions.push_back({PlanOp::Refuse, key, m.kind, name,
                              "could not list branches (" + std::string(e.what()) + "); whether " + name +
                                  " exists is unknown and a fork would reset it blind"});
      return PlanOp::Refuse;
    }
    const auto existing = existing_branch(key, refs);
    std::optional<Json> head;
    if (existing) {
      try {
        head = be.fingerprint(m.locator, *existing, key);
      } catch (const std::exception& e) {
        plan.actions.push_back({PlanOp::Refuse, key, m.kind, *existing,
                                *existing + " exists but its head could not be read (" + e.what() +
                                    "); a fork would reset it blind"});
        return PlanOp::Refuse;
      }
    }
    Json source;
    std::string detail;
    bool durable = false;
    if (m.pin && (caps & sdk::kPin)) {
      source = Json{{"pin", Json{{"id", m.pin->id}, {"ref", m.pin->ref}}}};
      detail = "from pin " + m.pin->ref;
      durable = true;
    } else if (caps & sdk::kAddressable) {
      source = Json{{"state", *m.state}};
      detail = "from recorded state " + model::short_state(*m.state) + " (no pin)";
    } else {
      plan.notes.push_back(key + ": no pin and not addressable; cannot fork");
      return std::nullopt;
    }
    if (existing && be.same(*head, *m.state)) {
      std::string at = m.pin ? "pin " + m.pin->ref : model::short_state(*m.state);
      plan.actions.push_back({PlanOp::Reuse, key, m.kind, *existing, "already at " + at + "; kept", Json{{"then_state", *head}}});
      require_head(key, *existing, *head);
      return PlanOp::Reuse;
    }
    Json params{{"source", source}, {"state", *m.state}};
    if (existing) {
      params["existing"] = *existing;
      params["head"] = *head;
      detail += "; resets " + *existing;
      const auto& ws = *cx.workspace;
      auto known = [&](const std::map<std::string, Json>& table) {
        auto it = table.find(key);
        return it != table.end() && be.same(it->second, *head);
      };
      bool writes = !known(ws.base_states) && !be.same(*m.state, *head) && !known(ws.fork_points);
      if (writes && !opt.discard) {
        plan.actions.push_back({PlanOp::Refuse, key, m.kind, *existing,
                                *existing + " has writes since this workspace last committed (" +
                                    model::short_state(*head) + "); commit them, or pass --discard to throw them away"});
        return PlanOp::Refuse;
      }
      if (writes) detail += ", discarding its writes (" + model::short_state(*head) + ")";
    }
    PlanOp op;
    if (eager || !durable) {
      op = PlanOp::Fork;
      if (!durable && !eager) detail += "; forked now so the state cannot expire";
      if (existing)
        require_head(key, *existing, *head);
      else
        plan.preconditions.push_back({"ref_absent", nullptr, key, Json{{"ref", name}},
                                      "new " + key + ": " + name + " exists since the plan was made; re-run the plan"});
    } else {
      op = PlanOp::DeferFork;
      detail += "; created on first writable open";
    }
    plan.actions.push_back({op, key, m.kind, existing.value_or(name), detail, params});
    return op;
  }

  void require_head(const std::string& key, const std::string& ref, const Json& head) {
    plan.preconditions.push_back({"ref_head", head, key, Json{{"ref", ref}},
                                  "new " + key + ": " + ref + " moved since the plan was made (" +
                                      model::short_state(head) + " -> {observed}); re-run the plan"});
  }
};

static Plan plan_new(Context& cx, const NewOptions& opt) { return NewPlanner(cx, opt).run(); }

// Applying a `new` plan, stage by stage: refuse what the plan refused, journal the start,
// move the VCS, then either keep the working branches (--keep) or decide them anew: assign
// trunk, reused and pending branches, fork concurrently, let shares follow their first key,
// settle the base states and cached fingerprints; then end the journal entry and report. A
// stage that throws ends the entry as failed (forks that failed end it with what was forked).
struct NewApplier {
  Context& cx;
  const Plan& plan;
  std::optional<std::string> bookmark, rev;
  bool create = false, keep = false;
  OpLog oplog;
  std::string op_id;
  bool ended = false;  // the journal entry is closed
  NewResult res;
  std::vector<std::string> created, reset, reused, failed;
  std::vector<const PlanAction*> forks;  // the forks to make now
  std::vector<std::string> fork_errors;

  NewApplier(Context& r, const Plan& p) : cx(r), plan(p), oplog(op_log(r)) {}

  // The workspace as reloaded after the VCS moved.
  model::Workspace& ws() { return *cx.workspace; }

  NewResult run() {
    refuse_refusals();
    read_context();
    begin_journal();
    res.plan = plan;
    res.kept = keep;
    try {
      move_vcs();
      reload(cx);
      ws().bookmark = bookmark;
      if (keep) {
        keep_branches();
      } else {
        assign_branches();
        fork_branches();
        follow_shares();
        settle_workspace();
        if (!fork_errors.empty()) fail_forks();
      }
      write_workspace(cx);
    } catch (const std::exception& e) {
      if (!ended) oplog.end(op_id, Json{{"failed", e.what()}});
      throw;
    }
    end_journal();
    report();
    return std::move(res);
  }

  void refuse_refusals() {
    std::vector<std::string> refusals;
    bool all_keyed = true;
    for (const auto& a : plan.actions)
      if (a.op == PlanOp::Refuse) {
        refusals.push_back(a.key.empty() ? a.detail : a.key + ": " + a.detail);
        if (a.key.empty()) all_keyed = false;
      }
    if (!refusals.empty()) {
      if (all_keyed) throw TetherError("refusing to reset working branches with unpinned writes:\n  " + join(refusals, "\n  "));
      throw TetherError(join(refusals, "; "));
    }
  }

  void read_context() {
    const NewPayload ctx = NewPayload::from(plan);
    bookmark = ctx.bookmark;
    rev = ctx.rev;
    create = ctx.create;
    keep = ctx.keep;
  }

  void begin_journal() {
    Json heads = Json::object();
    for (const auto& a : plan.actions)
      if (a.params.contains("head")) heads[a.key] = a.params["head"];
    op_id = oplog.begin(
        "new", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}, {"vcs", vcs_position(cx)}, {"heads", heads}},
        cx.op_parent);
  }

  // The VCS first: the manifests there are what the forks start from.
  void move_vcs() {
    auto& vcs = *cx.vcs;
    if (create) vcs.new_bookmark(*bookmark, rev);
    else if (rev) vcs.switch_to(*rev);
    else if (bookmark && vcs.current_bookmark() != bookmark && vcs.bookmarks().count(*bookmark))
      vcs.switch_to(*bookmark);
  }

  // --keep: the working branches stay; their bases become the manifests' states here.
  void keep_branches() {
    auto& w = ws();
    for (const auto* table : {&w.working_refs, &w.pending_forks})
      for (const auto& [k, r] : *table)
        if (auto m = cx.manifests.find(k); m != cx.manifests.end() && m->second.state) w.base_states[k] = *m->second.state;
  }

  // Every registered key's branch decided anew: trunk and reused branches set, forks pending
  // (written down before forking: a crash while forking leaves them pending, not lost).
  void assign_branches() {
    auto& w = ws();
    const auto& manifests = cx.manifests;
    // Refs of keys not registered here stay (gc finds them); everything else is decided anew.
    const std::map<std::string, std::string> previous = w.working_refs;
    std::map<std::string, std::string> kept;
    for (const auto& [k, r] : w.working_refs)
      if (!manifests.count(k)) kept[k] = r;
    w.working_refs = kept;
    w.pending_forks.clear();
    w.pending_resets.clear();
    for (auto it = w.fork_points.begin(); it != w.fork_points.end();)
      it = manifests.count(it->first) ? w.fork_points.erase(it) : std::next(it);
    for (auto it = w.base_states.begin(); it != w.base_states.end();)
      it = manifests.count(it->first) ? w.base_states.erase(it) : std::next(it);
    for (const auto& a : plan.actions) {
      if (a.op == PlanOp::Trunk) {
        // The cached fingerprint was of the branch the key worked on until now.
        if (auto old = previous.find(a.key); old == previous.end() || old->second != a.target) w.last_snapshot.erase(a.key);
        w.working_refs[a.key] = a.target;
      } else if (a.op == PlanOp::Reuse) {
        w.working_refs[a.key] = a.target;
        w.fork_points[a.key] = manifests.at(a.key).state.value_or(Json(nullptr));
        reused.push_back(a.key);
      } else if (a.op == PlanOp::Fork || a.op == PlanOp::DeferFork) {
        w.pending_forks[a.key] = a.target;
        if (a.params.contains("head")) w.pending_resets[a.key] = a.params["head"];
        if (a.op == PlanOp::Fork) forks.push_back(&a);
      }
    }
    for (const auto& [k, r] : w.pending_forks)
      if (auto m = manifests.find(k); m != manifests.end() && m->second.state) w.base_states[k] = *m->second.state;
    write_workspace(cx);  // interim
  }

  // The forks, concurrently; each one made is recorded and journaled, each failure kept.
  void fork_branches() {
    auto results = fan_out<std::string>(forks.size(), [&](std::size_t i) {
      const PlanAction& a = *forks[i];
      const auto& m = cx.manifests.at(a.key);
      sdk::Source source = a.params["source"].get<sdk::Source>();
      if (source.kind == sdk::Source::Kind::Pin) source = checked_source(cx, m);
      sdk::Expected expected = a.params.contains("head") ? sdk::Expected::at(a.params["head"]) : sdk::Expected::absent();
      return cx.backend(a.kind).fork(m.locator, source, a.target, expected, a.key);
    });
    auto& w = ws();
    for (std::size_t i = 0; i < forks.size(); ++i) {
      const PlanAction& a = *forks[i];
      if (!results[i].ok()) {
        failed.push_back(a.key);
        fork_errors.push_back(results[i].keyed(a.key));
        continue;
      }
      w.working_refs[a.key] = *results[i].value;
      record_touched(cx, a.key, a.kind, cx.manifests.at(a.key).locator);
      w.pending_forks.erase(a.key);
      w.pending_resets.erase(a.key);
      w.fork_points[a.key] = cx.manifests.at(a.key).state.value_or(Json(nullptr));
      (a.params.contains("existing") ? reset : created).push_back(a.key);
      oplog.progress(op_id, Json{{"action", "fork"}, {"key", a.key}, {"ref", *results[i].value}});
    }
  }

  // Shares follow the first key of their branch.
  void follow_shares() {
    auto& w = ws();
    for (const auto& a : plan.actions) {
      if (a.op != PlanOp::Share) continue;
      std::string with = a.params["with"].get<std::string>();
      if (auto it = w.working_refs.find(with); it != w.working_refs.end()) {
        w.working_refs[a.key] = it->second;
        w.fork_points[a.key] = a.params["state"];
      } else if (auto p = w.pending_forks.find(with); p != w.pending_forks.end()) {
        w.pending_forks[a.key] = p->second;
      }
      w.base_states[a.key] = a.params["state"];
    }
  }

  // Base states off the trunk, and the cached fingerprints: what the branches hold now is
  // what the manifests record (a reset or pending fork starts there).
  void settle_workspace() {
    auto& w = ws();
    const auto& manifests = cx.manifests;
    for (const auto& [k, r] : w.working_refs)
      if (auto m = manifests.find(k); m != manifests.end() && m->second.state && bookmark != cx.config.trunk())
        w.base_states[k] = *m->second.state;
    for (const auto& a : plan.actions)
      if (a.op == PlanOp::Fork || a.op == PlanOp::DeferFork || a.op == PlanOp::Reuse || a.op == PlanOp::Share)
        if (auto m = manifests.find(a.key); m != manifests.end() && m->second.state) w.set_snapshot(a.key, *m->second.state);
    write_workspace(cx);
  }

  // Some forks failed: the entry ends with what was forked, and the error says how to go on.
  [[noreturn]] void fail_forks() {
    oplog.end(op_id, Json{{"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)}, {"created", created},
                          {"reset", reset}, {"failed", failed}});
    ended = true;
    throw TetherError("could not fork working refs for " + join(failed) + " (" +
                      std::to_string(created.size() + reset.size()) + " of " + std::to_string(forks.size()) +
                      " forked and recorded; run `new` again -- it resets those branches too, so do not write to "
                      "them first) (" + join(fork_errors, "; ") + ")");
  }

  void end_journal() {
    const model::Workspace& w = ws();
    oplog.end(op_id, Json{{"vcs", vcs_position(cx)},
                          {"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
                          {"created_bookmark", create},
                          {"created", created},
                          {"reset", reset},
                          {"reused", reused},
                          {"working_refs", w.working_refs},
                          {"pending_forks", w.pending_forks},
                          {"failed", failed}});
  }

  void report() {
    const model::Workspace& w = ws();
    res.applied = true;
    res.bookmark = bookmark;
    res.trunk = bookmark && *bookmark == cx.config.trunk();
    res.working_refs = w.working_refs;
    res.pending_forks = w.pending_forks;
    res.fork_points = w.fork_points;
    for (const auto& [k, r] : w.working_refs)
      if (!cx.manifests.count(k)) res.unregistered.push_back(k);
  }
};

static NewResult apply_new(Context& cx, const Plan& plan) { return NewApplier(cx, plan).run(); }

Json NewResult::to_json() const {
  Json fps = Json::object();
  for (const auto& [k, v] : fork_points) fps[k] = v;
  return Json{{"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
              {"working_refs", working_refs},
              {"pending_forks", pending_forks},
              {"fork_points", fps}};
}

// What `tether ops` says of a new (ops.cpp's table).
std::string summarize_new(const OpEntry& e) {
  const Json& r = e.result;
  std::vector<std::string> parts;
  auto part = [&](const char* label, const std::vector<std::string>& keys) {
    if (!keys.empty()) parts.push_back(std::string(label) + " " + join(keys));
  };
  part("forked", names_of(r.value("created", Json::array())));
  part("reset", names_of(r.value("reset", Json::array())));
  part("kept", names_of(r.value("reused", Json::array())));
  part("deferred", names_of(r.value("pending_forks", Json::object())));
  std::string s = parts.empty() ? "working refs unchanged" : join(parts, "; ");
  std::string at = str_of(r, "bookmark");
  if (at.empty()) at = str_of(r.value("vcs", Json::object()), "commit").substr(0, 12);
  if (!at.empty()) s += "; at " + at;
  if (r.contains("failed") && !r["failed"].empty())
    s += "; failed " + (r["failed"].is_string() ? r["failed"].get<std::string>() : join(names_of(r["failed"])));
  return s;
}

}  // namespace tether::engine
