// core/src/engine/add.cpp: `tether add` (docs/cli.md#add): register an object; nothing is
// contacted unless --create asks the backend to make an empty store.
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
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

namespace {

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

}  // namespace

namespace {

// A lone positional of a path kind is the locator; the key comes from it.
AddRequest with_key(Context& cx, const AddRequest& given) {
  AddRequest req = given;
  if (!req.key_may_be_locator) return req;
  req.key_may_be_locator = false;
  auto& b = cx.backend(req.kind);
  const auto& desc = b.description();
  if (!desc.key_suffixes) return req;
  for (const auto& k : desc.uri_keys)
    if (req.locator.contains(k)) return req;  // the store is named otherwise: the positional is the key
  const std::string path = req.key;
  req.locator["uri"] = path;
  std::optional<std::string> key = b.default_key(req.locator, path);
  if (!key)
    throw ConfigError("cannot make a key from " + model::py_repr(path) + ": name the object, as in `tether add KEY " +
                      path + " --kind " + req.kind + "`");
  req.key = *key;
  return req;
}

}  // namespace

AddRequest settle_key(Repo& repo, const AddRequest& request) {
  Context& cx = Context::of(repo);
  AddRequest req = with_key(cx, request);
  model::validate_key(req.key);
  if (cx.manifests.count(req.key)) throw ConfigError("object already exists: " + req.key);  // before any question
  return req;
}

AddResult add(Repo& repo, const AddRequest& request) {
  Context& cx = Context::of(repo);
  const AddRequest req = with_key(cx, request);
  model::validate_key(req.key);
  std::string file = req.file_policy.value_or(cx.config.default_file);
  std::string pin = req.pin_policy.value_or(cx.config.default_pin);
  check_policy("file", file);
  check_policy("pin", pin);
  auto lock = lock_checkout(cx);
  if (cx.manifests.count(req.key)) throw ConfigError("object already exists: " + req.key);
  auto& b = cx.backend(req.kind);
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

  AddResult res;
  res.key = req.key;
  res.kind = req.kind;
  res.maturity = desc.maturity;
  if (m.locator.contains("at") && m.locator["at"].is_string()) res.at = m.locator["at"].get<std::string>();
  Json pre{{"objects", Json{{req.key, nullptr}}}, {"workspace", model::workspace_to_toml(*cx.workspace)}};
  Json result{{"key", req.key}};
  std::optional<std::pair<std::string, Json>> fork;  // the bookmark's branch of a created store, and where it starts
  if (req.create) {
    if (!(b.capabilities() & sdk::kCreate)) throw CapabilityError(req.kind + " backend cannot create a store", req.key);
    const Json initial = b.create(m.locator, cx.dataset_id, req.key);
    m.origin = "created";
    res.created = true;
    // Recorded at once, so that `gc --delete-stores` can reclaim it whatever happens next.
    StoreRecord rec;
    rec.dataset_id = cx.dataset_id;
    rec.kind = req.kind;
    rec.key = req.key;
    rec.bookmark = cx.workspace->bookmark.value_or("");
    rec.identity = b.identity(m.locator, req.key);
    rec.locator = m.locator;
    if (auto failed = created_index(cx).record(rec))
      res.warnings.push_back("could not record " + req.key + " in the created-stores index (" + *failed +
                             "); `gc --delete-stores --store " + req.kind + "=...` names it instead");
    result["created"] = Json{{"kind", req.kind}, {"locator", m.locator}, {"identity", rec.identity}};
    // On a bookmark other than the trunk, the bookmark writes to its own branch from the start,
    // as `new` would have made it had the object existed then.
    if (!on_trunk(cx) && (b.effective_capabilities(m.locator, Json::object(), req.key) & sdk::kFork)) {
      const std::string name = model::working_ref_name(cx.dataset_id, *cx.workspace->bookmark);
      try {
        std::string ref = b.fork(m.locator, sdk::Source::of_state(initial), name, sdk::Expected::absent(), req.key);
        record_touched(cx, req.key, req.kind, m.locator);
        fork.emplace(std::move(ref), initial);
        result["fork"] = fork->first;
        res.fork = fork->first;
      } catch (const std::exception& e) {
        res.warnings.push_back("could not fork " + name + " for " + req.key + " (" + e.what() + "); `tether new " +
                               *cx.workspace->bookmark + "` forks it");
      }
    }
  }
  res.locator = m.locator;
  register_object(cx, std::move(m));
  if (fork) {
    cx.workspace->working_refs[req.key] = fork->first;
    cx.workspace->fork_points[req.key] = fork->second;
  }
  write_workspace(cx);
  log_op(cx, "add", pre, result);
  return res;
}

Json AddResult::to_json() const {
  return Json{{"key", key},
              {"kind", kind},
              {"locator", locator},
              {"at", at ? Json(*at) : Json(nullptr)},
              {"created", created},
              {"fork", fork ? Json(*fork) : Json(nullptr)},
              {"maturity", maturity}};
}

// What `tether ops` says of an add (ops.cpp's table).
std::string summarize_add(const OpEntry& e) {
  return str_of(e.result, "key") + (e.result.contains("created") ? " (created store)" : "");
}

}  // namespace tether::engine
