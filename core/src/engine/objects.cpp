// core/src/engine/objects.cpp: registering objects (add, remove, set) and native history
// (log). None of these but `add --create` and `log` contact a store. `import` (import.cpp)
// registers and unregisters through the same helpers.
#include <cstdlib>

#include "engine/internal.hpp"
#include "tether/engine/objects.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/workspace.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

namespace {

// A URL scheme (`s3:`, `file:`, `ducklake:`): a letter, then letters, digits, `+`, `.`, `-`.
bool has_scheme(const std::string& v) {
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (v.empty() || !alpha(v[0])) return false;
  for (std::size_t i = 1; i < v.size(); ++i) {
    char c = v[i];
    if (c == ':') return true;
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '.' && c != '-') return false;
  }
  return false;
}

// A relative local path becomes absolute against `cwd` (with `~` expanded), so a committed
// locator means the same path from every directory and every clone. URLs pass through.
std::string absolutize(std::string v, const fs::path& cwd, const std::vector<std::string>& prefixes) {
  std::string prefix;
  for (const auto& p : prefixes)
    if (v.rfind(p, 0) == 0 && p.size() > prefix.size()) prefix = p;
  std::string rest = v.substr(prefix.size());
  // A URL, also after a prefix (`ducklake:postgres:dbname=x`, `ducklake:s3://...`), is no path.
  if (has_scheme(rest)) return v;
  if (rest.empty()) return v;
  if (rest == "~" || rest.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home) rest = std::string(home) + rest.substr(1);
  }
  fs::path p(rest);
  if (p.is_relative()) p = cwd / p;
  std::string out = p.lexically_normal().string();
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return prefix + out;
}

// The local path a LOCAL_PATH_KEYS value names (its prefix dropped), or nullopt for a URL.
std::optional<std::string> local_path_of(const std::string& v, const std::vector<std::string>& prefixes) {
  std::string prefix;
  for (const auto& p : prefixes)
    if (v.rfind(p, 0) == 0 && p.size() > prefix.size()) prefix = p;
  std::string rest = v.substr(prefix.size());
  if (rest.rfind("file://", 0) == 0) rest = rest.substr(7);
  else if (has_scheme(rest)) return std::nullopt;
  if (rest.empty()) return std::nullopt;
  return rest;
}

void check_policy(const std::string& field, const std::string& value) {
  if (field == "file") model::validate_policy_file(value);
  else model::validate_policy_pin(value);
}

}  // namespace

AddResult Repo::add(const AddRequest& req) {
  model::validate_key(req.key);
  std::string file = req.file_policy.value_or(config_.default_file);
  std::string pin = req.pin_policy.value_or(config_.default_pin);
  check_policy("file", file);
  check_policy("pin", pin);
  auto lock = lock_checkout();
  if (manifests_.count(req.key)) throw ConfigError("object already exists: " + req.key);
  auto& b = backend(req.kind);
  const auto& desc = b.description();

  model::ObjectManifest m;
  m.key = req.key;
  m.kind = req.kind;
  m.locator = stored_locator(b, req.key, req.locator, req.cwd);
  m.policy.file = file;
  m.policy.pin = pin;
  // A local store must exist unless `--create` is to make it; caught here, while the
  // author of the manifest is present, not at the first status of a clone.
  if (!req.create)
    for (const auto& k : desc.local_path_keys) {
      if (!m.locator.contains(k) || !m.locator[k].is_string()) continue;
      auto path = local_path_of(m.locator[k].get<std::string>(), desc.local_path_prefixes);
      std::error_code ec;
      if (path && !fs::exists(*path, ec))
        throw ConfigError(*path + " does not exist; check the path (relative paths are from the current directory), or pass --create to make an empty " + req.kind + " store there");
    }

  AddResult res{req.key, req.kind, std::nullopt, false, desc.maturity};
  if (m.locator.contains("at") && m.locator["at"].is_string()) res.at = m.locator["at"].get<std::string>();
  Json pre{{"objects", Json{{req.key, nullptr}}}, {"workspace", model::workspace_to_toml(*workspace_)}};
  if (req.create) {
    if (!(b.capabilities() & sdk::kCreate)) throw CapabilityError(req.kind + " backend cannot create a store", req.key);
    b.create(m.locator, dataset_id_, req.key);
    m.origin = "created";
    res.created = true;
  }
  Json result{{"key", req.key}};
  if (res.created) result["created"] = Json{{"kind", req.kind}, {"locator", m.locator}};
  res.locator = m.locator;
  register_object(std::move(m));
  write_workspace();
  log_op("add", pre, result);
  return res;
}

Json Repo::stored_locator(host::BackendProxy& b, const std::string& key, Json locator, const fs::path& cwd) {
  const auto& desc = b.description();
  for (const auto& k : desc.local_path_keys)
    if (locator.contains(k) && locator[k].is_string())
      locator[k] = absolutize(locator[k].get<std::string>(), cwd, desc.local_path_prefixes);
  b.validate_locator(locator, key);
  return locator;
}

void Repo::register_object(model::ObjectManifest m) {
  model::write_manifest(objects_dir(), m);
  // A branch this checkout held for an earlier object of the key is not this object's.
  workspace_->working_refs.erase(m.key);
  workspace_->pending_forks.erase(m.key);
  workspace_->pending_resets.erase(m.key);
  workspace_->fork_points.erase(m.key);
  workspace_->base_states.erase(m.key);
  std::string key = m.key;
  manifests_[key] = std::move(m);
}

void Repo::unregister_object(const std::string& key) {
  model::remove_manifest(objects_dir(), key);
  // The working ref stays so gc can judge the branch.
  workspace_->last_snapshot.erase(key);
  workspace_->last_snapshot_errors.erase(key);
  workspace_->pending_forks.erase(key);
  workspace_->pending_resets.erase(key);
  workspace_->fork_points.erase(key);
  workspace_->base_states.erase(key);
  manifests_.erase(key);
}

RemoveResult Repo::remove(const std::string& key) {
  auto lock = lock_checkout();
  auto it = manifests_.find(key);
  if (it == manifests_.end()) throw ConfigError("no such object: " + key);
  RemoveResult res{key, it->second.kind};
  Json pre{{"objects", Json{{key, model::manifest_to_toml(it->second)}}}, {"workspace", model::workspace_to_toml(*workspace_)}};
  unregister_object(key);
  write_workspace();
  log_op("remove", pre, Json{{"key", key}});
  return res;
}

Json AddResult::to_json() const {
  return Json{{"key", key},
              {"kind", kind},
              {"locator", locator},
              {"at", at ? Json(*at) : Json(nullptr)},
              {"created", created},
              {"maturity", maturity}};
}

Json RemoveResult::to_json() const { return Json{{"key", key}, {"kind", kind}}; }

SetResult Repo::set_policy(const std::vector<std::string>& keys_in, bool all, const std::optional<std::string>& file,
                           const std::optional<std::string>& pin) {
  if (!file && !pin) throw ConfigError("nothing to set: pass --file or --pin");
  if (file) check_policy("file", *file);
  if (pin) check_policy("pin", *pin);
  auto lock = lock_checkout();
  std::vector<std::string> keys = keys_in;
  if (all) {
    keys.clear();
    for (const auto& [k, m] : manifests_) keys.push_back(k);
  }
  if (keys.empty()) throw ConfigError("give one or more KEY, or --all");
  for (const auto& k : keys)
    if (!manifests_.count(k)) throw ConfigError("no such object: " + k);
  SetResult res;
  Json pre_objects = Json::object();
  for (const auto& k : keys) {
    auto& m = manifests_.at(k);
    std::map<std::string, std::pair<std::string, std::string>> changes;
    if (file && *file != m.policy.file) changes["file"] = {m.policy.file, *file};
    if (pin && *pin != m.policy.pin) changes["pin"] = {m.policy.pin, *pin};
    if (changes.empty()) {
      res.unchanged.push_back(k);
      continue;
    }
    pre_objects[k] = model::manifest_to_toml(m);
    if (file) m.policy.file = *file;
    if (pin) m.policy.pin = *pin;
    model::write_manifest(objects_dir(), m);
    res.changed[k] = std::move(changes);
  }
  if (!res.changed.empty()) {
    Json changed = Json::object();
    for (const auto& [k, fields] : res.changed)
      for (const auto& [f, v] : fields) changed[k][f] = Json::array({v.first, v.second});
    log_op("set", Json{{"objects", pre_objects}, {"workspace", model::workspace_to_toml(*workspace_)}},
           Json{{"changed", changed}});
  }
  return res;
}

std::vector<sdk::HistoryEntry> Repo::log(const std::string& key, const std::optional<std::string>& ref, int limit) {
  auto it = manifests_.find(key);
  if (it == manifests_.end()) throw ConfigError("no such object: " + key);
  const auto& m = it->second;
  auto& b = backend(m.kind);
  if (!(b.capabilities() & sdk::kHistory))
    throw CapabilityError(m.kind + " objects have no native history to list (the " + m.kind +
                              " backend lacks HISTORY; `tether backends` shows each backend's capabilities)",
                          key);
  return b.history(m.locator, ref ? ref : working_ref(key), limit, key);
}

Json SetResult::to_json() const {
  Json fields = Json::object();
  for (const auto& [k, changes] : changed)
    for (const auto& [f, v] : changes) fields[k][f] = {{"from", v.first}, {"to", v.second}};
  return Json{{"changed", fields}, {"unchanged", unchanged}};
}

}  // namespace tether::engine
