// core/src/engine/plan.cpp: plans as data: JSON (format 3), the digest, saving and loading.
#include "tether/engine/plan.hpp"

#include <set>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace {

// `irreversible`: a line of an undo plan naming what cannot be reversed.
const std::set<std::string> kNonWrites = {"trunk", "keep-branch", "keep-pin", "keep-store", "defer-fork",
                                          "refuse", "reuse", "adopt", "hold", "share", "irreversible"};

const std::set<std::string> kKnownPreconditions = {
    "manifest_hash", "workspace_id", "workspace_bookmark", "vcs_head",  "history_digest", "config_version", "ref_absent",
    "ref_head",      "base_state",   "pin_state",          "no_new_holders", "bookmark_head", "store_empty",
    "op_not_undone", "op_log_head"};

Json content_of(const Plan& p) {
  Json pre = Json::array();
  for (const auto& c : p.preconditions)
    pre.push_back(Json{{"kind", c.kind}, {"expected", c.expected}, {"key", c.key.empty() ? Json(nullptr) : Json(c.key)},
                       {"params", c.params}, {"detail", c.detail}});
  Json actions = Json::array();
  for (const auto& a : p.actions)
    actions.push_back(Json{{"op", a.op}, {"key", a.key}, {"kind", a.kind}, {"target", a.target}, {"detail", a.detail},
                           {"params", a.params}});
  return Json{{"format", kPlanFormat}, {"command", p.command}, {"created_at", p.created_at}, {"context", p.context},
              {"notes", p.notes},       {"preconditions", pre},   {"actions", actions}};
}

std::string str_or_empty(const Json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool Plan::is_write(const std::string& op) { return !kNonWrites.count(op); }

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

const std::vector<std::string>& required_preconditions(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> req = {
      {"commit", {"workspace_id", "workspace_bookmark", "manifest_hash"}},
      {"new", {"workspace_id", "manifest_hash"}},
      {"restore", {"workspace_id", "workspace_bookmark", "manifest_hash"}},
      {"promote", {"workspace_id", "workspace_bookmark", "bookmark_head", "manifest_hash"}},
      {"gc", {"workspace_id", "history_digest", "manifest_hash"}},
      {"abandon", {"workspace_id", "history_digest", "vcs_head"}},
      {"drop", {"workspace_id", "history_digest", "bookmark_head", "no_new_holders"}},
      {"repair", {"workspace_id", "history_digest"}},
      {"undo", {"workspace_id", "vcs_head", "op_not_undone", "op_log_head"}},
      {"import", {"manifest_hash"}},
  };
  static const std::vector<std::string> none;
  auto it = req.find(command);
  return it == req.end() ? none : it->second;
}

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
      if (!kKnownPreconditions.count(pc.kind)) throw ConfigError("unknown plan precondition '" + pc.kind + "'");
      pc.expected = c.value("expected", Json(nullptr));
      pc.key = str_or_empty(c, "key");
      pc.params = c.value("params", Json::object());
      pc.detail = str_or_empty(c, "detail");
      p.preconditions.push_back(std::move(pc));
    }
    for (const auto& a : j.value("actions", Json::array()))
      p.actions.push_back(PlanAction{a.at("op").get<std::string>(), str_or_empty(a, "key"), str_or_empty(a, "kind"),
                                     str_or_empty(a, "target"), str_or_empty(a, "detail"), a.value("params", Json::object())});
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
