// core/src/engine/import.cpp: `tether import` (docs/registry.md#import, experimental). The
// rows a source lists are validated as canonical columns, planned against the registered
// manifests (add / update / remove, `<key>: unchanged` notes, a kind change refused) and
// applied under the checkout lock as one op-log entry that `tether undo` reverses. Import
// changes what is tracked only: no store is contacted and no state recorded.
#include <algorithm>
#include <map>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/import.hpp"
#include "tether/engine/objects.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/load_error.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/workspace.hpp"
#include "tether/registry/import_source.hpp"

namespace tether::engine {

static ImportResult apply_import(Context& cx, const Plan& plan);
static Plan plan_import(Context& cx, const std::vector<Json>& rows, bool sync, const std::filesystem::path& cwd);

namespace {

const std::set<std::string>& canonical_columns() {
  static const std::set<std::string> c{"key", "kind", "uri", "locator_json", "policy_file", "policy_pin", "at"};
  return c;
}

std::string strip(std::string s) {
  const char* ws = " \t\r\n\f\v";
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

// A cell as text: SQL sources give numbers where CSV gives strings; null and absent are "".
std::string cell(const Json& row, const char* column) {
  auto it = row.find(column);
  if (it == row.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : model::py_str(*it);
}

// One validated row (ImportSpec): the locator as the source gives it, before absolutising.
struct ImportSpec {
  std::string key, kind;
  Json locator;
  model::Policy policy;
};

std::string policy_detail(bool locator_changed, bool policy_changed) {
  if (locator_changed && policy_changed) return "locator and policy changed; committed state kept";
  return locator_changed ? "locator changed; committed state kept" : "policy changed; committed state kept";
}

Json policy_json(const model::Policy& p) { return Json{{"file", p.file}, {"pin", p.pin}}; }

const char* const kUnchanged = ": unchanged";

}  // namespace

ImportResult import_objects(Repo& repo, const ImportOptions& opt) {
  Context& cx = Context::of(repo);
  std::vector<Json> rows;
  if (!opt.saved) {
    std::optional<std::string> query = opt.query;
    if (!opt.table && !query && registry::is_sql_source(opt.source)) {
      auto imp = cx.secrets.find("import");
      if (imp != cx.secrets.end() && imp->is_object() && imp->contains("query") && (*imp)["query"].is_string())
        query = (*imp)["query"].get<std::string>();
      else if (cx.config.import_query)
        // The committed file is written by whoever pushed last; the DSN is this user's.
        throw ConfigError(
            "tether.toml sets [import] query; a committed file arrives with every clone and must not choose SQL that "
            "runs with your DSN. Move it to .tether/secrets.toml under [import], or pass --query");
    }
    // Read before locking: a slow database does not hold the checkout.
    rows = registry::read_source(opt.source, opt.table, query);
  }
  auto lock = lock_checkout(cx);
  return run_planned<ImportResult>(
      opt.saved, opt.dry_run, [&](const Plan& p) { check_preconditions(cx, p); },
      [&] { return plan_import(cx, rows, opt.sync, opt.cwd); }, [&](const Plan& p) { return apply_import(cx, p); });
}

static Plan plan_import(Context& cx, const std::vector<Json>& rows, bool sync, const std::filesystem::path& cwd) {
  // 1. Rows -> specs (the canonical columns of docs/registry.md#import).
  std::map<std::string, ImportSpec> specs;
  std::set<std::string> ignored;
  for (const auto& row : rows) {
    if (!row.is_object()) throw ConfigError("import row is not a mapping of columns: " + model::py_repr(row));
    for (const auto& [column, value] : row.items())
      if (!canonical_columns().count(column)) ignored.insert(column);
    ImportSpec s;
    s.key = strip(cell(row, "key"));
    s.kind = strip(cell(row, "kind"));
    if (s.key.empty() || s.kind.empty()) throw ConfigError("import row needs `key` and `kind`: " + model::py_repr(row));
    model::validate_key(s.key);
    try {
      cx.host->get(s.kind);
    } catch (const host::LoadError& e) {
      if (!e.path().empty()) throw;  // installed, but it does not load: that message is the useful one
      throw ConfigError("unknown backend kind " + model::py_repr(s.kind) + " for " + model::py_repr(s.key) +
                        " (`tether backends` lists the installed kinds)");
    }
    Json loc = Json::object();
    if (auto it = row.find("locator_json"); it != row.end() && !it->is_null()) {
      Json parsed = *it;
      if (it->is_string()) {
        std::string text = strip(it->get<std::string>());
        if (text.empty()) parsed = nullptr;
        else {
          // It becomes a manifest's locator: the limits of one document.
          std::string why;
          auto j = model::try_parse_json(text, {}, &why);
          if (!j && why.rfind("not valid JSON", 0) == 0)
            throw ConfigError("locator_json for " + model::py_repr(s.key) + " is not valid JSON: " + model::py_repr(text));
          if (!j) throw ConfigError("locator_json for " + model::py_repr(s.key) + ": " + why + "; fix the import source");
          parsed = std::move(*j);
        }
      }
      if (!parsed.is_null() && !parsed.is_object())
        throw ConfigError("locator_json for " + model::py_repr(s.key) + " must be a JSON object");
      if (parsed.is_object())
        for (const auto& [k, v] : parsed.items())
          if (!v.is_null()) loc[k] = v;  // TOML cannot hold a null
    }
    std::string uri = cell(row, "uri");
    if (!uri.empty() && !loc.contains("uri")) loc["uri"] = uri;  // locator_json's own uri wins
    if (loc.empty())
      throw ConfigError("import row for " + model::py_repr(s.key) + " has no locator (uri/locator_json)");
    if (std::string at = cell(row, "at"); !at.empty()) loc["at"] = at;  // like `add --at`
    s.locator = std::move(loc);
    std::string file = strip(cell(row, "policy_file")), pin = strip(cell(row, "policy_pin"));
    s.policy.file = file.empty() ? cx.config.default_file : file;
    s.policy.pin = pin.empty() ? cx.config.default_pin : pin;
    model::validate_policy_file(s.policy.file);
    model::validate_policy_pin(s.policy.pin);
    if (specs.count(s.key)) throw ConfigError("import source lists " + model::py_repr(s.key) + " more than once");
    std::string key = s.key;
    specs.emplace(std::move(key), std::move(s));
  }

  // 2. The plan (docs/cli.md, `tether import`).
  Plan plan;
  plan.command = "import";
  plan.created_at = now_iso_seconds(cx);
  std::string mhash = model::manifest_hash(cx.manifests);
  plan.context = Json{{"manifest_hash", mhash}, {"sync", sync}, {"rows", specs.size()}};
  if (!ignored.empty()) plan.notes.push_back("ignored columns: " + join(std::vector<std::string>(ignored.begin(), ignored.end())));
  plan.preconditions.push_back(
      {"manifest_hash", mhash, "", Json::object(), "manifests changed since the plan was made; re-run the plan"});
  for (const auto& [key, s] : specs) {
    Json locator = stored_locator(cx.backend(s.kind), key, s.locator, cwd);
    std::string target = locator.contains("uri") && locator["uri"].is_string() ? locator["uri"].get<std::string>() : "";
    Json params{{"locator", locator}, {"policy", policy_json(s.policy)}};
    auto reg = cx.manifests.find(key);
    if (reg == cx.manifests.end()) {
      plan.actions.push_back({PlanOp::Add, key, s.kind, target, "register", std::move(params)});
      continue;
    }
    const auto& m = reg->second;
    if (m.kind != s.kind)
      throw ConfigError(model::py_repr(key) + " is registered as " + model::py_repr(m.kind) + " but the source says " +
                        model::py_repr(s.kind) + "; remove and re-add it to change kinds");
    bool locator_changed = m.locator != locator, policy_changed = !(m.policy == s.policy);
    if (locator_changed || policy_changed)
      plan.actions.push_back({PlanOp::Update, key, s.kind, target, policy_detail(locator_changed, policy_changed), std::move(params)});
    else plan.notes.push_back(key + kUnchanged);
  }
  if (sync)
    for (const auto& [key, m] : cx.manifests)
      if (!specs.count(key)) plan.actions.push_back({PlanOp::Remove, key, m.kind, "", "not listed by the source (sync)"});
  return plan;
}

static ImportResult apply_import(Context& cx, const Plan& plan) {
  if (plan.command != "import") throw ConfigError("a '" + plan.command + "' plan cannot be applied by import");
  auto lock = lock_checkout(cx);
  ImportResult res;
  res.plan = plan;
  res.applied = true;
  const std::string suffix = kUnchanged;
  for (const auto& n : plan.notes)
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      res.unchanged.push_back(n.substr(0, n.size() - suffix.size()));
  if (plan.actions.empty()) return res;

  // Every new manifest is worked out before the first write, so a refusal leaves no half import.
  struct Change {
    PlanOp op;
    std::string key;
    model::ObjectManifest manifest;  // add / update: what is written
    bool locator_changed = false;
  };
  std::vector<Change> changes;
  Json pre_objects = Json::object();
  for (const auto& a : plan.actions) {
    model::validate_key(a.key);
    Change c{a.op, a.key, {}, false};
    auto reg = cx.manifests.find(a.key);
    pre_objects[a.key] = reg == cx.manifests.end() ? Json(nullptr) : Json(model::manifest_to_toml(reg->second));
    if (a.op == PlanOp::Remove) {
      if (reg == cx.manifests.end()) throw StalePlanError(model::py_repr(a.key) + " is no longer registered; re-run the plan");
    } else if (a.op == PlanOp::Add || a.op == PlanOp::Update) {
      auto& b = cx.backend(a.kind);
      Json locator = a.params.value("locator", Json::object());
      b.validate_locator(locator, a.key);
      Json pol = a.params.value("policy", Json::object());
      model::Policy policy{pol.value("file", cx.config.default_file), pol.value("pin", cx.config.default_pin)};
      model::validate_policy_file(policy.file);
      model::validate_policy_pin(policy.pin);
      if (a.op == PlanOp::Add) {
        if (reg != cx.manifests.end()) throw StalePlanError(model::py_repr(a.key) + " is registered already; re-run the plan");
        c.manifest.key = a.key;
        c.manifest.kind = a.kind;
      } else {
        if (reg == cx.manifests.end()) throw StalePlanError(model::py_repr(a.key) + " is no longer registered; re-run the plan");
        c.manifest = reg->second;
        c.locator_changed = c.manifest.locator != locator;
        // Another system: what was committed for the old one says nothing about this one.
        if (c.locator_changed && b.identity(c.manifest.locator, a.key) != b.identity(locator, a.key)) {
          c.manifest.state.reset();
          c.manifest.pin.reset();
          c.manifest.captured_at.reset();
          c.manifest.recoverable = true;
        }
      }
      c.manifest.locator = std::move(locator);
      c.manifest.policy = std::move(policy);
    } else {
      throw ConfigError("unknown import action '" + std::string(op_name(a.op)) + "' in the plan");
    }
    changes.push_back(std::move(c));
  }

  OpLog oplog = op_log(cx);
  const std::string op_id =
      oplog.begin("import", Json{{"objects", pre_objects}, {"workspace", model::workspace_to_toml(*cx.workspace)}});
  for (auto& c : changes) {
    if (c.op == PlanOp::Add) {
      register_object(cx, std::move(c.manifest));
      res.added.push_back(c.key);
    } else if (c.op == PlanOp::Update) {
      model::write_manifest(objects_dir(cx), c.manifest);
      // The branch (and the cached fingerprint) belong to the old locator: this checkout lets
      // go of them; gc judges the branch.
      if (c.locator_changed) cx.workspace->forget_key(c.key);
      cx.manifests[c.key] = std::move(c.manifest);
      res.updated.push_back(c.key);
    } else {
      unregister_object(cx, c.key);
      res.removed.push_back(c.key);
    }
  }
  write_workspace(cx);
  oplog.end(op_id, Json{{"added", res.added}, {"updated", res.updated}, {"removed", res.removed}, {"unchanged", res.unchanged}});
  return res;
}

Json ImportResult::to_json() const {
  return Json{{"added", added}, {"updated", updated}, {"removed", removed}, {"unchanged", unchanged}};
}

// What `tether ops` says of an import (ops.cpp's table).
std::string summarize_import(const OpEntry& e) {
  const Json& r = e.result;
  return "added " + std::to_string(count_of(r, "added")) + ", updated " + std::to_string(count_of(r, "updated")) +
         ", removed " + std::to_string(count_of(r, "removed"));
}

}  // namespace tether::engine
