// core/src/engine/plan.cpp: plans as data (JSON format 3, the digest, saving and loading),
// and the one table of precondition kinds with the check of each against the live systems.
#include "tether/engine/plan.hpp"

#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace {

// The one table of plan ops: the name saved plans spell and whether the action writes (a
// count of writes is what `--dry-run` and the appliers report as "nothing to do").
struct PlanOpInfo {
  PlanOp op;
  std::string_view name;
  bool writes;
};

constexpr PlanOpInfo kPlanOps[] = {
    {PlanOp::Pin, "pin", true},
    {PlanOp::Record, "record", true},
    {PlanOp::VcsCommit, "vcs-commit", true},
    {PlanOp::Fork, "fork", true},
    {PlanOp::DeferFork, "defer-fork", false},
    {PlanOp::Reuse, "reuse", false},
    {PlanOp::Share, "share", false},
    {PlanOp::Trunk, "trunk", false},
    {PlanOp::FastForward, "fast-forward", true},
    {PlanOp::Merge, "merge", true},
    {PlanOp::Hold, "hold", false},
    {PlanOp::Refuse, "refuse", false},
    {PlanOp::Unpin, "unpin", true},
    {PlanOp::KeepPin, "keep-pin", false},
    {PlanOp::DeleteBranch, "delete-branch", true},
    {PlanOp::KeepBranch, "keep-branch", false},
    {PlanOp::ForgetWorkingRef, "forget-working-ref", true},
    {PlanOp::DeleteListing, "delete-listing", true},
    {PlanOp::DeleteStore, "delete-store", true},
    {PlanOp::KeepStore, "keep-store", false},
    {PlanOp::ForgetStore, "forget-store", true},
    {PlanOp::ForgetTouched, "forget-touched", true},
    {PlanOp::AbandonCommit, "abandon-commit", true},
    {PlanOp::MoveBookmark, "move-bookmark", true},
    {PlanOp::DeleteBookmark, "delete-bookmark", true},
    {PlanOp::LeaveBookmark, "leave-bookmark", true},
    {PlanOp::Repin, "repin", true},
    {PlanOp::Refork, "refork", true},
    {PlanOp::FinishPromote, "finish-promote", true},
    {PlanOp::Add, "add", true},
    {PlanOp::Update, "update", true},
    {PlanOp::Remove, "remove", true},
    {PlanOp::Upsert, "upsert", true},
    {PlanOp::DeleteFile, "delete-file", true},
    {PlanOp::ForgetVcsWorkspace, "forget-vcs-workspace", true},
    {PlanOp::RenamePin, "rename-pin", true},
    {PlanOp::RenameBranch, "rename-branch", true},
    {PlanOp::RewriteHistory, "rewrite-history", true},
    {PlanOp::RewriteManifest, "rewrite-manifest", true},
    {PlanOp::RewriteLocator, "rewrite-locator", true},
    {PlanOp::RenameManifest, "rename-manifest", true},
    {PlanOp::Refingerprint, "refingerprint", true},
    {PlanOp::RewriteState, "rewrite-state", true},
    {PlanOp::RewriteIndex, "rewrite-index", true},
    {PlanOp::Uncommit, "uncommit", true},
    {PlanOp::Rewind, "rewind", true},
    {PlanOp::RecreateBranch, "recreate-branch", true},
    {PlanOp::RestoreListing, "restore-listing", true},
    {PlanOp::RestoreManifest, "restore-manifest", true},
    {PlanOp::RestoreWorkspace, "restore-workspace", true},
    {PlanOp::ReturnVcs, "return-vcs", true},
    {PlanOp::Irreversible, "irreversible", false},
};

// op_name indexes the table by the enum: every op has its row, in enum order.
constexpr bool table_in_enum_order() {
  if (std::size(kPlanOps) != kPlanOpCount) return false;
  for (std::size_t i = 0; i < kPlanOpCount; ++i)
    if (static_cast<std::size_t>(kPlanOps[i].op) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kPlanOps must list every PlanOp once, in enum order");

Json content_of(const Plan& p) {
  Json pre = Json::array();
  for (const auto& c : p.preconditions)
    pre.push_back(Json{{"kind", c.kind}, {"expected", c.expected}, {"key", c.key.empty() ? Json(nullptr) : Json(c.key)},
                       {"params", c.params}, {"detail", c.detail}});
  Json actions = Json::array();
  for (const auto& a : p.actions)
    actions.push_back(Json{{"op", std::string(op_name(a.op))}, {"key", a.key}, {"kind", a.kind}, {"target", a.target}, {"detail", a.detail},
                           {"params", a.params}});
  return Json{{"format", kPlanFormat}, {"command", p.command}, {"created_at", p.created_at}, {"context", p.context},
              {"notes", p.notes},       {"preconditions", pre},   {"actions", actions}};
}

std::string str_or_empty(const Json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string_view op_name(PlanOp op) { return kPlanOps[static_cast<std::size_t>(op)].name; }

std::optional<PlanOp> parse_plan_op(std::string_view name) {
  for (const auto& row : kPlanOps)
    if (row.name == name) return row.op;
  return std::nullopt;
}

bool Plan::is_write(PlanOp op) { return kPlanOps[static_cast<std::size_t>(op)].writes; }

std::size_t Plan::writes() const {
  std::size_t n = 0;
  for (const auto& a : actions)
    if (is_write(a.op)) ++n;
  return n;
}

bool Plan::has_precondition(const std::string& kind) const {
  for (const auto& c : preconditions)
    if (c.kind == kind) return true;
  return false;
}

std::string Plan::digest() const {
  // nlohmann's objects are sorted by key; dump(-1) uses "," and ":"; ensure_ascii as Python's
  // json.dumps default.
  return vcs::sha256_hex(content_of(*this).dump(-1, ' ', true));
}

Json Plan::to_json() const {
  Json j = content_of(*this);
  j["digest"] = digest();
  return j;
}

// ---- preconditions: every kind, and how each is checked ------------------------------------

// One precondition kind: what it compares with the live systems. A check returns what it
// observed when that differs from what the plan reviewed (the `{observed}` of its detail), or
// nothing when it still holds.
struct PreconditionChecker {
  Context& cx;
  using Check = std::optional<std::string> (PreconditionChecker::*)(const Precondition&);

  // The kinds a plan may carry (plan_from_json refuses others) and their checks.
  static const std::map<std::string, Check, std::less<>>& table() {
    static const std::map<std::string, Check, std::less<>> kinds = {
        // the dataset and this checkout
        {"manifest_hash", &PreconditionChecker::manifest_hash},
        {"workspace_id", &PreconditionChecker::workspace_id},
        {"workspace_bookmark", &PreconditionChecker::workspace_bookmark},
        {"config_version", &PreconditionChecker::config_version},
        {"no_new_holders", &PreconditionChecker::no_new_holders},
        // the VCS
        {"vcs_head", &PreconditionChecker::vcs_head},
        {"bookmark_head", &PreconditionChecker::bookmark_head},
        {"history_digest", &PreconditionChecker::history_digest},
        // the op log
        {"op_not_undone", &PreconditionChecker::op_not_undone},
        {"op_log_head", &PreconditionChecker::op_log_head},
        // one object's store
        {"ref_absent", &PreconditionChecker::ref_absent},
        {"ref_head", &PreconditionChecker::ref_head},
        {"base_state", &PreconditionChecker::base_state},
        {"pin_state", &PreconditionChecker::pin_state},
        {"store_empty", &PreconditionChecker::store_empty},
    };
    return kinds;
  }

  void check(const Plan& plan) {
    vet_saved_plan(cx, plan);  // edits first: a precondition may itself name a store to ask
    for (const auto& pc : plan.preconditions) {
      auto it = table().find(pc.kind);
      if (it == table().end()) throw StalePlanError("unknown plan precondition '" + pc.kind + "'; re-run the plan");
      auto observed = (this->*(it->second))(pc);
      if (!observed) continue;
      std::string msg = pc.detail.empty() ? pc.kind + " changed since the plan was made" : pc.detail;
      for (auto pos = msg.find("{observed}"); pos != std::string::npos; pos = msg.find("{observed}", pos + observed->size()))
        msg.replace(pos, 10, *observed);
      if (msg.find("re-run") == std::string::npos) msg += "; re-run the plan";
      throw StalePlanError(msg);
    }
  }

  std::optional<std::string> manifest_hash(const Precondition& pc) {
    const Json& p = pc.params;
    std::string now;
    if (p.contains("rev") && p["rev"].is_string()) now = model::manifest_hash(manifests_at(cx, p["rev"].get<std::string>()));
    else now = model::manifest_hash(cx.manifests);
    if (now != pc.expected) return now.substr(0, 12);
    return std::nullopt;
  }
  std::optional<std::string> workspace_id(const Precondition& pc) {
    if (!pc.expected.is_null() && pc.expected != cx.workspace->workspace_id) return cx.workspace->short_id();
    return std::nullopt;
  }
  std::optional<std::string> workspace_bookmark(const Precondition& pc) {
    Json mine = cx.workspace->bookmark ? Json(*cx.workspace->bookmark) : Json(nullptr);
    auto placed = cx.vcs->current_bookmark();
    Json vcs_b = placed ? Json(*placed) : Json(nullptr);
    if (mine != pc.expected || (!pc.expected.is_null() && vcs_b != pc.expected))
      return vcs_b.is_string() ? vcs_b.get<std::string>() : std::string("no bookmark");
    return std::nullopt;
  }
  std::optional<std::string> config_version(const Precondition& pc) {
    if (pc.expected != cx.config.version) return std::to_string(cx.config.version);
    return std::nullopt;
  }
  std::optional<std::string> no_new_holders(const Precondition& pc) {
    std::string b = pc.params.value("bookmark", std::string());
    std::vector<std::string> holders;
    for (const auto& [id, bm] : other_workspaces(cx))
      if (bm == b) holders.push_back(id.substr(0, 8));
    if (!holders.empty()) return join(holders);
    return std::nullopt;
  }
  std::optional<std::string> vcs_head(const Precondition& pc) {  // expected null: there was no commit yet
    auto h = cx.vcs->head();
    if (pc.expected.is_null() ? h.has_value() : (!h || pc.expected != *h)) return h ? short12(*h) : "no commit";
    return std::nullopt;
  }
  std::optional<std::string> bookmark_head(const Precondition& pc) {
    auto bms = cx.vcs->bookmarks();
    std::string b = pc.params.value("bookmark", std::string());
    auto it = bms.find(b);
    if (it == bms.end()) return "no bookmark " + b;
    if (pc.expected != it->second) return short12(it->second);
    return std::nullopt;
  }
  std::optional<std::string> history_digest(const Precondition& pc) {
    auto d = cx.vcs->history_digest();
    if (pc.expected != d) return d;
    return std::nullopt;
  }
  std::optional<std::string> op_not_undone(const Precondition& pc) {  // the entry `expected` is there, not undone
    auto entries = read_ops(cx);
    auto it = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return pc.expected == e.id; });
    if (it == entries.end()) return "gone from the op log";
    if (it->undone_by.is_string()) return "undone by " + it->undone_by.get<std::string>();
    return std::nullopt;
  }
  std::optional<std::string> op_log_head(const Precondition& pc) {  // the newest entry is still `expected`
    auto entries = read_ops(cx);
    if (entries.empty()) return "none";
    if (pc.expected != entries.back().id) return entries.back().id + " (" + entries.back().command + ")";
    return std::nullopt;
  }

  // The object a store precondition is about, and the locator to ask (the plan's, for a
  // state pinned by `at`).
  std::pair<const model::ObjectManifest*, Json> object_of(const Precondition& pc) {
    auto it = cx.manifests.find(pc.key);
    if (it == cx.manifests.end()) throw StalePlanError(model::py_repr(pc.key) + " is no longer registered; re-run the plan");
    Json loc = pc.params.contains("locator") ? pc.params["locator"] : it->second.locator;
    return {&it->second, loc};
  }
  std::optional<std::string> ref_absent(const Precondition& pc) {
    auto [m, loc] = object_of(pc);
    std::string ref = pc.params.value("ref", std::string());
    auto refs = cx.backend(m->kind).list_working_refs(loc, m->key);
    if (std::find(refs.begin(), refs.end(), ref) != refs.end()) return ref + " exists";
    return std::nullopt;
  }
  std::optional<std::string> ref_head(const Precondition& pc) {
    auto [m, loc] = object_of(pc);
    auto& b = cx.backend(m->kind);
    std::string ref = pc.params.value("ref", std::string());
    std::optional<Json> head;
    try {
      head = b.fingerprint(loc, ref, m->key);
    } catch (const BackendError&) {
    }
    if (pc.expected.is_null()) return head ? std::optional(model::short_state(*head)) : std::nullopt;
    if (!head) return ref + " gone";
    if (!b.same(*head, pc.expected)) return model::short_state(*head);
    return std::nullopt;
  }
  std::optional<std::string> base_state(const Precondition& pc) {
    auto [m, loc] = object_of(pc);
    auto& b = cx.backend(m->kind);
    Json base_loc = loc;
    base_loc.erase("at");
    Json now = b.fingerprint(base_loc, std::nullopt, m->key);
    if (!b.same(now, pc.expected)) return model::short_state(now);
    return std::nullopt;
  }
  std::optional<std::string> pin_state(const Precondition& pc) {
    auto [m, loc] = object_of(pc);
    auto pin = pc.params.at("pin").get<sdk::Pin>();
    auto rep = cx.backend(m->kind).verify(loc, pc.expected, pin, false, m->key);
    if (!rep.ok()) return rep.message;
    return std::nullopt;
  }
  std::optional<std::string> store_empty(const Precondition& pc) {
    auto [m, loc] = object_of(pc);
    auto empty = cx.backend(m->kind).is_ref_empty(loc, pc.params.value("ignoring", std::vector<std::string>{}), m->key);
    if (empty != true) return "not empty";
    return std::nullopt;
  }
};

void check_preconditions(Context& cx, const Plan& plan) { PreconditionChecker{cx}.check(plan); }

bool known_precondition(const std::string& kind) { return PreconditionChecker::table().count(kind) != 0; }


Plan plan_from_json(const Json& j, const std::string& expected_command, const std::vector<std::string>& required,
                    const std::string& source) {
  if (!j.is_object()) throw ConfigError("invalid plan: " + source + " does not hold a JSON object");
  Json format = j.value("format", Json(nullptr));
  if (format == 1)
    throw StalePlanError("plan format 1 predates 0.1.0b1 and carries no preconditions; re-run the plan");
  if (format == 2)
    throw StalePlanError(
        "plan format 2 predates 0.1.0b4 and carries no digest binding its actions and context to its preconditions; "
        "re-run the plan");
  if (format != kPlanFormat) throw ConfigError("unsupported plan format " + format.dump());
  std::string command = str_or_empty(j, "command");
  if (command != expected_command)
    throw ConfigError(source + " is a '" + command + "' plan, expected '" + expected_command + "'");
  Plan p;
  try {
    p.command = command;
    p.created_at = str_or_empty(j, "created_at");
    p.context = j.value("context", Json::object());
    for (const auto& n : j.value("notes", Json::array())) p.notes.push_back(n.get<std::string>());
    for (const auto& c : j.value("preconditions", Json::array())) {
      Precondition pc;
      pc.kind = c.at("kind").get<std::string>();
      if (!known_precondition(pc.kind)) throw ConfigError("unknown plan precondition '" + pc.kind + "'");
      pc.expected = c.value("expected", Json(nullptr));
      pc.key = str_or_empty(c, "key");
      pc.params = c.value("params", Json::object());
      pc.detail = str_or_empty(c, "detail");
      p.preconditions.push_back(std::move(pc));
    }
    for (const auto& a : j.value("actions", Json::array())) {
      const auto name = a.at("op").get<std::string>();
      auto op = parse_plan_op(name);
      if (!op) throw StalePlanError("unknown plan action '" + name + "'; re-run the plan");
      p.actions.push_back(PlanAction{*op, str_or_empty(a, "key"), str_or_empty(a, "kind"), str_or_empty(a, "target"),
                                     str_or_empty(a, "detail"), a.value("params", Json::object())});
    }
  } catch (const Json::exception& e) {
    throw ConfigError(std::string("invalid plan: ") + e.what());
  }
  auto digest = j.find("digest");
  if (digest == j.end() || !digest->is_string() || digest->get<std::string>() != p.digest())
    throw StalePlanError("the plan in " + source + " was edited after it was saved (its digest does not match); re-run the plan");
  std::vector<std::string> missing;
  for (const auto& r : required)
    if (!p.has_precondition(r)) missing.push_back(r);
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    throw StalePlanError("the plan in " + source + " predates the " + names +
                         " precondition(s) tether now requires; re-run the plan");
  }
  return p;
}

Plan read_plan_file(const std::filesystem::path& path, const std::string& expected_command,
                    const std::vector<std::string>& required) {
  std::string text;
  try {
    // Refuse an oversized file before reading it whole.
    std::error_code ec;
    if (auto size = std::filesystem::file_size(path, ec); !ec && size > model::kMaxPlanBytes)
      throw TetherError(std::to_string(size) + " bytes, more than the " + std::to_string(model::kMaxPlanBytes) +
                        "-byte limit for a plan");
    text = model::read_file(path);
  } catch (const std::exception& e) {
    throw ConfigError("invalid plan: cannot read " + path.string() + ": " + e.what());
  }
  // Plans wrap states read under kMaxNesting: they get the headroom of wrapped records.
  std::string why;
  auto parsed = model::try_parse_json(text, {model::kMaxPlanBytes, model::kMaxWrappedNesting}, &why);
  if (!parsed) {
    for (char& c : why)
      if (c == '\n' || c == '\r') c = ' ';
    throw ConfigError("invalid plan: " + path.string() + ": " + why + "; make the plan again with --plan");
  }
  const Json& j = *parsed;
  return plan_from_json(j, expected_command, required, path.string());
}

void write_plan_file(const std::filesystem::path& path, const Plan& plan) {
  model::atomic_write_file(path, plan.to_json().dump(2) + "\n");
}

}  // namespace tether::engine
