#include "icechunk_backend.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "diff.hpp"
#include "ids.hpp"
#include "tether/support/objstore.hpp"
#include "writer.hpp"

namespace fs = std::filesystem;
namespace os = tether::support::objstore;

namespace tether::icechunk {
namespace {

using sdk::BackendError;
using sdk::Json;

constexpr uint32_t kCaps = sdk::kFingerprint | sdk::kAddressable | sdk::kPin | sdk::kFork | sdk::kAtomicRef |
                           sdk::kConditionalRef | sdk::kDiff | sdk::kHistory | sdk::kPromote | sdk::kCreate;
constexpr const char* kOwnerKey = "tether.owner";
constexpr const char* kWorkingPrefix = "tether.ws.";
constexpr const char* kPromoteHint =
    "Icechunk has no merge tether can drive: rebase the work onto the new base with Icechunk itself "
    "(session.rebase() or re-applying the changes on a fresh branch), commit, then promote again";

}  // namespace

struct Target {
  std::string uri;  // absolute local path, resolved; or scheme://bucket/key, no trailing '/'
  std::optional<os::Location> remote;  // set for an object store
  std::string branch = "main";
  std::optional<std::string> at;
  std::shared_ptr<Storage> storage;  // set by IcechunkBackend::target()
};

namespace {

std::string field(const sdk::Locator& loc, const char* key) {
  auto it = loc.find(key);
  if (it == loc.end() || it->is_null()) return {};
  if (!it->is_string()) throw BackendError(std::string("icechunk locator field '") + key + "' must be a string");
  return it->get<std::string>();
}

std::string resolve(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::path(path).lexically_normal();
  fs::path r = fs::weakly_canonical(p, ec);
  std::string s = (ec ? p : r).string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Target parse(const sdk::Locator& loc) {
  std::string uri = field(loc, "uri");
  if (uri.empty()) uri = field(loc, "path");
  if (uri.empty()) throw BackendError("icechunk locator needs 'uri' (the repository's directory or s3:// URI)");
  Target t;
  if (uri.rfind("file://", 0) == 0) uri = uri.substr(7);
  else if (auto scheme = uri.find("://"); scheme != std::string::npos) {
    std::optional<os::Location> loc;
    try {
      loc = os::parse_location(uri);
    } catch (const os::StoreError& e) {
      throw BackendError(std::string("icechunk uri: ") + e.what());
    }
    if (!loc) throw BackendError("icechunk uri '" + uri + "': unknown scheme " + uri.substr(0, scheme) + "://");
    if (loc->service == os::Service::Http)
      throw BackendError("icechunk uri " + uri + ": Icechunk repositories are read and written through an object store "
                         "(s3://, gs://, az://), not plain HTTP");
    while (!loc->key.empty() && loc->key.back() == '/') loc->key.pop_back();
    // abfs(s)://container@account.host/key: the account is part of where the repository is
    // (two accounts may both have the container), so it stays in the uri: identities, the
    // client cache and messages tell them apart. The host is kept as written (lowercase).
    std::string root = loc->root();
    if (!loc->account.empty()) {
      std::string netloc = uri.substr(scheme + 3, uri.find('/', scheme + 3) - (scheme + 3));
      std::string host = netloc.substr(netloc.find('@') + 1);
      std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (!std::all_of(host.begin(), host.end(), [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '-' || c == ':'; }))
        throw BackendError("icechunk uri " + uri + ": '" + host + "' is not a storage host name");
      root += "@" + host;
    }
    t.uri = root + (loc->key.empty() ? std::string() : "/" + loc->key);
    t.remote = std::move(loc);
  }
  if (!t.remote && !fs::path(uri).is_absolute())
    throw BackendError("icechunk uri '" + uri + "' is not absolute; `tether add` stores absolute paths, so this manifest "
                       "was written by hand: write the absolute path");
  if (!t.remote) t.uri = resolve(uri);
  if (std::string b = field(loc, "branch"); !b.empty()) t.branch = b;
  if (std::string a = field(loc, "at"); !a.empty()) t.at = a;
  return t;
}

std::string state_id(const sdk::State& s) {
  std::string id = s.is_object() ? sdk::get_string(s, "snapshot_id") : std::string();
  if (!is_id12(id)) throw BackendError("not an Icechunk snapshot id: '" + id + "'");
  return id;
}

Json state_of(const std::string& id) { return Json{{"snapshot_id", id}}; }

// Library errors become BackendErrors; ref conflicts are mapped by the callers.
template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const RefError&) {
    throw;
  } catch (const StorageError& e) {
    throw sdk::IoError(e.what());
  } catch (const FormatError& e) {
    throw BackendError(e.what());
  }
}

// Whether anything is where the repository should be: the directory, or any object under
// the prefix.
bool present(const Target& t) {
  if (!t.remote) {
    std::error_code ec;
    return fs::exists(t.uri, ec);
  }
  return guarded([&] { return !t.storage->vacant(); });
}

Repository open_repo(const Target& t) {
  if (!t.remote && !present(t)) throw BackendError(t.uri + " does not exist");
  return guarded([&] { return Repository::open(t.storage); });
}

// A pin's tag: the newest live generation of tether.<id> (tether.<id>, then .2, .3, ...).
std::optional<std::pair<std::string, std::string>> pin_tag(const Repository& r, const std::string& base) {
  std::optional<std::pair<std::string, std::string>> found;
  if (auto id = r.tag(base)) found = std::make_pair(base, *id);
  for (int gen = 2; gen < 1000; ++gen) {
    std::string name = base + "." + std::to_string(gen);
    auto id = r.tag(name);
    bool deleted = std::binary_search(r.deleted_tags().begin(), r.deleted_tags().end(), name);
    if (id) found = std::make_pair(name, *id);
    if (!id && !deleted) break;
  }
  return found;
}

// The pin id a tag name stands for (generations folded), or nullopt when it is not a pin.
std::optional<std::string> pin_id_of(const std::string& tag) {
  if (tag.rfind("tether.", 0) != 0 || tag.rfind(kWorkingPrefix, 0) == 0) return std::nullopt;
  std::string id = tag.substr(7);
  auto first = id.find('.');
  if (first == std::string::npos) return id;
  auto second = id.find('.', first + 1);
  if (second != std::string::npos && std::all_of(id.begin() + static_cast<long>(second) + 1, id.end(), ::isdigit))
    id.resize(second);
  return id;
}

std::string resolve_at(const Repository& r, const Target& t, const std::string& at) {
  if (is_id12(at) && r.has_snapshot(at)) return at;
  if (auto id = r.tag(at)) return *id;
  if (auto id = r.branch(at)) return *id;
  throw BackendError("'" + at + "' is neither a snapshot, a tag nor a branch of " + t.uri);
}

std::string branch_tip(const Repository& r, const Target& t, const std::string& branch) {
  auto id = r.branch(branch);
  if (!id) throw BackendError("branch " + branch + " does not exist in " + t.uri);
  return *id;
}

std::string source_id(const Repository& r, const Target& t, const sdk::Source& s) {
  using K = sdk::Source::Kind;
  switch (s.kind) {
    case K::Pin: {
      // The manifest's ref, else the pin's newest live generation (repair recreates a
      // deleted tag under the next name: Icechunk never reuses one).
      if (auto tag = r.tag(s.pin.ref)) return *tag;
      if (auto live = pin_tag(r, "tether." + s.pin.id)) return live->second;
      throw BackendError("pin " + s.pin.ref + " is not a tag of " + t.uri);
    }
    case K::State: {
      std::string id = state_id(s.state);
      if (!r.has_snapshot(id)) throw BackendError("snapshot " + id + " is not in " + t.uri);
      return id;
    }
    case K::Ref:
      return resolve_at(r, t, s.ref);
    case K::Base:
      break;
  }
  return t.at ? resolve_at(r, t, *t.at) : branch_tip(r, t, t.branch);
}

bool is_ancestor(const Repository& r, const std::string& ancestor, const std::string& of) {
  for (const auto& s : guarded([&] { return r.ancestry(of); }))
    if (s.id == ancestor) return true;
  return false;
}


[[noreturn]] void ref_moved(const std::string& what, const std::string& branch, const Json& expected,
                            const std::optional<std::string>& actual) {
  throw sdk::RefMoved(what + ": " + branch + " is at " + actual.value_or("nothing") + ", expected " +
                          (expected.empty() ? std::string("absent") : sdk::get_string(expected, "snapshot_id")),
                      branch, expected, actual ? state_of(*actual) : Json(nullptr));
}

}  // namespace

IcechunkBackend::IcechunkBackend(const Json&) {}

Target IcechunkBackend::target(const sdk::Locator& loc) {
  Target t = parse(loc);
  if (!t.remote) {
    t.storage = local_storage(t.uri);
    return t;
  }
  const os::Location& where = *t.remote;
  // The options: secrets_for()'s settings (the kind's committed safe storage_options and the
  // secrets, then the matched [uris."..."] rule), read as objstore reads them for every plugin.
  // Never from the locator: a manifest comes with every clone and must not pick where
  // credentials go.
  os::Options options;
  try {
    options = os::options_from_settings(secrets_for(loc), "the store options for " + t.uri);
  } catch (const os::StoreError& e) {
    throw BackendError(std::string(e.what()) + "; fix them in .tether/secrets.toml [uris.\"" + where.root() + "/\"]");
  }
  std::string cache_key = t.uri + '\n' + Json(options.values).dump();
  std::lock_guard lock(mu_);
  auto& cached = stores_[cache_key];
  if (!cached) {
    std::shared_ptr<os::Store> store;
    try {
      store = os::open(where, options);
    } catch (const os::StoreError& e) {
      stores_.erase(cache_key);
      throw sdk::IoError(os::explain(e, t.uri));
    }
    cached = object_storage(std::move(store), where.key, t.uri);
  }
  t.storage = cached;
  return t;
}

sdk::Description IcechunkBackend::describe(sdk::Call&) {
  sdk::Description d;
  d.kind = "icechunk";
  // Stable: every real-Icechunk cross-check runs in `make test` (fixtures, conformance through
  // a real-Icechunk harness, oracle_test's read-back and concurrent writer, and the CLI
  // lifecycle scenarios icechunk-object, icechunk-branch-lifecycle and icechunk-gc).
  d.maturity = "stable";
  d.capabilities = kCaps;
  d.local_path_keys = {"uri"};
  // The store options a committed tether.toml may set ([backends.icechunk.storage_options]);
  // endpoints and credentials only come from .tether/secrets.toml or the environment.
  d.safe_config_keys = {"storage_options"};
  d.safe_option_keys = {{"storage_options", {"allow_http", "conditional_put", "region", "virtual_hosted_style_request"}}};
  // s3 runs the whole lifecycle against Ceph's gateway in the tests (icechunk-s3,
  // cli-icechunk-s3, conformance-icechunk-s3); gs:// is the same code through GCS's S3 API,
  // untested. Azure Blob (az://, azure://, abfs(s)://) runs the lifecycle against
  // Microsoft's emulator, Azurite, only (icechunk-azure: create, pin, fork, conditional
  // moves, racing writers, tag deletion, missing containers and wrong keys, real Icechunk on
  // the same container; cli-icechunk-azure: add, commit, fork, promote, gc, --create, the
  // abfss spelling), never against Azure itself: experimental.
  d.uri_schemes = {{"s3", "stable"},          {"s3a", "stable"},          {"gs", "experimental"},
                   {"gcs", "experimental"},   {"az", "experimental"},     {"azure", "experimental"},
                   {"abfs", "experimental"},  {"abfss", "experimental"}};
  d.uri_keys = {"uri"};
  d.key_suffixes = std::vector<std::string>{".icechunk"};
  d.promote_hint = kPromoteHint;
  d.thread_safe = true;
  return d;
}

Json IcechunkBackend::identity(sdk::Call&, const sdk::LocatorRequest& r) { return Json{{"uri", parse(r.locator).uri}}; }

void IcechunkBackend::validate_locator(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = target(r.locator);
  check_ref_name(t.branch);
  if (!present(t)) return;  // `add --create`, or the engine's own refusal
  Repository repo = open_repo(t);
  if (t.at) resolve_at(repo, t, *t.at);
  else branch_tip(repo, t, t.branch);
}

std::string IcechunkBackend::base_branch(sdk::Call&, const sdk::LocatorRequest& r) { return parse(r.locator).branch; }

std::optional<std::string> IcechunkBackend::default_key(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse(r.locator);
  std::string p = t.remote ? t.remote->key : t.uri;
  while (p.size() > 1 && p.back() == '/') p.pop_back();  // `add greetings.icechunk/` is `greetings` too
  std::string key = fs::path(p).filename().string();
  if (key.size() > 9 && key.compare(key.size() - 9, 9, ".icechunk") == 0) key.resize(key.size() - 9);
  if (key.empty() || key == "." || key == "..") return std::nullopt;
  return key;
}

bool IcechunkBackend::state_addressable(sdk::Call&, const sdk::StateRequest& r) {
  return r.state.is_object() && is_id12(sdk::get_string(r.state, "snapshot_id"));
}

sdk::State IcechunkBackend::fingerprint(sdk::Call&, const sdk::FingerprintRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  if (r.working_ref) return state_of(branch_tip(repo, t, *r.working_ref));
  return state_of(source_id(repo, t, sdk::Source::base()));
}

namespace {

// verify's checks once the repository is open: the pin's live tag, then the snapshot.
sdk::VerifyReport verify_in(const Repository& repo, const sdk::VerifyRequest& r, const std::string& id,
                            const Target& t) {
  std::string note;
  if (r.pin) {
    // Through the newest live generation of the pin (docs/FORMAT.md#pin-ids-and-pin-refs).
    auto live = pin_tag(repo, "tether." + r.pin->id);
    if (!live) return {sdk::VerifyStatus::Missing, r.pin->ref + " not found in " + t.uri};
    if (live->second != id) return {sdk::VerifyStatus::Drifted, live->first + " -> " + live->second + ", expected " + id};
    if (live->first != r.pin->ref) note = "pinned as " + live->first;
  }
  SnapshotCheck check = check_snapshot(repo, id, r.deep);
  if (!check.ok) return {sdk::VerifyStatus::Missing, check.problem};
  return {sdk::VerifyStatus::Ok, note};
}

}  // namespace

sdk::VerifyReport IcechunkBackend::verify(sdk::Call&, const sdk::VerifyRequest& r) {
  Target t = target(r.locator);
  std::string id = state_id(r.state);
  if (!present(t)) return {sdk::VerifyStatus::Missing, "repository " + t.uri + " not found"};
  Repository repo = open_repo(t);
  return verify_in(repo, r, id, t);
}

// verify item by item in its order (the locator, the state, the repository), but each
// distinct repository is looked for and opened once per call, not once per pin: on an object
// store that is a listing and a read of its refs per item saved.
std::vector<sdk::VerifyOutcome> IcechunkBackend::verify_many(sdk::Call&, const sdk::VerifyManyRequest& r) {
  struct Place {
    std::optional<Target> target;
    std::exception_ptr target_error;  // what target() threw
    bool looked = false;              // present() and open_repo() ran
    bool missing = false;
    std::optional<Repository> repo;
    std::exception_ptr open_error;
  };
  std::unordered_map<std::string, Place> places;
  std::vector<sdk::VerifyOutcome> out;
  out.reserve(r.items.size());
  for (const auto& item : r.items) {
    try {
      auto [it, fresh] = places.try_emplace(item.locator.dump());
      Place& p = it->second;
      if (fresh) {
        try {
          p.target = target(item.locator);
        } catch (...) {
          p.target_error = std::current_exception();
        }
      }
      if (p.target_error) std::rethrow_exception(p.target_error);
      std::string id = state_id(item.state);
      if (!p.looked) {
        p.looked = true;
        try {
          p.missing = !present(*p.target);
          if (!p.missing) p.repo.emplace(open_repo(*p.target));
        } catch (...) {
          p.open_error = std::current_exception();
        }
      }
      if (p.open_error) std::rethrow_exception(p.open_error);
      if (p.missing) {
        out.push_back(sdk::VerifyOutcome::of({sdk::VerifyStatus::Missing, "repository " + p.target->uri + " not found"}));
        continue;
      }
      out.push_back(sdk::VerifyOutcome::of(verify_in(*p.repo, item, id, *p.target)));
    } catch (...) {
      out.push_back(sdk::failed_outcome(std::current_exception()));
    }
  }
  return out;
}

sdk::Pin IcechunkBackend::pin(sdk::Call&, const sdk::PinRequest& r) {
  Target t = target(r.locator);
  std::string id = state_id(r.state);
  std::string base = "tether." + r.pin_id;
  check_ref_name(base);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    Repository repo = open_repo(t);
    if (!repo.has_snapshot(id)) throw BackendError("snapshot " + id + " is not in " + t.uri);
    if (auto live = pin_tag(repo, base)) {
      if (live->second == id) return sdk::Pin{r.pin_id, live->first, false};
      throw BackendError("tag " + live->first + " already points at " + live->second + " in " + t.uri + ", not " + id);
    }
    // The first name of the series not used yet (a deleted one can never be reused).
    std::string name = base;
    for (int gen = 2; std::binary_search(repo.deleted_tags().begin(), repo.deleted_tags().end(), name); ++gen)
      name = base + "." + std::to_string(gen);
    try {
      guarded([&] { create_tag(*t.storage, name, id); });
      return sdk::Pin{r.pin_id, name, true};
    } catch (const RefError& e) {
      // Another writer took the name meanwhile: look again.
      if (e.kind() != RefError::Kind::Exists && e.kind() != RefError::Kind::PreviouslyDeleted) throw BackendError(e.what());
    }
  }
  throw BackendError("could not create a tag for pin " + r.pin_id + " in " + t.uri);
}

void IcechunkBackend::unpin(sdk::Call&, const sdk::UnpinRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  // Every live generation of the pin goes (the ref the manifest names, and later ones).
  std::vector<std::string> names;
  if (repo.tag(r.pin.ref)) names.push_back(r.pin.ref);
  for (const auto& [name, id] : repo.tags())
    if (name != r.pin.ref && pin_id_of(name) == r.pin.id) names.push_back(name);
  for (const auto& name : names) {
    try {
      guarded([&] { delete_tag(*t.storage, name); });
    } catch (const RefError& e) {
      if (e.kind() != RefError::Kind::NotFound) throw BackendError(e.what());
    }
  }
}

std::vector<std::string> IcechunkBackend::list_pins(sdk::Call&, const sdk::LocatorRequest& r) {
  Repository repo = open_repo(target(r.locator));
  std::set<std::string> ids;
  for (const auto& [name, id] : repo.tags())
    if (auto pin = pin_id_of(name)) ids.insert(*pin);
  return {ids.begin(), ids.end()};
}

std::string IcechunkBackend::fork(sdk::Call&, const sdk::ForkRequest& r) {
  Target t = target(r.locator);
  check_ref_name(r.name);
  Repository repo = open_repo(t);
  std::string to = source_id(repo, t, r.source);
  auto current = repo.branch(r.name);
  using K = sdk::Expected::Kind;
  try {
    switch (r.expected.kind) {
      case K::None:
        if (current && *current == to) return r.name;
        if (current) guarded([&] { reset_branch(*t.storage, r.name, to, current); });
        else guarded([&] { create_branch(*t.storage, r.name, to); });
        break;
      case K::Absent:
        guarded([&] { create_branch(*t.storage, r.name, to); });
        break;
      case K::At: {
        std::string want = state_id(r.expected.state);
        if (current && *current == want && want == to) return r.name;
        guarded([&] { reset_branch(*t.storage, r.name, to, want); });
        break;
      }
    }
  } catch (const RefError& e) {
    Json expected = r.expected.kind == K::At ? r.expected.state : Json::object();
    if (e.kind() == RefError::Kind::Exists || e.kind() == RefError::Kind::Conflict) ref_moved("fork", r.name, expected, e.actual());
    if (e.kind() == RefError::Kind::NotFound && r.expected.kind == K::At) ref_moved("fork", r.name, expected, std::nullopt);
    throw BackendError(e.what());
  }
  return r.name;
}

void IcechunkBackend::delete_working_ref(sdk::Call&, const sdk::RefRequest& r) {
  Target t = target(r.locator);
  if (r.ref == "main" || r.ref == t.branch) throw BackendError("branch " + r.ref + " of " + t.uri + " is the base; not deleting it");
  try {
    guarded([&] { delete_branch(*t.storage, r.ref, std::nullopt); });
  } catch (const RefError& e) {
    if (e.kind() != RefError::Kind::NotFound) throw BackendError(e.what());
  }
}

std::vector<std::string> IcechunkBackend::list_working_refs(sdk::Call&, const sdk::LocatorRequest& r) {
  Repository repo = open_repo(target(r.locator));
  std::vector<std::string> out;
  for (const auto& [name, id] : repo.branches())
    if (name.rfind(kWorkingPrefix, 0) == 0) out.push_back(name);
  return out;
}

Json IcechunkBackend::open(sdk::Call&, const sdk::OpenRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  using K = sdk::Source::Kind;
  std::string id = source_id(repo, t, r.target);
  Json h{{"key", t.uri}, {"uri", t.uri}, {"snapshot_id", id}, {"branch", nullptr}, {"tag", nullptr}, {"read_only", r.read_only}};
  std::string where = id;
  switch (r.target.kind) {
    case K::Pin:
      h["tag"] = r.target.pin.ref;
      h["read_only"] = true;
      where = r.target.pin.ref;
      break;
    case K::State:
      h["read_only"] = true;
      break;
    case K::Ref:
      if (repo.branch(r.target.ref)) h["branch"] = r.target.ref, where = r.target.ref;
      else h["read_only"] = true;
      break;
    case K::Base:
      if (t.at) h["read_only"] = true;
      else h["branch"] = t.branch, where = t.branch;
      break;
  }
  h["address"] = t.uri + "#" + where;
  if (t.remote) {
    // What Icechunk's own Storage constructors take (credentials and the endpoint come from
    // the caller's configuration, never from here).
    h["bucket"] = t.remote->bucket;  // for Azure, the container
    h["prefix"] = t.remote->key;
    if (!t.remote->account.empty()) h["account"] = t.remote->account;  // abfs(s)://container@account...
  }
  return h;
}

sdk::ObjectDiff IcechunkBackend::diff(sdk::Call& call, const sdk::DiffRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  std::string a = state_id(r.a), b = state_id(r.b);
  sdk::ObjectDiff d;
  d.unit = "nodes";
  if (a == b) return d;
  return guarded([&] {
    // Icechunk's own diff when `a` is an earlier snapshot of `b` (it walks b's ancestry
    // once and says when it is not); otherwise compare the two snapshots' nodes by id
    // (moves keep the id).
    std::optional<SnapshotDiff> logged;
    try {
      logged = diff_snapshots(repo, a, b, [&call](std::size_t done, std::size_t total) {
        if (call.cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "diff cancelled");
        call.progress("reading", "transaction logs", done, total, 0);
      });
    } catch (const BadSnapshotChain&) {
    }
    if (logged) {
      const SnapshotDiff& x = *logged;
      std::map<std::string, std::pair<std::string, std::string>> entries;  // path -> change, detail
      for (const auto& p : x.new_groups) entries[p] = {"added", "group"};
      for (const auto& p : x.new_arrays) entries[p] = {"added", "array"};
      for (const auto& p : x.deleted_groups) entries[p] = {"removed", "group"};
      for (const auto& p : x.deleted_arrays) entries[p] = {"removed", "array"};
      for (const auto& p : x.updated_groups) entries.emplace(p, std::make_pair("modified", "group metadata"));
      for (const auto& p : x.updated_arrays) entries.emplace(p, std::make_pair("modified", "array metadata"));
      for (const auto& [p, chunks] : x.updated_chunks) {
        std::string n = std::to_string(chunks.size()) + (chunks.size() == 1 ? " chunk" : " chunks");
        auto [it, fresh] = entries.emplace(p, std::make_pair("modified", n + " written"));
        if (!fresh) it->second.second += ", " + n + " written";
      }
      for (const auto& [from, to] : x.moved) entries[from + " -> " + to] = {"renamed", ""};
      for (auto& [p, cd] : entries) d.add(p, cd.first, cd.second);
      if (!x.missing_logs.empty())
        d.note = std::to_string(x.missing_logs.size()) + " transaction log(s) between them are gone (expired); chunk changes may be incomplete";
      return d;
    }
    Snapshot sa = repo.read_snapshot(a), sb = repo.read_snapshot(b);
    std::map<std::string, const Node*> na, nb;
    for (const auto& n : sa.nodes) na[n.id] = &n;
    for (const auto& n : sb.nodes) nb[n.id] = &n;
    std::map<std::string, std::pair<std::string, std::string>> entries;
    auto kind = [](const Node* n) { return n->kind == Node::Kind::Array ? "array" : "group"; };
    for (const auto& [id, n] : nb) {
      auto it = na.find(id);
      if (it == na.end()) entries[n->path] = {"added", kind(n)};
      else if (it->second->path != n->path) entries[it->second->path + " -> " + n->path] = {"renamed", kind(n)};
      else if (it->second->user_data != n->user_data || it->second->manifests != n->manifests)
        entries[n->path] = {"modified", kind(n)};
    }
    for (const auto& [id, n] : na)
      if (!nb.count(id)) entries[n->path] = {"removed", kind(n)};
    for (auto& [p, cd] : entries) d.add(p, cd.first, cd.second);
    d.note = "compared snapshot contents (" + a + " is not an ancestor of " + b + ")";
    return d;
  });
}

std::vector<sdk::HistoryEntry> IcechunkBackend::history(sdk::Call& call, const sdk::HistoryRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  std::string start = r.ref ? resolve_at(repo, t, *r.ref) : source_id(repo, t, sdk::Source::base());
  std::map<std::string, std::vector<std::string>> refs;
  for (const auto& [name, id] : repo.branches()) refs[id].push_back(name);
  for (const auto& [name, id] : repo.tags()) refs[id].push_back(name);
  std::vector<sdk::HistoryEntry> out;
  for (const auto& s : guarded([&] { return repo.ancestry(start, r.limit > 0 ? static_cast<std::size_t>(r.limit) : 0); })) {
    if (call.cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "history cancelled");
    sdk::HistoryEntry e;
    e.id = s.id;
    e.when = iso_utc_us(s.flushed_at_us);
    e.message = s.message;
    if (auto it = refs.find(s.id); it != refs.end()) e.refs = it->second;
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<bool> IcechunkBackend::ancestor_of(sdk::Call&, const sdk::AncestorRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  return is_ancestor(repo, state_id(r.ancestor), source_id(repo, t, r.descendant));
}

sdk::State IcechunkBackend::promote(sdk::Call&, const sdk::PromoteRequest& r) {
  Target t = target(r.locator);
  Repository repo = open_repo(t);
  std::string to = source_id(repo, t, r.source);
  std::string head = branch_tip(repo, t, t.branch);
  using K = sdk::Expected::Kind;
  Json expected = r.expected.kind == K::At ? r.expected.state : Json::object();
  if (r.expected.kind == K::Absent) ref_moved("promote", t.branch, expected, head);
  if (r.expected.kind == K::At && state_id(r.expected.state) != head) ref_moved("promote", t.branch, expected, head);
  if (to == head) return state_of(head);
  if (!is_ancestor(repo, head, to))
    throw BackendError(t.branch + " of " + t.uri + " is at " + head + ", which is not an ancestor of " + to +
                       ": a promote only fast-forwards. " + kPromoteHint);
  try {
    guarded([&] { reset_branch(*t.storage, t.branch, to, head); });
  } catch (const RefError& e) {
    if (e.kind() == RefError::Kind::Conflict) ref_moved("promote", t.branch, expected, e.actual());
    throw BackendError(e.what());
  }
  return state_of(to);
}

sdk::State IcechunkBackend::create(sdk::Call&, const sdk::CreateRequest& r) {
  Target t = target(r.locator);
  if (present(t)) throw BackendError(t.uri + " already exists; `create` never adopts it");
  if (t.branch != "main") throw BackendError("a new Icechunk repository starts with branch main, not " + t.branch);
  if (t.remote && t.remote->key.empty())
    throw BackendError("Icechunk does not create repositories at a bucket's root (" + t.uri +
                       "); name one inside it, e.g. " + t.uri + "/" + "data.icechunk");
  return state_of(guarded([&] { return create_repository(*t.storage, kOwnerKey, r.owner); }));
}

std::optional<std::string> IcechunkBackend::owner(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = target(r.locator);
  return guarded([&] { return repository_metadata_string(*t.storage, kOwnerKey); });
}

std::optional<bool> IcechunkBackend::is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest& r) {
  Target t = target(r.locator);
  if (t.remote) {
    if (guarded([&] { return !t.storage->exists("repo") && !t.storage->exists("refs/branch.main/ref.json"); })) return std::nullopt;
  } else {
    std::error_code ec;
    if (!fs::exists(t.uri + "/repo", ec) && !fs::exists(t.uri + "/refs", ec)) return std::nullopt;
  }
  Repository repo = open_repo(t);
  std::set<std::string> ignoring(r.ignoring.begin(), r.ignoring.end());
  for (const auto& [name, id] : repo.tags())
    if (!ignoring.count(name)) return false;
  for (const auto& [name, id] : repo.branches())
    if (name != "main" && !ignoring.count(name)) return false;
  auto main = repo.branch("main");
  if (!main) return false;
  auto info = guarded([&] { return repo.snapshot_info(*main); });
  return !info.parent.has_value() && info.id == kInitialSnapshotId;
}

void IcechunkBackend::delete_store(sdk::Call& call, const sdk::LocatorRequest& r) {
  Target t = target(r.locator);
  if (!owner(call, r)) throw BackendError(t.uri + " is not a repository tether created; not removing it");
  if (is_ref_empty(call, sdk::IsRefEmptyRequest{r.locator, {}}) != true)
    throw BackendError(t.uri + " is not empty (refs or snapshots beyond the initial one); not removing it");
  guarded([&] { t.storage->remove_all(); });
}

}  // namespace tether::icechunk
