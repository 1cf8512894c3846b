// core/src/engine/promote.cpp: `tether promote` (docs/cli.md; docs/security.md#promote). Lands
// a bookmark's working branches on their base branches: a fast-forward where the base has not
// moved since the fork, a native merge where the backend has one, otherwise a refusal with the
// backend's hint. A bookmark (or the named keys) lands whole or not at all: every backend is
// asked before the first move whether it would refuse (promote_blockers), and one refusal
// holds every other move; a move that still fails at apply time sends the landed ones back
// (rewind). Every move is conditional on the base head the plan reviewed. The journal holds
// the plan and a record before each move, so repair finishes (apply_promote with `resume`) and
// undo reverses a promote a kill interrupted. When everything landed, the trunk bookmark moves
// to the bookmark's commit.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/promote.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

static Plan plan_promote(Context& cx, const PromoteOptions& opt);
static Plan rederive_promote(Context& cx, const Plan& saved);

namespace {

Json without_at(Json locator) {
  locator.erase("at");
  return locator;
}

std::string source_ref_label(const Json& source) {
  if (source.contains("ref")) return source["ref"].get<std::string>();
  if (source.contains("pin")) return source["pin"].value("ref", std::string("a pin"));
  return "state " + model::short_state(source.value("state", Json::object()));
}

// What a journaled promote says about one key: the state its base landed on, if recorded.
std::optional<Json> landed_state(const OpEntry& e, const std::string& key) {
  for (const auto& p : e.progress) {
    std::string action = p.value("action", std::string());
    if ((action == "fast-forward" || action == "merge") && p.value("key", std::string()) == key && p.contains("state"))
      return p["state"];
  }
  return std::nullopt;
}

// What a promote plan decided (its context): the options it was planned with (revision,
// strategy, message, the keys named), the manifests, checkout and bookmark commit it was made
// against, and the keys whose base was already at the target.
struct PromotePayload {
  std::optional<std::string> rev;
  std::string strategy, message;
  std::vector<std::string> subset;
  std::string manifest_hash, workspace_id;
  std::optional<std::string> bookmark, bookmark_commit;
  std::vector<std::string> current;

  bool operator==(const PromotePayload&) const = default;
  Json to_json() const {
    return Json{{"rev", string_or_null(rev)},
                {"strategy", strategy},
                {"message", message},
                {"subset", subset},
                {"manifest_hash", manifest_hash},
                {"workspace_id", workspace_id},
                {"bookmark", string_or_null(bookmark)},
                {"bookmark_commit", string_or_null(bookmark_commit)},
                {"current", current}};
  }
  static PromotePayload from(const Plan& plan) {
    const ContextReader c{plan.context, "promote"};
    PromotePayload p;
    p.rev = c.string_or_null("rev");
    p.strategy = c.string("strategy");
    p.message = c.string("message");
    p.subset = c.strings("subset");
    p.manifest_hash = c.string("manifest_hash");
    p.workspace_id = c.string("workspace_id");
    p.bookmark = c.string_or_null("bookmark");
    p.bookmark_commit = c.string_or_null("bookmark_commit");
    p.current = c.strings("current");
    return p;
  }
};

}  // namespace

PromoteReport promote(Repo& repo, const PromoteOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  if (opt.saved) return apply_promote(cx, rederive_promote(cx, *opt.saved));
  return run_planned<PromoteReport>(
      std::nullopt, opt.dry_run, [&](const Plan& p) { check_preconditions(cx, p); }, [&] { return plan_promote(cx, opt); },
      [&](const Plan& p) { return apply_promote(cx, p); });
}

// A saved plan's digest catches accidents, not edits: anyone can recompute it. So a saved
// promote plan is only a request -- its options (keys, revision, strategy, message) are
// planned again here, and what is applied is the fresh plan, after checking that it makes
// exactly the moves the saved one showed (the same objects, locators, sources and reviewed
// states). A fresh plan that moves nothing (now refused, say) is applied as it is: it
// reports why and touches nothing.
static Plan rederive_promote(Context& cx, const Plan& saved) {
  check_preconditions(cx, saved);
  const PromotePayload ctx = PromotePayload::from(saved);
  PromoteOptions o;
  o.keys = ctx.subset;
  o.rev = ctx.rev;
  o.strategy = ctx.strategy;
  o.message = ctx.message;
  Plan fresh = plan_promote(cx, o);
  if (fresh.writes() == 0) return fresh;
  auto moves = [](const Plan& p) {
    Json out = Json::array();
    for (const auto& a : p.actions)
      out.push_back(Json{{"op", std::string(op_name(a.op))}, {"key", a.key}, {"kind", a.kind}, {"target", a.target}, {"params", a.params}});
    return out;
  };
  Json want = moves(saved), have = moves(fresh);
  if (want != have || !(ctx == PromotePayload::from(fresh))) {
    std::string where = "its context";
    for (std::size_t i = 0; i < std::max(want.size(), have.size()); ++i)
      if (i >= want.size() || i >= have.size() || want[i] != have[i]) {
        const Json& a = i < have.size() ? have[i] : want[i];
        where = a.value("key", std::string()).empty() ? "action " + std::to_string(i + 1) : "'" + a.value("key", std::string()) + "'";
        break;
      }
    throw StalePlanError("the saved promote plan does not match what promote plans now (" + where +
                         " differs); re-run the plan and review it again");
  }
  return fresh;
}

// Planning a promote, stage by stage: what is promoted (the dataset, the bookmark, the keys),
// the heads of every base and working branch, one move (or refusal) per object, then the
// whole-plan rules: shared bases, shared writes, the backends' preflight, the trunk guard, and
// whole-or-nothing.
struct PromotePlanner {
  struct Probe {
    std::optional<Json> base, target;
  };
  // What one object's move starts from: its source, the state it lands, the recorded fork point.
  struct Start {
    Json source, target_state, fork_point = nullptr;
  };

  Context& cx;
  const PromoteOptions& opt;
  Plan plan;
  std::map<std::string, model::ObjectManifest> objects;    // at --rev, else the working tree's
  std::map<std::string, model::ObjectManifest> committed;  // what the bookmark's commit records
  std::string trunk;
  std::optional<std::string> bookmark, bookmark_commit;
  std::map<std::string, std::string> bookmarks;
  bool on_trunk = false;
  std::vector<std::string> selected;  // the keys planned, sorted
  std::map<std::string, Probe> probes;
  PromotePayload ctx;  // the plan's context, written once its `current` keys are known

  PromotePlanner(Context& r, const PromoteOptions& o) : cx(r), opt(o) {}

  Plan run() {
    if (opt.strategy != "auto" && opt.strategy != "ff" && opt.strategy != "merge")
      throw ConfigError("unknown promote strategy '" + opt.strategy + "' (auto, ff, merge)");
    objects = opt.rev ? manifests_at(cx, *opt.rev) : cx.manifests;
    for (const auto& k : opt.keys)
      if (!objects.count(k)) throw ConfigError("no such object: " + k);
    begin_plan();
    select();
    probe_heads();
    for (const auto& key : selected) plan_object(key);
    plan.context = ctx.to_json();
    refuse_shared_bases();
    collapse_shared_writes();
    preflight();
    if (trunk_would_lose_commits()) return std::move(plan);
    hold_all_if_any_refused();
    return std::move(plan);
  }

  // The context and the dataset-wide preconditions.
  void begin_plan() {
    plan.command = "promote";
    plan.created_at = now_iso_seconds(cx);
    const auto& ws = *cx.workspace;
    trunk = cx.config.trunk();
    bookmark = ws.bookmark;
    on_trunk = !bookmark || *bookmark == trunk;
    bookmarks = cx.vcs->bookmarks();
    if (bookmark)
      if (auto it = bookmarks.find(*bookmark); it != bookmarks.end()) bookmark_commit = it->second;
    const std::string message = opt.message.value_or("tether promote " + (opt.rev ? *opt.rev : ws.short_id()));
    const std::string mhash = model::manifest_hash(objects);
    ctx = PromotePayload{opt.rev, opt.strategy, message, opt.keys, mhash, ws.workspace_id, bookmark, bookmark_commit, {}};
    const std::string here = bookmark ? *bookmark : "no bookmark";
    plan.preconditions.push_back({"workspace_id", ws.workspace_id, "", Json::object(),
                                  "this promote plan was made in another checkout; re-run the plan here"});
    plan.preconditions.push_back({"workspace_bookmark", bookmark ? Json(*bookmark) : Json(nullptr), "", Json::object(),
                                  "this promote plan was made on " + here + "; the checkout is on {observed} now; re-run the plan"});
    plan.preconditions.push_back({"bookmark_head", bookmark_commit ? Json(*bookmark_commit) : Json(nullptr), "",
                                  Json{{"bookmark", bookmark.value_or("")}},
                                  "bookmark " + here + " moved since the promote plan was made (now at {observed}); re-run the plan"});
    plan.preconditions.push_back({"manifest_hash", mhash, "", opt.rev ? Json{{"rev", *opt.rev}} : Json::object(),
                                  "manifests changed since the promote plan was made; re-run the plan"});
  }

  // The keys to plan, and what the bookmark's commit records for them (a manifest edited
  // since the commit is not what is promoted).
  void select() {
    committed = objects;
    if (!opt.rev && bookmark_commit) {
      try {
        committed = manifests_at(cx, *bookmark_commit);
      } catch (const std::exception&) {
      }
    }
    selected = opt.keys;
    if (selected.empty())
      for (const auto& entry : objects) selected.push_back(entry.first);
    std::sort(selected.begin(), selected.end());
  }

  // The base head and working-branch head of every forkable object, read concurrently.
  void probe_heads() {
    std::vector<std::string> keys;
    if (!on_trunk)
      for (const auto& k : selected) {
        try {
          if (cx.effective_capabilities(objects.at(k)) & sdk::kFork) keys.push_back(k);
        } catch (const std::exception&) {
        }
      }
    auto probed = fan_out<Probe>(keys.size(), [&](std::size_t i) {
      const auto& m = objects.at(keys[i]);
      auto& b = cx.backend(m.kind);
      Probe p;
      p.base = b.fingerprint(without_at(m.locator), std::nullopt, m.key);
      if (!opt.rev)
        if (auto ref = working_ref(cx, m.key)) p.target = b.fingerprint(m.locator, *ref, m.key);
      return p;
    });
    std::vector<std::string> errors;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (probed[i].ok()) probes[keys[i]] = *probed[i].value;
      else errors.push_back(probed[i].keyed(keys[i]));
    }
    if (!errors.empty()) throw TetherError("promote: could not read branch heads (" + join(errors, "; ") + ")");
  }

  // One object: a note (nothing to do), a refusal, or a fast-forward / merge with the
  // preconditions that bind it to the heads reviewed.
  void plan_object(const std::string& key) {
    const auto& m = objects.at(key);
    auto& b = cx.backend(m.kind);
    const uint32_t caps = cx.effective_capabilities(m);
    if (!(caps & sdk::kFork)) {
      plan.notes.push_back(key + ": not forkable; nothing to promote");
      return;
    }
    if (on_trunk) {
      plan.notes.push_back(key + ": on trunk; already on the base branch");
      return;
    }
    auto start = opt.rev ? start_at_rev(m) : start_on_branch(m);
    if (!start) return;
    const Json base = probes.count(key) ? *probes[key].base : b.fingerprint(without_at(m.locator), std::nullopt, key);
    if (b.same(start->target_state, base)) {
      plan.notes.push_back(key + ": base already at the target");
      ctx.current.push_back(key);  // its base is already at the target
      return;
    }
    if (!plan_move(m, caps, *start, base)) return;
    plan.preconditions.push_back({"base_state", base, key, Json{{"locator", without_at(m.locator)}},
                                  "'" + key + "': base branch moved since the plan was made (" + model::short_state(base) +
                                      " -> {observed}); re-run the plan"});
    const Json& source = start->source;
    if (source.contains("pin"))
      plan.preconditions.push_back({"pin_state", start->target_state, key, Json{{"pin", source["pin"]}},
                                    "promote " + key + ": pin " + source["pin"].value("ref", std::string()) +
                                        " no longer names the reviewed state ({observed}); re-run the plan"});
    else if (source.contains("ref"))
      plan.preconditions.push_back({"ref_head", start->target_state, key, Json{{"ref", source["ref"]}},
                                    "promote " + key + ": " + source["ref"].get<std::string>() +
                                        " moved since the plan was made (" + model::short_state(start->target_state) +
                                        " -> {observed}); re-run the plan"});
  }

  // promote --rev: the state committed there, from its pin (or the recorded state).
  std::optional<Start> start_at_rev(const model::ObjectManifest& m) {
    if (!m.state) {
      plan.notes.push_back(m.key + ": nothing committed at " + *opt.rev);
      return std::nullopt;
    }
    Start s;
    try {
      s.source = checked_source(cx, m);
    } catch (const PinDriftError& e) {
      plan.actions.push_back({PlanOp::Refuse, m.key, m.kind, "", e.bare_message()});
      return std::nullopt;
    } catch (const BackendError& e) {
      plan.notes.push_back(m.key + ": not recoverable at " + *opt.rev + " (" + e.bare_message() + ")");
      return std::nullopt;
    }
    s.target_state = *m.state;
    return s;
  }

  // promote (a bookmark): the working branch's head, which must be what was committed.
  std::optional<Start> start_on_branch(const model::ObjectManifest& m) {
    const std::string& key = m.key;
    auto ref = working_ref(cx, key);
    const Probe& pr = probes[key];
    if (!ref || !pr.target) {
      plan.notes.push_back(key + ": no working branch yet; nothing to promote");
      return std::nullopt;
    }
    auto c = committed.find(key);
    if (c == committed.end() || !c->second.state) {
      plan.notes.push_back(key + ": nothing committed on this bookmark yet; commit first");
      return std::nullopt;
    }
    if (!cx.backend(m.kind).same(*pr.target, *c->second.state)) {
      plan.actions.push_back({PlanOp::Refuse, key, m.kind, *ref,
                              *ref + " has writes since the last commit (" + model::short_state(*c->second.state) +
                                  " committed, " + model::short_state(*pr.target) + " on the branch); `tether commit` them first"});
      return std::nullopt;
    }
    Start s;
    s.source = Json{{"ref", *ref}};
    s.target_state = *pr.target;
    const auto& fps = cx.workspace->fork_points;
    if (auto fp = fps.find(key); fp != fps.end()) s.fork_point = fp->second;
    return s;
  }

  // The move for one object, by strategy and what its backend can do; false when refused.
  bool plan_move(const model::ObjectManifest& m, uint32_t caps, const Start& s, const Json& base) {
    const std::string& key = m.key;
    auto& b = cx.backend(m.kind);
    const sdk::Source src = s.source.get<sdk::Source>();
    std::optional<bool> unchanged = b.ancestor_of(m.locator, base, src, key);
    if (!unchanged && !s.fork_point.is_null()) unchanged = b.same(s.fork_point, base);
    const std::string base_label = b.base_branch(without_at(m.locator), key);
    const bool can_ff = caps & sdk::kPromote;
    const bool can_merge = (caps & sdk::kMerge) && !s.source.contains("state");
    Json params{{"locator", without_at(m.locator)}, {"source", s.source},         {"base_state", base},
                {"target_state", s.target_state},    {"fork_point", s.fork_point}};
    if (unchanged == true && opt.strategy != "merge" && can_ff) {
      plan.actions.push_back({PlanOp::FastForward, key, m.kind, base_label,
                              base_label + " " + model::short_state(base) + " -> " + model::short_state(s.target_state) +
                                  " (base unchanged since fork)",
                              params});
      return true;
    }
    if (can_merge && opt.strategy != "ff" && (unchanged != true || !can_ff || opt.strategy == "merge")) {
      std::string why = unchanged == true    ? "base unchanged since fork"
                        : unchanged == false ? "base moved since fork"
                                             : "no fork point recorded; ancestry unknown";
      plan.actions.push_back({PlanOp::Merge, key, m.kind, base_label,
                              "merge " + source_ref_label(s.source) + " into " + base_label + " (" + why + ")", params});
      return true;
    }
    std::string reason;
    if (unchanged == true) {
      reason = opt.strategy == "merge" ? "strategy=merge but the backend cannot merge"
                                       : "the " + m.kind + " backend cannot move a branch";
    } else if (unchanged == false) {
      reason = base_label + " moved since the fork (" + (s.fork_point.is_null() ? "?" : model::short_state(s.fork_point)) +
               " -> " + model::short_state(base) + ")" +
               ((opt.strategy == "ff" && (caps & sdk::kMerge)) ? " and strategy=ff" : " and the backend cannot merge");
    } else {
      reason = "cannot tell whether the base moved (no fork point recorded)";
    }
    const std::string hint = b.description().promote_hint;
    if (!hint.empty()) reason += "; " + hint;
    plan.actions.push_back({PlanOp::Refuse, key, m.kind, base_label, reason, params});
    return false;
  }

  static bool is_move(const PlanAction& a) { return a.op == PlanOp::FastForward || a.op == PlanOp::Merge; }

  // Naming keys: a base branch another (unnamed) object shares would land for it too.
  void refuse_shared_bases() {
    if (opt.keys.empty()) return;
    std::set<std::string> named(opt.keys.begin(), opt.keys.end());
    for (auto& a : plan.actions) {
      if (!is_move(a)) continue;
      const auto& m = objects.at(a.key);
      auto& b = cx.backend(m.kind);
      std::string scope = b.branch_scope(m.locator, a.key), base = b.base_branch(without_at(m.locator), a.key);
      std::vector<std::string> others;
      for (const auto& [k, o] : objects) {
        if (named.count(k) || o.kind != m.kind) continue;
        try {
          if (b.branch_scope(o.locator, k) == scope && b.base_branch(without_at(o.locator), k) == base) others.push_back(k);
        } catch (const std::exception&) {
        }
      }
      if (others.empty()) continue;
      std::vector<std::string> all(named.begin(), named.end());
      all.insert(all.end(), others.begin(), others.end());
      std::sort(all.begin(), all.end());
      a.detail = base + " is also " + join(others) + "'s base branch; landing " + a.key +
                 " alone would land theirs too -- name them: `tether promote " + join(all, " ") + "`";
      a.op = PlanOp::Refuse;
    }
  }

  // Same (kind, scope, base) writes collapse onto the first.
  void collapse_shared_writes() {
    std::map<std::string, std::pair<std::string, PlanOp>> first_write;  // scope id -> (key, op)
    for (auto& a : plan.actions) {
      if (!is_move(a)) continue;
      const auto& m = objects.at(a.key);
      auto& b = cx.backend(m.kind);
      std::string id = m.kind + "\n" + b.branch_scope(m.locator, a.key) + "\n" + b.base_branch(without_at(m.locator), a.key);
      auto [it, fresh] = first_write.emplace(id, std::make_pair(a.key, a.op));
      if (fresh) continue;
      a.params["with"] = it->second.first;
      a.params["would"] = std::string(op_name(a.op));
      a.detail = "same branch as " + it->second.first + ": " + std::string(op_name(it->second.second)) + " once, for both";
      a.op = PlanOp::Share;
    }
  }

  // Every object the plan moves is asked, before the first move, whether its backend would
  // refuse it now (a dirty checkout of the base, a conflicting merge, an interrupted move not
  // yet repaired, ...). A refusal here holds every other move (hold_all_if_any_refused).
  void preflight() {
    std::vector<PlanAction*> moves;
    for (auto& a : plan.actions)
      if (is_move(a)) moves.push_back(&a);
    auto blockers = fan_out<sdk::LandingBlocker>(moves.size(), [&](std::size_t i) {
      const PlanAction& a = *moves[i];
      return cx.backend(a.kind).promote_blockers(a.params["locator"], a.params["source"].get<sdk::Source>(),
                                                   a.op == PlanOp::Merge, sdk::Expected::at(a.params["base_state"]), a.key);
    });
    for (std::size_t i = 0; i < moves.size(); ++i) {
      PlanAction& a = *moves[i];
      std::string why;
      std::vector<std::string> conflicts;
      if (!blockers[i].ok()) {
        why = "cannot tell whether " + a.target + " can move (" + blockers[i].message() + ")";
      } else if (blockers[i].value->blocker) {
        why = *blockers[i].value->blocker;
        conflicts = blockers[i].value->conflicts;
      } else {
        continue;
      }
      a.op = PlanOp::Refuse;
      a.detail = why;
      if (!conflicts.empty()) a.params["conflicts"] = conflicts;
    }
    // A share whose first key is refused is refused with it.
    std::map<std::string, std::string> refused_why;
    for (const auto& a : plan.actions)
      if (a.op == PlanOp::Refuse) refused_why[a.key] = a.detail;
    for (auto& a : plan.actions)
      if (a.op == PlanOp::Share)
        if (auto it = refused_why.find(a.params.value("with", std::string())); it != refused_why.end()) {
          a.op = PlanOp::Refuse;
          a.detail = "same branch as " + it->first + ": " + it->second;
        }
  }

  std::vector<std::string> refused_keys() const {
    std::vector<std::string> refused;
    for (const auto& a : plan.actions)
      if (a.op == PlanOp::Refuse) refused.push_back(a.key);
    return refused;
  }

  // A full promotion moves the trunk: everything is refused when that would drop trunk commits.
  bool trunk_would_lose_commits() {
    const bool full = opt.keys.empty() && !opt.rev && !on_trunk;
    if (!full || !refused_keys().empty() || !bookmark_commit) return false;
    auto t = bookmarks.find(trunk);
    if (t == bookmarks.end() || cx.vcs->is_ancestor(t->second, *bookmark_commit)) return false;
    const std::string why = trunk + " (" + t->second.substr(0, 12) + ") has commits this bookmark (" + *bookmark + " at " +
                            bookmark_commit->substr(0, 12) + ") does not; landing would move " + trunk +
                            " backwards or sideways and drop them. Merge or rebase the manifests onto " + trunk +
                            " first, or name keys to land a subset (which never moves the trunk)";
    for (auto& a : plan.actions)
      if (Plan::is_write(a.op) || a.op == PlanOp::Share) {
        a.op = PlanOp::Refuse;
        a.detail = why;
      }
    if (plan.actions.empty()) plan.actions.push_back({PlanOp::Refuse, "", "", trunk, why});
    plan.notes.push_back("nothing moved: " + why);
    return true;
  }

  // Whole or nothing, for the named keys as for the whole bookmark.
  void hold_all_if_any_refused() {
    const auto refused = refused_keys();
    if (refused.empty()) return;
    for (auto& a : plan.actions) {
      if (a.op == PlanOp::Refuse) continue;
      a.detail = "would " + std::string(op_name(a.op)) + ": " + a.detail + "; held because " + join(refused) +
                 " refused, and a bookmark is planned whole or not at all";
      a.op = PlanOp::Hold;
    }
    plan.notes.push_back("nothing moved: " + join(refused) +
                         " refused; settle them (see the refusals) and promote again, or land the rest on purpose "
                         "with `tether promote KEY...` naming only the others");
  }
};

static Plan plan_promote(Context& cx, const PromoteOptions& opt) { return PromotePlanner(cx, opt).run(); }

// Applying a promote plan, stage by stage: sort the plan's decisions into the report, journal
// the whole plan, land the merges, then the fast-forwards (held when a merge did not land),
// rewind what landed when the rest did not, reset merged forks onto the merge result, let
// shares follow their first key, move the fork points, move the trunk, and end the journal
// entry. `resume` (repair finishing a promote a kill interrupted) reuses the entry, lets the
// bases decide each move, never rewinds, and leaves the entry open while anything failed.
struct PromoteApplier {
  Context& cx;
  const Plan& plan;
  const OpEntry* resume;
  const PromotePayload ctx;
  PromoteReport rep;
  std::vector<const PlanAction*> merges, ffs;
  bool any_writes = false;
  OpLog oplog;
  std::string op_id;

  PromoteApplier(Context& r, const Plan& p, const OpEntry* re)
      : cx(r), plan(p), resume(re), ctx(PromotePayload::from(p)), oplog(op_log(r)) {}

  PromoteReport run() {
    rep.plan = plan;
    sort_actions();
    begin_journal();
    land(merges, true);
    if (merge_blocked()) hold_fast_forwards();
    else land(ffs, false);
    if (incomplete() && !resume) rewind_landed();
    reset_merged_forks();
    follow_shares();
    move_fork_points();
    move_trunk();
    rep.applied = true;
    end_journal();
    return std::move(rep);
  }

  // The plan's refusals, holds and untouched keys into the report; the moves into merges and
  // fast-forwards.
  void sort_actions() {
    std::set<std::string> acted;
    for (const auto& a : plan.actions) {
      if (a.key.empty()) continue;
      acted.insert(a.key);
      if (a.op == PlanOp::Refuse) rep.refused[a.key] = a.detail;
      if (a.op == PlanOp::Refuse && a.params.contains("conflicts") && a.params["conflicts"].is_array())
        rep.conflicts[a.key] = a.params["conflicts"].get<std::vector<std::string>>();
      if (a.op == PlanOp::Hold) rep.held[a.key] = a.detail;
    }
    for (const auto& [k, m] : cx.manifests)
      if (!acted.count(k)) rep.skipped.push_back(k);
    for (const auto& a : plan.actions) {
      if (a.op == PlanOp::Merge) merges.push_back(&a);
      if (a.op == PlanOp::FastForward) ffs.push_back(&a);
    }
    any_writes = !merges.empty() || !ffs.empty();
  }

  // The whole plan goes into the journal before the first move: `repair` finishes from it
  // and `undo` reverses from it if this process dies half way. Resuming, the entry is the
  // interrupted one's.
  void begin_journal() {
    if (resume) {
      op_id = resume->id;
    } else if (any_writes) {
      Json bases = Json::object();
      for (const auto& a : plan.actions)
        if (a.params.contains("base_state")) bases[a.key] = a.params["base_state"];
      op_id = oplog.begin("promote", Json{{"workspace", model::workspace_to_toml(*cx.workspace)},
                                          {"base_states", bases},
                                          {"plan", plan.to_json()}});
    }
  }

  void record_error(const PlanAction& a, const std::exception& e) {
    if (auto* mc = dynamic_cast<const MergeConflict*>(&e)) {
      rep.conflicts[a.key] = mc->conflicts();
      rep.refused[a.key] = mc->bare_message();
    } else if (auto* rm = dynamic_cast<const RefMovedError*>(&e)) {
      rep.refused[a.key] = rm->bare_message() + "; re-run the plan";
    } else if (auto* be = dynamic_cast<const BackendError*>(&e)) {
      rep.failed[a.key] = be->bare_message();
    } else {
      rep.failed[a.key] = e.what();
    }
  }

  // One move, conditional on the reviewed base. Resuming an interrupted promote, what the
  // base holds now decides: the reviewed base -> the move runs now (from the reviewed state,
  // not from a ref that may have gained writes since); the move's result -> it had landed,
  // and the backend settles whatever the kill left half done; anything else -> failed.
  // Runs on the fan-out's threads.
  Json move(const PlanAction& a, bool merge) {
    auto& b = cx.backend(a.kind);
    const Json& loc = a.params["locator"];
    const Json& base = a.params["base_state"];
    const Json& target = a.params["target_state"];
    sdk::Source src = a.params["source"].get<sdk::Source>();
    if (resume) {
      src = sdk::Source::of_state(target);
      Json now = b.fingerprint(loc, std::nullopt, a.key);
      if (!b.same(now, base)) {
        std::optional<Json> landed = merge ? landed_state(*resume, a.key) : std::optional<Json>(target);
        bool here = landed ? b.same(now, *landed) : b.ancestor_of(loc, target, sdk::Source::of_state(now), a.key) == true;
        if (!here)
          throw TetherError(a.target + " is at " + model::short_state(now) + ", neither where the interrupted promote found it (" +
                            model::short_state(base) + ") nor where it was taking it; left as it is -- land it with " +
                            "`tether promote " + a.key + "` or by hand");
        if (merge) return b.merge(loc, src, ctx.message, sdk::Expected::at(now), a.key);
        return b.promote(loc, src, sdk::Expected::at(now), a.key);
      }
    }
    oplog.progress(op_id, Json{{"action", "landing"},
                               {"key", a.key},
                               {"kind", a.kind},
                               {"op", std::string(op_name(merge ? PlanOp::Merge : PlanOp::FastForward))},
                               {"from", base},
                               {"to", merge ? Json(nullptr) : target}});
    if (merge) return b.merge(loc, src, ctx.message, sdk::Expected::at(base), a.key);
    return b.promote(loc, src, sdk::Expected::at(base), a.key);
  }

  // The moves of one kind, concurrently; each result journaled or recorded as an error.
  void land(const std::vector<const PlanAction*>& actions, bool merge) {
    auto results = fan_out<Json>(actions.size(), [&](std::size_t i) { return move(*actions[i], merge); });
    for (std::size_t i = 0; i < actions.size(); ++i) {
      const PlanAction& a = *actions[i];
      if (results[i].ok()) {
        (merge ? rep.merged : rep.fast_forwarded)[a.key] = *results[i].value;
        oplog.progress(op_id, Json{{"action", merge ? "merge" : "fast-forward"}, {"key", a.key}, {"state", *results[i].value}});
        continue;
      }
      try {
        std::rethrow_exception(results[i].error);
      } catch (const std::exception& e) {
        record_error(a, e);
      }
    }
  }

  bool merge_blocked() const {
    for (const auto* a : merges)
      if (!rep.merged.count(a->key)) return true;
    return false;
  }

  // A merge did not land: the fast-forwards wait, the bookmark lands whole or not at all.
  void hold_fast_forwards() {
    std::vector<std::string> not_landed;
    for (const auto* a : merges)
      if (!rep.merged.count(a->key)) not_landed.push_back(a->key);
    for (const auto* a : ffs)
      rep.held[a->key] = "would fast-forward: held because the merge of " + join(not_landed) +
                         " did not land, and a bookmark lands whole or not at all";
  }

  bool incomplete() const {
    for (const auto* list : {&merges, &ffs})
      for (const auto* a : *list)
        if (!rep.merged.count(a->key) && !rep.fast_forwarded.count(a->key)) return true;
    return false;
  }

  // Every object was checked before the first move, so a move fails here only when
  // something changed in between: the moves that did land go back where the plan found
  // them (conditional on where they landed), and the bookmark stays whole or not at all.
  void rewind_landed() {
    for (const auto* list : {&merges, &ffs})
      for (const auto* a : *list) {
        auto& table = rep.merged.count(a->key) ? rep.merged : rep.fast_forwarded;
        auto it = table.find(a->key);
        if (it == table.end()) continue;
        const Json& base = a->params["base_state"];
        try {
          oplog.progress(op_id, Json{{"action", "rewinding"}, {"key", a->key}, {"from", it->second}, {"to", base}});
          cx.backend(a->kind).rewind(a->params["locator"], base, sdk::Expected::at(it->second), a->key);
          oplog.progress(op_id, Json{{"action", "rewind"}, {"key", a->key}, {"state", base}});
          rep.rolled_back[a->key] = "moved back to " + model::short_state(base) + " because the rest did not land";
          table.erase(it);
        } catch (const std::exception& e) {
          const auto* be = dynamic_cast<const BackendError*>(&e);
          rep.failed[a->key] = a->target + " landed at " + model::short_state(it->second) +
                               " but could not be moved back (" + (be ? be->bare_message() : std::string(e.what())) +
                               "); move it back by hand or promote the rest";
        }
      }
  }

  // A merged fork restarts from the merge result, so the next commit pins what landed.
  void reset_merged_forks() {
    for (const auto* a : merges) {
      auto it = rep.merged.find(a->key);
      if (it == rep.merged.end() || !a->params["source"].contains("ref")) continue;
      std::string ref = a->params["source"]["ref"].get<std::string>();
      try {
        auto& b = cx.backend(a->kind);
        if (resume && b.same(b.fingerprint(a->params["locator"], ref, a->key), it->second)) continue;  // done before the kill
        b.fork(a->params["locator"], sdk::Source::of_state(it->second), ref, sdk::Expected::at(a->params["target_state"]), a->key);
      } catch (const RefMovedError& e) {
        rep.kept_forks[a->key] = ref + " gained writes during the merge (" + e.bare_message() +
                                 "); left as it is -- commit them and promote again";
      } catch (const std::exception& e) {
        rep.kept_forks[a->key] = ref + " was not reset onto the merge result (" + std::string(e.what()) +
                                 "); left as it is -- the next commit pins it and promote merges again";
      }
    }
  }

  // Shares follow their first key.
  void follow_shares() {
    for (const auto& a : plan.actions) {
      if (a.op != PlanOp::Share) continue;
      std::string with = a.params.value("with", std::string());
      if (auto f = rep.fast_forwarded.find(with); f != rep.fast_forwarded.end()) rep.fast_forwarded[a.key] = f->second;
      else if (auto m = rep.merged.find(with); m != rep.merged.end()) rep.merged[a.key] = m->second;
      else if (auto r = rep.refused.find(with); r != rep.refused.end()) rep.refused[a.key] = r->second;
      else if (auto h = rep.held.find(with); h != rep.held.end()) rep.held[a.key] = h->second;
      else if (auto f2 = rep.failed.find(with); f2 != rep.failed.end()) rep.failed[a.key] = f2->second;
    }
  }

  // The moved bases are the new fork points.
  void move_fork_points() {
    auto& ws = *cx.workspace;
    for (const auto* table : {&rep.fast_forwarded, &rep.merged})
      for (const auto& [k, st] : *table) {
        if (ws.working_refs.count(k)) ws.fork_points[k] = st;
        ws.set_snapshot(k, st);
      }
    if (any_writes) write_workspace(cx);
  }

  // The trunk follows a bookmark that landed whole.
  void move_trunk() {
    const std::string trunk = cx.config.trunk();
    const std::optional<std::string>& bookmark = ctx.bookmark;
    bool landed_something = !rep.fast_forwarded.empty() || !ctx.current.empty();
    if (!(landed_something && bookmark && *bookmark != trunk && !ctx.rev && ctx.subset.empty() && rep.refused.empty() &&
          rep.held.empty() && rep.merged.empty() && rep.failed.empty() && rep.rolled_back.empty()))
      return;
    auto& vcs = *cx.vcs;
    std::string commit = ctx.bookmark_commit ? *ctx.bookmark_commit : vcs.head().value_or("");
    auto bms = vcs.bookmarks();
    auto t = bms.find(trunk);
    if (commit.empty() || (t != bms.end() && t->second == commit)) return;
    if (t != bms.end() && !vcs.is_ancestor(t->second, commit)) {
      rep.trunk_held = trunk + " moved to " + t->second.substr(0, 12) +
                       " since the plan; not moved backwards -- merge the manifests and promote again";
      return;
    }
    try {
      if (t == bms.end()) throw VcsError("bookmark '" + trunk + "' does not exist");
      if (!op_id.empty())
        oplog.progress(op_id, Json{{"action", "trunk-landing"}, {"bookmark", trunk}, {"from", t->second}, {"to", commit}});
      vcs.bookmark_set(trunk, commit, t->second);
      rep.trunk_moved = commit;
    } catch (const std::exception& e) {
      rep.trunk_held = std::string(e.what());
    }
  }

  // An interrupted promote stays open in the journal until everything is settled, so the
  // next repair tries again; a fresh one always ends (what failed is in its result).
  void end_journal() {
    if (!any_writes || (resume && !rep.failed.empty())) return;
    Json ff = Json::object(), mg = Json::object();
    for (const auto& [k, v] : rep.fast_forwarded) ff[k] = v;
    for (const auto& [k, v] : rep.merged) mg[k] = v;
    Json result{{"fast_forwarded", ff},
                {"merged", mg},
                {"refused", rep.refused},
                {"held", rep.held},
                {"kept_forks", rep.kept_forks},
                {"rolled_back", rep.rolled_back},
                {"trunk_moved", rep.trunk_moved ? Json(*rep.trunk_moved) : Json(nullptr)},
                {"failed", rep.failed}};
    if (resume) result["finished_by"] = "repair";
    oplog.end(op_id, result);
  }
};

PromoteReport apply_promote(Context& cx, const Plan& plan, const OpEntry* resume) { return PromoteApplier(cx, plan, resume).run(); }

Json PromoteReport::to_json() const {
  Json ff = Json::object(), mg = Json::object();
  for (const auto& [k, v] : fast_forwarded) ff[k] = v;
  for (const auto& [k, v] : merged) mg[k] = v;
  Json j{{"fast_forwarded", ff},
         {"merged", mg},
         {"skipped", skipped},
         {"refused", refused},
         {"held", held},
         {"conflicts", conflicts},
         {"kept_forks", kept_forks},
         {"rolled_back", rolled_back},
         {"trunk_moved", trunk_moved ? Json(*trunk_moved) : Json(nullptr)},
         {"trunk_held", trunk_held ? Json(*trunk_held) : Json(nullptr)}};
  if (!failed.empty()) j["failed"] = failed;
  return j;
}

// What `tether ops` says of a promote (ops.cpp's table).
std::string summarize_promote(const OpEntry& e) {
  const Json& r = e.result;
  std::vector<std::string> keys = names_of(r.value("fast_forwarded", Json::object()));
  for (const auto& k : names_of(r.value("merged", Json::object()))) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys.empty() ? "nothing promoted" : "promoted " + join(keys);
}

// ---- undoing a promote (undo.cpp runs it; engine/undoer.hpp) ----

static std::vector<std::pair<std::string, std::string>> promote_lines(const Undoer& u);

// Each base a promote moved goes back where its plan found it, conditional on still being
// where the promote left it (the backend's rewind, which also settles a move a kill
// interrupted). An interrupted promote is reversed from its journal the same way: a move
// that never started is nothing to reverse. The trunk goes back while it is still where
// the promote put it.
namespace {
struct PromoteMove {
  std::string key, kind;
  Json locator, before, target;
  std::optional<Json> after;  // where the journal says it landed
  bool merge = false;
};
}  // namespace
static std::optional<std::vector<PromoteMove>> promote_moves(const Undoer& u) {
  auto plan_it = u.target.pre.find("plan");
  if (plan_it == u.target.pre.end() || !plan_it->is_object()) return std::nullopt;  // journaled before 0.1 of this rule
  std::set<std::string> started, rewound;
  std::map<std::string, Json> landed;
  for (const auto& p : u.target.progress) {
    std::string action = str_of(p, "action"), key = str_of(p, "key");
    if (action == "landing") started.insert(key);
    if ((action == "fast-forward" || action == "merge") && p.contains("state")) landed[key] = p["state"];
    if (action == "rewind") rewound.insert(key);
  }
  for (const char* table : {"fast_forwarded", "merged"}) {
    // Held in a local: a range-for over `.value(...).items()` iterates a destroyed temporary.
    const Json moved = u.target.result.value(table, Json::object());
    for (const auto& [key, st] : moved.items()) landed[key] = st;
  }
  std::vector<PromoteMove> out;
  for (const auto& a : plan_it->value("actions", Json::array())) {
    if (!a.is_object()) continue;
    const auto op = parse_plan_op(str_of(a, "op"));
    const std::string key = str_of(a, "key");
    if ((op != PlanOp::FastForward && op != PlanOp::Merge) || rewound.count(key)) continue;
    if (!started.count(key) && !landed.count(key)) continue;
    const Json params = a.value("params", Json::object());
    PromoteMove m{key, str_of(a, "kind"), params.value("locator", Json::object()), params.value("base_state", Json(nullptr)),
                  params.value("target_state", Json(nullptr)), std::nullopt, op == PlanOp::Merge};
    if (auto it = landed.find(key); it != landed.end()) m.after = it->second;
    out.push_back(std::move(m));
  }
  return out;
}
// Where the promote moved the trunk: (bookmark, from, to).
static std::optional<std::tuple<std::string, std::string, std::string>> promote_trunk(const Undoer& u) {
  for (const auto& p : u.target.progress)
    if (str_of(p, "action") == "trunk-landing") return std::make_tuple(str_of(p, "bookmark"), str_of(p, "from"), str_of(p, "to"));
  return std::nullopt;
}
void undo_promote(Undoer& u) {
  auto moves = promote_moves(u);
  if (!moves) {
    for (const auto& [key, moved] : promote_lines(u)) u.irreversible.push_back(key + ": base branch " + moved);
    if (u.irreversible.empty()) u.skipped.push_back("promote moved nothing");
    return;
  }
  for (const auto& m : *moves) {
    try {
      auto& b = u.cx.backend(m.kind);
      Json now = b.fingerprint(m.locator, std::nullopt, m.key);
      if (b.same(now, m.before)) {
        try {
          b.rewind(m.locator, m.before, sdk::Expected::at(now), m.key);  // settles what a kill left
        } catch (const CapabilityError&) {
        }
        u.skipped.push_back(m.key + ": base branch already at " + model::short_state(m.before));
        continue;
      }
      bool ours = m.after ? b.same(now, *m.after)
                : m.merge ? b.ancestor_of(m.locator, m.target, sdk::Source::of_state(now), m.key) == true
                          : b.same(now, m.target);
      if (!ours) {
        u.irreversible.push_back(m.key + ": base branch is at " + model::short_state(now) +
                               ", not where promote left it; left as it is");
        continue;
      }
      b.rewind(m.locator, m.before, sdk::Expected::at(now), m.key);
      u.restored.push_back(m.key + ": base branch moved back " + model::short_state(now) + " -> " + model::short_state(m.before));
    } catch (const CapabilityError&) {
      u.irreversible.push_back(m.key + ": base branch moved to " + (m.after ? model::short_state(*m.after) : std::string("?")) +
                             "; the " + m.kind + " backend cannot move it back, reset it in the store yourself");
    } catch (const std::exception& e) {
      const auto* be = dynamic_cast<const BackendError*>(&e);
      u.irreversible.push_back(m.key + ": base branch could not be moved back (" + (be ? be->bare_message() : std::string(e.what())) + ")");
    }
  }
  if (auto t = promote_trunk(u)) {
    const auto& [name, from, to] = *t;
    auto bms = u.cx.vcs->bookmarks();
    auto it = bms.find(name);
    if (it == bms.end() || it->second != to) {
      u.skipped.push_back("bookmark " + name + " has moved since; kept");
    } else {
      u.cx.vcs->bookmark_set(name, from, to);
      u.restored.push_back("bookmark " + name + " back at " + from.substr(0, 12));
    }
  }
  u.restore_workspace();
  if (u.restored.empty() && u.irreversible.empty() && u.skipped.empty()) u.skipped.push_back("promote moved nothing");
}
void plan_undo_promote(Undoer& u) {
  auto moves = promote_moves(u);
  if (!moves) {
    auto lines = promote_lines(u);
    for (const auto& [key, moved] : lines) u.act(PlanOp::Irreversible, key, "", "base branch", moved);
    if (lines.empty()) u.note("promote moved nothing");
    return;
  }
  for (const auto& m : *moves)
    u.act(PlanOp::Rewind, m.key, m.kind, "base branch",
        "back to " + model::short_state(m.before) + (m.after ? " from " + model::short_state(*m.after) : std::string()));
  if (auto t = promote_trunk(u))
    u.act(PlanOp::MoveBookmark, "", "", std::get<0>(*t), "back to " + std::get<1>(*t).substr(0, 12));
  u.plan_workspace();
  if (u.plan->actions.empty()) u.note("promote moved nothing");
}
static std::vector<std::pair<std::string, std::string>> promote_lines(const Undoer& u) {
  std::vector<std::pair<std::string, std::string>> out;
  const Json& r = u.target.result;
  const Json bases = u.target.pre.value("base_states", Json::object());
  for (const char* table : {"fast_forwarded", "merged"}) {
    const Json moved_keys = r.value(table, Json::object());
    for (const auto& [key, after_state] : moved_keys.items()) {
      std::string before = bases.contains(key) ? model::short_state(bases[key]) : std::string("?");
      out.emplace_back(key, "moved " + before + " -> " + model::short_state(after_state) +
                                "; tether only fast-forwards base branches, reset it in the store yourself");
    }
  }
  return out;
}

}  // namespace tether::engine
