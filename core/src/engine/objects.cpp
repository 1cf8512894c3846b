// core/src/engine/objects.cpp: what registering and unregistering share (add, remove and
// import): the locator a manifest stores, writing a manifest, deleting one.
#include <cstdlib>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
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

void check_policy(const std::string& field, const std::string& value) {
  if (field == "file") model::validate_policy_file(value);
  else model::validate_policy_pin(value);
}

namespace {

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

}  // namespace

Json stored_locator(host::BackendProxy& b, const std::string& key, Json locator, const fs::path& cwd) {
  const auto& desc = b.description();
  for (const auto& k : desc.local_path_keys)
    if (locator.contains(k) && locator[k].is_string())
      locator[k] = absolutize(locator[k].get<std::string>(), cwd, desc.local_path_prefixes);
  b.validate_locator(locator, key);
  return locator;
}

void register_object(Context& cx, model::ObjectManifest m) {
  model::write_manifest(objects_dir(cx), m);
  // A branch this checkout held for an earlier object of the key is not this object's.
  cx.workspace->working_refs.erase(m.key);
  cx.workspace->pending_forks.erase(m.key);
  cx.workspace->pending_resets.erase(m.key);
  cx.workspace->fork_points.erase(m.key);
  cx.workspace->base_states.erase(m.key);
  std::string key = m.key;
  cx.manifests[key] = std::move(m);
}

void unregister_object(Context& cx, const std::string& key) {
  model::remove_manifest(objects_dir(cx), key);
  // The working ref stays so gc can judge the branch.
  cx.workspace->last_snapshot.erase(key);
  cx.workspace->last_snapshot_errors.erase(key);
  cx.workspace->pending_forks.erase(key);
  cx.workspace->pending_resets.erase(key);
  cx.workspace->fork_points.erase(key);
  cx.workspace->base_states.erase(key);
  cx.manifests.erase(key);
}

// ---- undoing add, remove, set and import (undo.cpp runs it; engine/undoer.hpp) ----

static std::optional<std::string> created_store(const Undoer& u) {
  if (u.target.command == "add" && u.target.result.contains("created")) return str_of(u.target.result, "key");
  return std::nullopt;
}
static std::string store_left() { return "stays; `tether gc --delete-stores` deletes it once nothing references it and nothing else is in it"; }
void undo_objects(Undoer& u) {
  if (auto key = created_store(u)) u.irreversible.push_back(*key + ": the store it created " + store_left());
  u.restore_manifests();
  u.restore_workspace();
}
void plan_undo_objects(Undoer& u) {
  if (auto key = created_store(u)) u.act(PlanOp::Irreversible, *key, "", "the store add created", store_left());
  u.plan_manifests();
  u.plan_workspace();
}

}  // namespace tether::engine
