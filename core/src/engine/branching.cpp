// core/src/engine/branching.cpp: working on bookmarks (docs/concepts.md; docs/cli.md, `new`
// and `open`; docs/FORMAT.md#preconditions): the checks every write shares (plan
// preconditions, stale working copy, the checkout being on its bookmark, other live
// checkouts), `tether new` and `tether open` with its lazy fork.
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

namespace {

std::string short12(const std::string& id) { return id.substr(0, 12); }

bool has_at(const Json& locator) {
  auto it = locator.find("at");
  return it != locator.end() && it->is_string() && !it->get<std::string>().empty();
}

std::string handle_type(const std::string& kind) {
  std::string t;
  bool up = true;
  for (char c : kind) {
    if (c == '-' || c == '_') {
      up = true;
      continue;
    }
    t += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return t + "Handle";
}

}  // namespace

// ---- shared checks -------------------------------------------------------------------------

Json Repo::vcs_position() const {
  auto head = vcs_->head();
  auto branch = vcs_->current_branch();
  return Json{{"kind", vcs_->kind()},
              {"id", head ? Json(*head) : Json(nullptr)},
              {"commit", head ? Json(*head) : Json(nullptr)},
              {"branch", branch ? Json(*branch) : Json(nullptr)}};
}

void Repo::require_persisted_workspace() {
  if (!model::checkout_entry_exists(tether_dir() / "workspace.toml")) write_workspace();
}

std::vector<std::string> Repo::stale_keys() const {
  if (on_trunk()) return {};  // the trunk's branches are the upstream ones: nothing to go stale
  std::set<std::string> keys;
  for (const auto& [k, r] : workspace_->working_refs) keys.insert(k);
  for (const auto& [k, r] : workspace_->pending_forks) keys.insert(k);
  std::vector<std::string> stale;
  for (const auto& k : keys) {
    auto m = manifests_.find(k);
    if (m == manifests_.end() || !m->second.state) continue;
    auto base = workspace_->base_states.find(k);
    if (base == workspace_->base_states.end()) {
      stale.push_back(k);
      continue;
    }
    bool same = false;
    try {
      same = host_->get(m->second.kind).same(base->second, *m->second.state);
    } catch (const std::exception&) {
      same = base->second == *m->second.state;
    }
    if (!same) stale.push_back(k);
  }
  return stale;
}

std::vector<std::string> Repo::bookmark_drift() {
  if (!workspace_->bookmark) return {};
  const std::string& b = *workspace_->bookmark;
  const std::string trunk = config_.trunk();
  auto bms = vcs_->bookmarks();
  auto cur = vcs_->current_branch();
  auto here = vcs_->current_bookmark();
  if (!bms.count(b)) {
    if (cur && *cur == b) return {};  // an unborn branch: nothing committed yet
    if (here && *here != trunk)
      return {"bookmark '" + b + "' is gone and '" + *here + "' sits where the working copy is -- renamed? `tether new " +
              *here + "` continues there (its store branches are forked anew; '" + b +
              "''s go to `gc --prune-bookmarks`)"};
    return {"bookmark '" + b + "' no longer exists in the VCS; `tether new -b " + b +
            "` recreates it, `tether new NAME` joins another; its store branches stay until `gc --prune-bookmarks`"};
  }
  if (!cur || *cur != b)
    return {"the working copy has left bookmark '" + b + "' (now on " + (here ? "'" + *here + "'" : std::string("no bookmark")) +
            "); `tether new " + b + "` returns to it, `tether new` works where you are"};
  if (b == trunk || workspace_->working_refs.empty()) return {};
  std::map<std::string, model::ObjectManifest> at;
  try {
    at = manifests_at(bms[b]);
  } catch (const std::exception&) {
    return {};
  }
  std::vector<std::string> moved;
  for (const auto& [k, ref] : workspace_->working_refs) {
    auto m = at.find(k);
    auto base = workspace_->base_states.find(k);
    if (m == at.end() || !m->second.state || base == workspace_->base_states.end()) continue;
    bool same = base->second == *m->second.state;
    try {
      same = backend(m->second.kind).same(base->second, *m->second.state);
    } catch (const std::exception&) {
    }
    if (!same) moved.push_back(k);
  }
  if (moved.empty()) return {};
  return {"bookmark '" + b + "' was moved to " + bms[b].substr(0, 12) + ": its commit no longer records what the store branches of " +
          join(moved) + " hold; `tether new " + b +
          "` resets them onto the pins there (refused while they hold unpinned writes; --discard to drop those)"};
}

void Repo::check_not_stale() {
  auto stale = stale_keys();
  if (stale.empty()) return;
  throw StaleWorkingCopyError("working copy is stale: the committed state of " + join(stale) +
                              " changed since this workspace forked; run `tether new` to refork before writing");
}

void Repo::check_on_bookmark() {
  if (!workspace_->bookmark) return;
  const std::string& b = *workspace_->bookmark;
  auto current = vcs_->current_branch();
  if (current && *current == b) return;  // also an unborn branch HEAD is on
  auto bookmarks = vcs_->bookmarks();
  if (!bookmarks.count(b))
    throw StaleWorkingCopyError("bookmark '" + b + "' no longer exists; `tether new -b " + b +
                                "` recreates it, `tether new NAME` joins another");
  auto here = vcs_->current_bookmark();
  throw StaleWorkingCopyError("the working copy is not on bookmark '" + b + "' (it moved to " +
                              (here ? "'" + *here + "'" : std::string("no bookmark")) + "); run `tether new " + b +
                              "` to return, or `tether new` to work where you are");
}

std::map<std::string, std::string> Repo::other_workspaces() const {
  std::map<std::string, std::string> out;
  std::error_code ec;
  fs::path mine = fs::weakly_canonical(vcs_->root(), ec);
  for (const auto& root : vcs_->workspace_roots()) {
    fs::path r = fs::weakly_canonical(root, ec);
    if (r == mine) continue;
    fs::path dir = vcs_->rel().empty() ? r : r / vcs_->rel();
    try {
      auto ws = model::read_workspace(model::tether_path(dir, "workspace.toml"));
      if (!ws || ws->workspace_id == workspace_->workspace_id) continue;
      out[ws->workspace_id] = ws->bookmark.value_or("");
    } catch (const std::exception&) {
      // An unreadable workspace file is skipped: it cannot hold a bookmark we could honour.
    }
  }
  return out;
}

sdk::Source Repo::checked_source(const model::ObjectManifest& m) {
  auto& b = backend(m.kind);
  uint32_t caps = effective_capabilities(m);
  if (!m.state) throw TetherError(model::py_repr(m.key) + " has no committed state");
  if (m.pin && (caps & sdk::kPin)) {
    auto rep = b.verify(m.locator, *m.state, *m.pin, false, m.key);
    switch (rep.status) {
      case sdk::VerifyStatus::Ok:
      case sdk::VerifyStatus::Unknown:
        return sdk::Source::of_pin(*m.pin);
      case sdk::VerifyStatus::Missing:
        if (caps & sdk::kAddressable) return sdk::Source::of_state(*m.state);
        throw BackendError("pin missing: " + rep.message, m.key);
      case sdk::VerifyStatus::Drifted:
        throw PinDriftError("pin " + m.pin->ref + " no longer holds the committed state (" + rep.message +
                                "); `tether verify` shows it, `tether repair` re-pins",
                            m.key);
    }
  }
  if (caps & sdk::kAddressable) return sdk::Source::of_state(*m.state);
  throw CapabilityError("no pin, and the " + m.kind + " backend cannot reopen a recorded state", m.key);
}

void Repo::check_preconditions(const Plan& plan) {
  vet_saved_plan(plan);  // edits first: a precondition may itself name a store to ask
  for (const auto& pc : plan.preconditions) {
    std::optional<std::string> observed;  // set when the precondition fails
    const Json& p = pc.params;
    auto locator_of = [&]() -> std::pair<const model::ObjectManifest*, Json> {
      auto it = manifests_.find(pc.key);
      if (it == manifests_.end()) throw StalePlanError(model::py_repr(pc.key) + " is no longer registered; re-run the plan");
      Json loc = p.contains("locator") ? p["locator"] : it->second.locator;
      return {&it->second, loc};
    };
    if (pc.kind == "manifest_hash") {
      std::string now;
      if (p.contains("rev") && p["rev"].is_string()) now = model::manifest_hash(manifests_at(p["rev"].get<std::string>()));
      else now = model::manifest_hash(manifests_);
      if (now != pc.expected) observed = now.substr(0, 12);
    } else if (pc.kind == "workspace_id") {
      if (!pc.expected.is_null() && pc.expected != workspace_->workspace_id) observed = workspace_->short_id();
    } else if (pc.kind == "workspace_bookmark") {
      Json mine = workspace_->bookmark ? Json(*workspace_->bookmark) : Json(nullptr);
      auto placed = vcs_->current_bookmark();
      Json vcs_b = placed ? Json(*placed) : Json(nullptr);
      if (mine != pc.expected || (!pc.expected.is_null() && vcs_b != pc.expected))
        observed = vcs_b.is_string() ? vcs_b.get<std::string>() : std::string("no bookmark");
    } else if (pc.kind == "bookmark_head") {
      auto bms = vcs_->bookmarks();
      std::string b = p.value("bookmark", std::string());
      auto it = bms.find(b);
      if (it == bms.end()) observed = "no bookmark " + b;
      else if (pc.expected != it->second) observed = short12(it->second);
    } else if (pc.kind == "vcs_head") {  // expected null: there was no commit yet
      auto h = vcs_->head();
      if (pc.expected.is_null() ? h.has_value() : (!h || pc.expected != *h)) observed = h ? short12(*h) : "no commit";
    } else if (pc.kind == "history_digest") {
      auto d = vcs_->history_digest();
      if (pc.expected != d) observed = d;
    } else if (pc.kind == "config_version") {
      if (pc.expected != config_.version) observed = std::to_string(config_.version);
    } else if (pc.kind == "op_not_undone") {  // the op log entry `expected` is there and not undone
      auto entries = read_ops();
      auto it = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return pc.expected == e.id; });
      if (it == entries.end()) observed = "gone from the op log";
      else if (it->undone_by.is_string()) observed = "undone by " + it->undone_by.get<std::string>();
    } else if (pc.kind == "op_log_head") {  // the op log's newest entry is still `expected`
      auto entries = read_ops();
      if (entries.empty()) observed = "none";
      else if (pc.expected != entries.back().id) observed = entries.back().id + " (" + entries.back().command + ")";
    } else if (pc.kind == "no_new_holders") {
      std::string b = p.value("bookmark", std::string());
      std::vector<std::string> holders;
      for (const auto& [id, bm] : other_workspaces())
        if (bm == b) holders.push_back(id.substr(0, 8));
      if (!holders.empty()) observed = join(holders);
    } else if (pc.kind == "ref_absent" || pc.kind == "ref_head" || pc.kind == "base_state" || pc.kind == "pin_state" ||
               pc.kind == "store_empty") {
      auto [m, loc] = locator_of();
      auto& b = backend(m->kind);
      std::string ref = p.value("ref", std::string());
      if (pc.kind == "ref_absent") {
        auto refs = b.list_working_refs(loc, m->key);
        if (std::find(refs.begin(), refs.end(), ref) != refs.end()) observed = ref + " exists";
      } else if (pc.kind == "ref_head") {
        std::optional<Json> head;
        try {
          head = b.fingerprint(loc, ref, m->key);
        } catch (const BackendError&) {
        }
        if (pc.expected.is_null()) {
          if (head) observed = model::short_state(*head);
        } else if (!head) {
          observed = ref + " gone";
        } else if (!b.same(*head, pc.expected)) {
          observed = model::short_state(*head);
        }
      } else if (pc.kind == "base_state") {
        Json base_loc = loc;
        base_loc.erase("at");
        Json now = b.fingerprint(base_loc, std::nullopt, m->key);
        if (!b.same(now, pc.expected)) observed = model::short_state(now);
      } else if (pc.kind == "pin_state") {
        auto pin = p.at("pin").get<sdk::Pin>();
        auto rep = b.verify(loc, pc.expected, pin, false, m->key);
        if (!rep.ok()) observed = rep.message;
      } else {
        auto empty = b.is_ref_empty(loc, p.value("ignoring", std::vector<std::string>{}), m->key);
        if (empty != true) observed = "not empty";
      }
    }
    if (!observed) continue;
    std::string msg = pc.detail.empty() ? pc.kind + " changed since the plan was made" : pc.detail;
    for (auto pos = msg.find("{observed}"); pos != std::string::npos; pos = msg.find("{observed}", pos + observed->size())) {
      msg.replace(pos, 10, *observed);
    }
    if (msg.find("re-run") == std::string::npos) msg += "; re-run the plan";
    throw StalePlanError(msg);
  }
}

// ---- tether new ------------------------------------------------------------------------------

NewResult Repo::new_workspace(const NewOptions& opt) {
  auto lock = lock_checkout();
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run) repo_lock = lock_repository();
  // A saved plan is planned again from the options it records and must come out the same: the
  // branches, sources and heads it forks from are then this checkout's, not the file's.
  auto rederive = [&](const Plan& p) {
    check_preconditions(p);
    const Json& c = p.context;
    NewOptions again;
    if (auto r = c.find("rev"); r != c.end() && r->is_string()) again.rev = r->get<std::string>();
    if (c.value("create", false) && c.value("bookmark", Json(nullptr)).is_string())
      again.bookmark = c["bookmark"].get<std::string>();
    again.shared = c.value("shared", false);
    again.keep = c.value("keep", false);
    again.discard = c.value("discard", false);
    again.eager = c.value("eager", false);
    Plan derived = plan_new(again);
    if (derived.context.value("bookmark", Json(nullptr)) != c.value("bookmark", Json(nullptr)))
      throw StalePlanError("the saved new plan is not what tether plans here now (bookmark " +
                           c.value("bookmark", Json(nullptr)).dump() + "); re-run the plan");
    require_rederived(p, derived);
  };
  return run_planned<NewResult>(
      opt.saved, opt.dry_run, rederive, [&] { return plan_new(opt); }, [&](const Plan& p) { return apply_new(p); });
}

// Planning `new`, stage by stage: which bookmark (and whether it is created), whether another
// checkout holds it, the trunk's upstream branches, then one fork (or reuse, share, refusal)
// per forkable object -- objects of one branch scope share the first one's branch.
struct Repo::NewPlanner {
  // The first object planned in a (kind, branch scope): the others share its branch.
  struct First {
    std::string key, op;
    Json state;
  };

  Repo& repo;
  const NewOptions& opt;
  Plan plan;
  std::map<std::string, model::ObjectManifest> objects;
  std::map<std::string, std::string> bookmarks;
  std::string trunk;
  std::optional<std::string> bookmark;
  bool create = false, eager = false;
  std::string name;  // the working branch name of the bookmark
  std::map<std::pair<std::string, std::string>, First> scopes;

  NewPlanner(Repo& r, const NewOptions& o) : repo(r), opt(o) {}

  Plan run() {
    plan.command = "new";
    plan.created_at = model::now_iso_utc_seconds();
    objects = opt.rev ? repo.manifests_at(*opt.rev) : repo.manifests_;
    bookmarks = repo.vcs_->bookmarks();
    trunk = repo.config_.trunk();
    choose_bookmark();
    eager = opt.eager.value_or(repo.config_.new_fork == "eager");
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
    name = model::working_ref_name(repo.dataset_id_, *bookmark);
    for (const auto& entry : objects) plan_object(entry.second);
    return std::move(plan);
  }

  // Among bookmarks at one commit: this checkout's, else the trunk, else the only one.
  std::optional<std::string> pick(const std::vector<std::string>& candidates) const {
    auto has = [&](const std::string& b) { return std::find(candidates.begin(), candidates.end(), b) != candidates.end(); };
    const auto& mine = repo.workspace_->bookmark;
    if (mine && has(*mine)) return mine;
    if (has(trunk)) return trunk;
    if (candidates.size() == 1) return candidates.front();
    return std::nullopt;
  }

  void choose_bookmark() {
    const auto& mine = repo.workspace_->bookmark;
    if (opt.bookmark) {
      const std::string& b = *opt.bookmark;
      if (bookmarks.count(b)) throw ConfigError("bookmark '" + b + "' exists; `tether new " + b + "` joins it");
      std::string ref = model::working_ref_name(repo.dataset_id_, b);
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
      std::string commit = repo.vcs_->resolve(*opt.rev);
      std::vector<std::string> at;
      for (const auto& [b, c] : bookmarks)
        if (c == commit) at.push_back(b);
      bookmark = pick(at);
    } else if (opt.keep) {
      bookmark = mine;
    } else {
      auto cur = repo.vcs_->current_bookmark();
      if (!cur && mine) bookmark = mine;
      else bookmark = cur ? pick({*cur}) : std::nullopt;
    }
  }

  void set_context() {
    const auto& ws = *repo.workspace_;
    const std::string mhash = model::manifest_hash(objects);
    plan.context = Json{{"rev", opt.rev ? Json(*opt.rev) : Json(nullptr)},
                        {"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
                        {"create", create},
                        {"shared", opt.shared},
                        {"keep", opt.keep},
                        {"eager", eager},
                        {"discard", opt.discard},
                        {"manifest_hash", mhash},
                        {"workspace_id", ws.workspace_id}};
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
    for (const auto& [id, bm] : repo.other_workspaces())
      if (bm == b) holders.push_back(id.substr(0, 8));
    if (!holders.empty()) {
      plan.actions.push_back({"refuse", "", "", "", "bookmark '" + b + "' is held by live workspace(s) " + join(holders) +
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
        if (!(repo.effective_capabilities(m) & sdk::kFork) || has_at(m.locator)) continue;
        plan.actions.push_back({"trunk", key, m.kind, repo.backend(m.kind).base_branch(m.locator, key), "upstream branch"});
      } catch (const std::exception& e) {
        plan.notes.push_back(key + ": no upstream branch to write to (" + e.what() + ")");
      }
    }
  }

  void plan_object(const model::ObjectManifest& m) {
    const std::string& key = m.key;
    uint32_t caps = 0;
    try {
      caps = repo.effective_capabilities(m);
    } catch (const std::exception& e) {
      plan.notes.push_back(key + ": " + e.what());
      return;
    }
    if (!(caps & sdk::kFork)) return;
    if (!m.state) {
      plan.notes.push_back(key + ": nothing committed yet; fork after first commit");
      return;
    }
    auto& be = repo.backend(m.kind);
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
    auto& be = repo.backend(m.kind);
    if (first.op.empty() || first.op == "refuse") {
      plan.notes.push_back(m.key + ": shares a branch with " + first.key + ", which cannot fork");
    } else if (be.same(first.state, *m.state)) {
      plan.actions.push_back({"share", m.key, m.kind, name, "same branch as " + first.key + " (" + first.op + ")",
                              Json{{"with", first.key}, {"state", *m.state}}});
    } else {
      plan.actions.push_back({"refuse", m.key, m.kind, name,
                              "shares branch " + name + " with '" + first.key + "' but pins " +
                                  model::short_state(*m.state) + " where it pins " + model::short_state(first.state) +
                                  "; a branch is at one point -- commit them together (`tether pull` on the trunk) "
                                  "before forking"});
    }
  }

  // The branch this checkout already records for the key (a sibling `<name>.<n>` a backend
  // returned counts), else `name` if the store has it.
  std::optional<std::string> existing_branch(const std::string& key, const std::vector<std::string>& refs) const {
    const auto& ws = *repo.workspace_;
    std::optional<std::string> existing;
    for (const auto* table : {&ws.working_refs, &ws.pending_forks})
      if (auto it = table->find(key); it != table->end() && it->second.rfind(name, 0) == 0 &&
                                      std::find(refs.begin(), refs.end(), it->second) != refs.end())
        existing = it->second;
    if (!existing && std::find(refs.begin(), refs.end(), name) != refs.end()) existing = name;
    return existing;
  }

  // The first object of a branch scope: its fork (now or deferred), reuse or refusal; returns
  // the op planned ("" when nothing was).
  std::string plan_fork(const model::ObjectManifest& m, uint32_t caps) {
    const std::string& key = m.key;
    auto& be = repo.backend(m.kind);
    std::vector<std::string> refs;
    try {
      refs = be.list_working_refs(m.locator, key);
    } catch (const std::exception& e) {
      plan.actions.push_back({"refuse", key, m.kind, name,
                              "could not list branches (" + std::string(e.what()) + "); whether " + name +
                                  " exists is unknown and a fork would reset it blind"});
      return "refuse";
    }
    const auto existing = existing_branch(key, refs);
    std::optional<Json> head;
    if (existing) {
      try {
        head = be.fingerprint(m.locator, *existing, key);
      } catch (const std::exception& e) {
        plan.actions.push_back({"refuse", key, m.kind, *existing,
                                *existing + " exists but its head could not be read (" + e.what() +
                                    "); a fork would reset it blind"});
        return "refuse";
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
      return "";
    }
    if (existing && be.same(*head, *m.state)) {
      std::string at = m.pin ? "pin " + m.pin->ref : model::short_state(*m.state);
      plan.actions.push_back({"reuse", key, m.kind, *existing, "already at " + at + "; kept", Json{{"then_state", *head}}});
      require_head(key, *existing, *head);
      return "reuse";
    }
    Json params{{"source", source}, {"state", *m.state}};
    if (existing) {
      params["existing"] = *existing;
      params["head"] = *head;
      detail += "; resets " + *existing;
      const auto& ws = *repo.workspace_;
      auto known = [&](const std::map<std::string, Json>& table) {
        auto it = table.find(key);
        return it != table.end() && be.same(it->second, *head);
      };
      bool writes = !known(ws.base_states) && !be.same(*m.state, *head) && !known(ws.fork_points);
      if (writes && !opt.discard) {
        plan.actions.push_back({"refuse", key, m.kind, *existing,
                                *existing + " has writes since this workspace last committed (" +
                                    model::short_state(*head) + "); commit them, or pass --discard to throw them away"});
        return "refuse";
      }
      if (writes) detail += ", discarding its writes (" + model::short_state(*head) + ")";
    }
    std::string op;
    if (eager || !durable) {
      op = "fork";
      if (!durable && !eager) detail += "; forked now so the state cannot expire";
      if (existing)
        require_head(key, *existing, *head);
      else
        plan.preconditions.push_back({"ref_absent", nullptr, key, Json{{"ref", name}},
                                      "new " + key + ": " + name + " exists since the plan was made; re-run the plan"});
    } else {
      op = "defer-fork";
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

Plan Repo::plan_new(const NewOptions& opt) { return NewPlanner(*this, opt).run(); }

NewResult Repo::apply_new(const Plan& plan) {
  std::vector<std::string> refusals;
  bool all_keyed = true;
  for (const auto& a : plan.actions)
    if (a.op == "refuse") {
      refusals.push_back(a.key.empty() ? a.detail : a.key + ": " + a.detail);
      if (a.key.empty()) all_keyed = false;
    }
  if (!refusals.empty()) {
    if (all_keyed) throw TetherError("refusing to reset working branches with unpinned writes:\n  " + join(refusals, "\n  "));
    throw TetherError(join(refusals, "; "));
  }
  const Json& ctx = plan.context;
  std::optional<std::string> bookmark;
  if (ctx["bookmark"].is_string()) bookmark = ctx["bookmark"].get<std::string>();
  std::optional<std::string> rev;
  if (ctx["rev"].is_string()) rev = ctx["rev"].get<std::string>();
  const bool create = ctx.value("create", false);
  const bool keep = ctx.value("keep", false);

  Json heads = Json::object();
  for (const auto& a : plan.actions)
    if (a.params.contains("head")) heads[a.key] = a.params["head"];
  OpLog oplog(tether_dir() / "ops.jsonl");
  std::string op_id =
      oplog.begin("new", Json{{"workspace", model::workspace_to_toml(*workspace_)}, {"vcs", vcs_position()}, {"heads", heads}},
                  op_parent_);

  NewResult res;
  res.plan = plan;
  res.kept = keep;
  std::vector<std::string> created, reset, reused, failed;
  bool ended = false;
  try {
    // The VCS first: the manifests there are what the forks start from.
    if (create) vcs_->new_bookmark(*bookmark, rev);
    else if (rev) vcs_->switch_to(*rev);
    else if (bookmark && vcs_->current_bookmark() != bookmark && vcs_->bookmarks().count(*bookmark))
      vcs_->switch_to(*bookmark);
    reload();
    model::Workspace& ws = *workspace_;
    ws.bookmark = bookmark;
    if (keep) {
      for (const auto* table : {&ws.working_refs, &ws.pending_forks})
        for (const auto& [k, r] : *table)
          if (auto m = manifests_.find(k); m != manifests_.end() && m->second.state) ws.base_states[k] = *m->second.state;
    } else {
      // Refs of keys not registered here stay (gc finds them); everything else is decided anew.
      const std::map<std::string, std::string> previous = ws.working_refs;
      std::map<std::string, std::string> kept;
      for (const auto& [k, r] : ws.working_refs)
        if (!manifests_.count(k)) kept[k] = r;
      ws.working_refs = kept;
      ws.pending_forks.clear();
      ws.pending_resets.clear();
      for (auto it = ws.fork_points.begin(); it != ws.fork_points.end();)
        it = manifests_.count(it->first) ? ws.fork_points.erase(it) : std::next(it);
      for (auto it = ws.base_states.begin(); it != ws.base_states.end();)
        it = manifests_.count(it->first) ? ws.base_states.erase(it) : std::next(it);
      std::vector<const PlanAction*> forks;
      for (const auto& a : plan.actions) {
        if (a.op == "trunk") {
          // The cached fingerprint was of the branch the key worked on until now.
          if (auto old = previous.find(a.key); old == previous.end() || old->second != a.target)
            ws.last_snapshot.erase(a.key);
          ws.working_refs[a.key] = a.target;
        } else if (a.op == "reuse") {
          ws.working_refs[a.key] = a.target;
          ws.fork_points[a.key] = manifests_.at(a.key).state.value_or(Json(nullptr));
          reused.push_back(a.key);
        } else if (a.op == "fork" || a.op == "defer-fork") {
          ws.pending_forks[a.key] = a.target;
          if (a.params.contains("head")) ws.pending_resets[a.key] = a.params["head"];
          if (a.op == "fork") forks.push_back(&a);
        }
      }
      for (const auto& [k, r] : ws.pending_forks)
        if (auto m = manifests_.find(k); m != manifests_.end() && m->second.state) ws.base_states[k] = *m->second.state;
      write_workspace();  // interim: a crash while forking leaves them pending, not lost
      auto results = fan_out<std::string>(forks.size(), [&](std::size_t i) {
        const PlanAction& a = *forks[i];
        const auto& m = manifests_.at(a.key);
        sdk::Source source = a.params["source"].get<sdk::Source>();
        if (source.kind == sdk::Source::Kind::Pin) source = checked_source(m);
        sdk::Expected expected = a.params.contains("head") ? sdk::Expected::at(a.params["head"]) : sdk::Expected::absent();
        return backend(a.kind).fork(m.locator, source, a.target, expected, a.key);
      });
      std::vector<std::string> errors;
      for (std::size_t i = 0; i < forks.size(); ++i) {
        const PlanAction& a = *forks[i];
        if (!results[i].ok()) {
          failed.push_back(a.key);
          errors.push_back(results[i].keyed(a.key));
          continue;
        }
        ws.working_refs[a.key] = *results[i].value;
        ws.pending_forks.erase(a.key);
        ws.pending_resets.erase(a.key);
        ws.fork_points[a.key] = manifests_.at(a.key).state.value_or(Json(nullptr));
        (a.params.contains("existing") ? reset : created).push_back(a.key);
        oplog.progress(op_id, Json{{"action", "fork"}, {"key", a.key}, {"ref", *results[i].value}});
      }
      // Shares follow the first key of their branch.
      for (const auto& a : plan.actions) {
        if (a.op != "share") continue;
        std::string with = a.params["with"].get<std::string>();
        if (auto it = ws.working_refs.find(with); it != ws.working_refs.end()) {
          ws.working_refs[a.key] = it->second;
          ws.fork_points[a.key] = a.params["state"];
        } else if (auto p = ws.pending_forks.find(with); p != ws.pending_forks.end()) {
          ws.pending_forks[a.key] = p->second;
        }
        ws.base_states[a.key] = a.params["state"];
      }
      for (const auto& [k, r] : ws.working_refs)
        if (auto m = manifests_.find(k); m != manifests_.end() && m->second.state && bookmark != config_.trunk())
          ws.base_states[k] = *m->second.state;
      // What the branches hold now is what the manifests record (a reset or pending fork
      // starts there), so the cached fingerprints of the forked objects are that.
      for (const auto& a : plan.actions)
        if (a.op == "fork" || a.op == "defer-fork" || a.op == "reuse" || a.op == "share")
          if (auto m = manifests_.find(a.key); m != manifests_.end() && m->second.state) ws.set_snapshot(a.key, *m->second.state);
      write_workspace();
      if (!errors.empty()) {
        oplog.end(op_id, Json{{"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)}, {"created", created},
                              {"reset", reset}, {"failed", failed}});
        ended = true;
        throw TetherError("could not fork working refs for " + join(failed) + " (" +
                          std::to_string(created.size() + reset.size()) + " of " + std::to_string(forks.size()) +
                          " forked and recorded; run `new` again -- it resets those branches too, so do not write to "
                          "them first) (" + join(errors, "; ") + ")");
      }
    }
    write_workspace();
  } catch (const std::exception& e) {
    if (!ended) oplog.end(op_id, Json{{"failed", e.what()}});
    throw;
  }
  const model::Workspace& ws = *workspace_;
  oplog.end(op_id, Json{{"vcs", vcs_position()},
                        {"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
                        {"created_bookmark", create},
                        {"created", created},
                        {"reset", reset},
                        {"reused", reused},
                        {"working_refs", ws.working_refs},
                        {"pending_forks", ws.pending_forks},
                        {"failed", failed}});
  res.applied = true;
  res.bookmark = bookmark;
  res.trunk = bookmark && *bookmark == config_.trunk();
  res.working_refs = ws.working_refs;
  res.pending_forks = ws.pending_forks;
  res.fork_points = ws.fork_points;
  for (const auto& [k, r] : ws.working_refs)
    if (!manifests_.count(k)) res.unregistered.push_back(k);
  return res;
}

// ---- tether open -----------------------------------------------------------------------------

OpenResult Repo::open_object(const std::string& key, const std::optional<std::string>& rev_in,
                             std::optional<bool> writable, bool with_password) {
  std::optional<std::string> rev = rev_in;
  if (!rev)
    if (const char* env = std::getenv("TETHER_REV"); env && *env) rev = std::string(env);
  OpenResult r;
  r.key = key;
  auto finish = [&](const model::ObjectManifest& m, const sdk::Source& target, bool read_only) {
    r.read_only = read_only;
    r.handle = backend(m.kind).open(m.locator, target, read_only, key, with_password);
    if (auto a = r.handle.find("address"); a != r.handle.end() && a->is_string()) r.address = a->get<std::string>();
    else r.address = key;
    if (auto d = r.handle.find("display"); d != r.handle.end() && d->is_string()) r.display = d->get<std::string>();
    else r.display = r.address;
    // A backend may name its handle type ("DuckLakeHandle"); else one is derived from the kind.
    if (auto t = r.handle.find("type"); t != r.handle.end() && t->is_string()) r.type = t->get<std::string>();
    else r.type = handle_type(m.kind);
    return r;
  };
  if (rev) {
    if (writable == true)
      throw ConfigError("a handle at a revision is read-only (" + *rev +
                        " is history); open without --rev (and TETHER_REV unset) to write");
    auto objects = manifests_at(*rev);
    auto it = objects.find(key);
    if (it == objects.end()) throw ConfigError("object '" + key + "' does not exist at " + *rev);
    const auto& m = it->second;
    if (!m.state) throw TetherError("'" + key + "' has no committed state at " + *rev);
    uint32_t caps = effective_capabilities(m);
    if (!(caps & (sdk::kPin | sdk::kAddressable)) || (!m.pin && !(caps & sdk::kAddressable)) || !m.recoverable)
      throw CapabilityError("'" + key + "' (" + m.kind + ") is Observed-tier; its state at " + *rev + " is not recoverable");
    return finish(m, checked_source(m), true);
  }
  auto it = manifests_.find(key);
  if (it == manifests_.end()) throw ConfigError("no such object: " + key);
  uint32_t caps = effective_capabilities(it->second);
  bool want_write = writable.value_or((caps & sdk::kFork) != 0);
  if (want_write) {
    if (!(caps & sdk::kFork))
      throw CapabilityError("'" + key + "' (" + it->second.kind + ", tier " + sdk::tier_name(caps) +
                            ") does not support writable handles; open it --read-only");
    auto lock = lock_checkout();
    const auto& m = manifests_.at(key);
    check_not_stale();
    std::string ref;
    if (auto w = working_ref(key)) {
      ref = *w;
    } else if (workspace_->pending_forks.count(key)) {
      ref = materialize_fork(key);
    } else if (on_trunk_bookmark() && !has_at(m.locator)) {
      ref = backend(m.kind).base_branch(m.locator, key);
    } else if (!workspace_->bookmark) {
      throw StaleWorkingCopyError("no working ref for '" + key +
                                  "': this working copy is on no bookmark and is read-only; `tether new -b NAME` to write");
    } else {
      throw StaleWorkingCopyError("no working ref for '" + key + "'; run `tether new` first");
    }
    return finish(manifests_.at(key), sdk::Source::of_ref(ref), false);
  }
  const auto& m = it->second;
  if (auto w = working_ref(key)) return finish(m, sdk::Source::of_ref(*w), true);
  if (m.state && m.pin && (caps & sdk::kPin)) return finish(m, checked_source(m), true);
  if (m.state && (caps & sdk::kAddressable)) return finish(m, sdk::Source::of_state(*m.state), true);
  return finish(m, sdk::Source::base(), true);
}

std::string Repo::materialize_fork(const std::string& key) {
  auto lock = lock_checkout();
  auto repo_lock = lock_repository();
  if (auto w = working_ref(key)) return *w;
  auto pending = workspace_->pending_forks.find(key);
  if (pending == workspace_->pending_forks.end())
    throw ConfigError("no working branch pending for '" + key + "'; run `tether new`");
  // The only caller, a writable open, checked staleness under this same lock.
  const std::string name = pending->second;
  const auto& m = manifests_.at(key);
  auto& be = backend(m.kind);
  std::string scope = be.branch_scope(m.locator, key);
  auto refs = be.list_working_refs(m.locator, key);
  bool exists = std::find(refs.begin(), refs.end(), name) != refs.end();
  bool adopt = false;
  std::optional<Json> head;
  if (exists) {
    head = be.fingerprint(m.locator, name, key);
    for (const auto& [k, r] : workspace_->working_refs)
      if (k != key && r == name && manifests_.count(k) && manifests_.at(k).kind == m.kind &&
          backend(m.kind).branch_scope(manifests_.at(k).locator, k) == scope)
        adopt = true;
    if (m.state && be.same(*head, *m.state)) adopt = true;
    if (!adopt) {
      auto agreed = workspace_->pending_resets.find(key);
      if (agreed == workspace_->pending_resets.end() || !be.same(agreed->second, *head))
        throw StaleWorkingCopyError("branch " + name + " holds writes (" + model::short_state(*head) +
                                    ") that `new` did not see; a writable open never resets a branch -- run `tether new` "
                                    "to decide (it refuses while the branch holds uncommitted writes; --discard throws "
                                    "them away)");
    }
  }
  OpLog oplog(tether_dir() / "ops.jsonl");
  Json pre{{"workspace", model::workspace_to_toml(*workspace_)}};
  if (head) pre["heads"] = Json{{key, *head}};
  std::string op_id = oplog.begin("fork", pre);
  std::string ref = name;
  try {
    if (!adopt) {
      sdk::Source source = checked_source(m);
      ref = be.fork(m.locator, source, name, head ? sdk::Expected::at(*head) : sdk::Expected::absent(), key);
    }
  } catch (const std::exception& e) {
    oplog.end(op_id, Json{{"failed", e.what()}});
    throw;
  }
  model::Workspace& ws = *workspace_;
  std::vector<std::string> adopted{key};
  for (const auto& [k, r] : ws.pending_forks)
    if (k != key && r == name && manifests_.count(k) && manifests_.at(k).kind == m.kind &&
        backend(m.kind).branch_scope(manifests_.at(k).locator, k) == scope)
      adopted.push_back(k);
  for (const auto& k : adopted) {
    ws.working_refs[k] = ref;
    ws.pending_forks.erase(k);
    ws.pending_resets.erase(k);
    if (auto mm = manifests_.find(k); mm != manifests_.end() && mm->second.state) {
      ws.fork_points[k] = *mm->second.state;
      ws.base_states[k] = *mm->second.state;
    }
  }
  write_workspace();
  oplog.end(op_id, Json{{"key", key}, {"ref", ref}, {"kind", m.kind}, {"locator", m.locator}});
  return ref;
}

Json NewResult::to_json() const {
  Json fps = Json::object();
  for (const auto& [k, v] : fork_points) fps[k] = v;
  return Json{{"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
              {"working_refs", working_refs},
              {"pending_forks", pending_forks},
              {"fork_points", fps}};
}

Json OpenResult::to_json() const {
  return Json{{"key", key}, {"read_only", read_only}, {"address", address}, {"type", type}, {"handle", handle}};
}

}  // namespace tether::engine
