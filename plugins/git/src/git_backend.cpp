#include "git_backend.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>

#include "landing.hpp"
#include "tether/support/process.hpp"

namespace tether::git {
namespace {

namespace fs = std::filesystem;
using sdk::BackendError;
using sdk::Json;

constexpr uint32_t kCaps = sdk::kFingerprint | sdk::kAddressable | sdk::kPin | sdk::kFork | sdk::kCheapFingerprint |
                           sdk::kAtomicRef | sdk::kDiff | sdk::kHistory | sdk::kCreate | sdk::kPromote |
                           sdk::kMerge | sdk::kConditionalRef;

// The tree of no files, and the root commit `create` makes over it (fixed author, committer,
// date and message, so every created store starts at the same commit).
constexpr const char* kEmptyRootSha = "5a2cfa770badaceb6c6de5171fdf82c871fa40de";
constexpr git_time_t kCreateTime = 946684800;  // 2000-01-01T00:00:00Z
constexpr const char* kCreateMessage = "tether: created store\n";
constexpr const char* kWorkingRefPrefix = "tether.ws.";
constexpr const char* kHeads = "refs/heads/";
constexpr const char* kTags = "refs/tags/";

// libgit2 failures become BackendErrors (one line, naming what was being done).
template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Git2Error& e) {
    throw BackendError(e.what());
  }
}

std::string tag_ref(const std::string& ref) { return ref.rfind("refs/", 0) == 0 ? ref : kTags + ref; }
std::string head_ref(const std::string& branch) { return kHeads + branch; }
std::string short12(const std::optional<git_oid>& oid) { return oid ? short_hex(*oid) : std::string("nothing"); }

void refuse_option_like(const std::string& what, const std::string& value) {
  if (value.empty()) throw BackendError("git " + what + " is empty; refused");
  if (value[0] == '-') throw BackendError("git " + what + " '" + value + "' looks like an option; refused");
}

void check_branch_name(const std::string& name) {
  refuse_option_like("branch", name);
  int valid = 0;
  if (git_reference_name_is_valid(&valid, head_ref(name).c_str()) < 0 || !valid)
    throw BackendError("'" + name + "' is not a valid git branch name");
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool has_dot_git(const std::string& path) { return exists(path + "/.git"); }

// Two JSON values that are the same document: the same types all the way down (so 1 and
// 1.0 differ, as their dump() does), numbers compared bit for bit. Stricter than dump()
// equality, never looser: locators that dump alike but differ here are merely parsed twice.
bool same_json(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      const auto& x = a.get_ref<const Json::object_t&>();
      const auto& y = b.get_ref<const Json::object_t&>();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), k = y.begin(); i != x.end(); ++i, ++k)
        if (i->first != k->first || !same_json(i->second, k->second)) return false;
      return true;
    }
    case Json::value_t::array: {
      const auto& x = a.get_ref<const Json::array_t&>();
      const auto& y = b.get_ref<const Json::array_t&>();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!same_json(x[i], y[i])) return false;
      return true;
    }
    case Json::value_t::number_float: {
      double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default: return a == b;  // strings, booleans, integers of the same type, null, binary, discarded
  }
}

// Retries a ref write that lost libgit2's lock file to a concurrent writer: the lock is held
// only for the write itself, after which the next attempt sees the new value.
template <class Fn>
int with_lock_retry(Fn&& fn) {
  int rc = 0;
  for (int attempt = 0; attempt < 200; ++attempt) {
    rc = fn();
    if (rc != GIT_ELOCKED) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + attempt % 8));
  }
  return rc;
}

}  // namespace

GitBackend::GitBackend(const Json&) {}

sdk::Description GitBackend::describe(sdk::Call&) {
  sdk::Description d;
  d.kind = "git";
  d.maturity = "stable";
  d.capabilities = kCaps;
  d.volatile_keys = {"change_id", "dirty"};
  d.local_path_keys = {"path", "uri"};
  d.uri_keys = {"uri", "path"};
  d.key_suffixes = std::vector<std::string>{".git"};
  d.thread_safe = true;
  return d;
}

Json GitBackend::identity(sdk::Call&, const sdk::LocatorRequest& r) { return Json{{"path", identity_path(r.locator)}}; }

void GitBackend::validate_locator(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  refuse_inside_checkout(t, configuration().checkout);
  // A path that does not exist yet is for `add --create` (or the engine's own refusal).
  if (!exists(t.path)) return;
  Opened o = open_target(r.locator);
  check_remote(o);
  if (!t.at && !t.ref && git_repository_is_bare(o.repo.get()))
    throw BackendError(t.path + " is a bare repository: it has no checked-out branch; name one with `--branch` (the locator's `ref`)");
  resolve_read_ref(o, t.read_ref());
}

uint32_t GitBackend::effective_capabilities(sdk::Call&, const sdk::PolicyRequest&) { return kCaps; }

std::string GitBackend::base_branch(sdk::Call&, const sdk::LocatorRequest& r) {
  return guarded([&] { return base_branch_of(open_target(r.locator)); });
}

std::optional<std::string> GitBackend::default_key(sdk::Call&, const sdk::LocatorRequest& r) {
  std::string p = identity_path(r.locator);
  auto slash = p.find_last_of('/');
  std::string key = slash == std::string::npos ? p : p.substr(slash + 1);
  if (key.size() > 4 && key.compare(key.size() - 4, 4, ".git") == 0) key.resize(key.size() - 4);
  if (key.empty() || key == "." || key == "..") return std::nullopt;
  return key;
}

bool GitBackend::state_addressable(sdk::Call&, const sdk::StateRequest& r) {
  try {
    state_sha(r.state);
    return true;
  } catch (const BackendError&) {
    return false;
  }
}

// ---- opening and resolving ------------------------------------------------------------------

GitBackend::Opened GitBackend::open_target(const sdk::Locator& locator) const {
  Target t = parse_target(locator);
  refuse_inside_checkout(t, configuration().checkout);
  auto repo = guarded([&] { return open_repository(t.path); });
  if (!repo) {
    if (!exists(t.path)) throw BackendError(t.path + " does not exist");
    throw BackendError(t.path + " is not a git repository (expected the top of a working tree, or a bare repository)");
  }
  return Opened{std::move(t), std::move(*repo)};
}

git_repository* GitBackend::verify_repository(const Target& t, const std::string* resolved_checkout) const {
  if (resolved_checkout) refuse_inside_root(t, *resolved_checkout);
  else refuse_inside_checkout(t, configuration().checkout);
  auto key = std::make_pair(std::this_thread::get_id(), t.path);
  {
    std::lock_guard lock(verify_mutex_);
    if (auto it = verify_cache_.find(key); it != verify_cache_.end()) return it->second.get();
  }
  Opened o = open_target(sdk::Json{{"uri", t.path}});
  std::lock_guard lock(verify_mutex_);
  // A map node never moves: the pointer stays valid while the backend lives.
  return verify_cache_.emplace(key, std::move(o.repo)).first->second.get();
}

void GitBackend::check_remote(const Opened& o) const {
  if (!o.target.remote) return;
  const std::string& name = *o.target.remote;
  // Read remote.<name>.url/pushurl from the configuration rather than git_remote_lookup,
  // which leaks a regex match block per call in libgit2 1.5 (fixed upstream in #6382).
  bool configured = guarded([&] {
    int valid = 0;
    if (git_remote_name_is_valid(&valid, name.c_str()) < 0 || !valid) return false;
    git_config* raw = nullptr;
    check(git_repository_config_snapshot(&raw, o.repo.get()), "cannot read the configuration of " + o.target.path);
    Config cfg(raw);
    for (const char* key : {".url", ".pushurl"}) {
      const char* value = nullptr;
      if (git_config_get_string(&value, cfg.get(), ("remote." + name + key).c_str()) == 0 && value && *value) return true;
    }
    return false;
  });
  if (!configured)
    throw BackendError("'" + name + "' is not a remote configured in " + o.target.path +
                       ". A committed locator arrives with every clone, so it may only name a remote; a URL goes in "
                       ".tether/secrets.toml as [objects.\"<key>\"] remote = \"...\"");
}

std::optional<std::string> GitBackend::push_remote(const Opened& o, const sdk::Locator& locator) const {
  Json secrets = secrets_for(locator, {"path", "uri"});
  if (secrets.contains("remote") && secrets["remote"].is_string() && !secrets["remote"].get<std::string>().empty()) {
    std::string r = secrets["remote"].get<std::string>();
    refuse_option_like("remote", r);
    return r;
  }
  if (!o.target.remote) return std::nullopt;
  check_remote(o);
  return o.target.remote;
}

std::string GitBackend::base_branch_of(const Opened& o) const {
  const auto& ref = o.target.ref;
  if (!ref || *ref == "HEAD") {
    auto b = checked_out_branch(o.repo.get());
    if (!b) {
      if (git_repository_is_bare(o.repo.get()))
        throw BackendError(o.target.path + " is a bare repository; set the locator's `ref` to the branch to promote into");
      throw BackendError("HEAD is detached in " + o.target.path + "; set the locator's `ref` to a branch to promote into");
    }
    return *b;
  }
  std::string name = ref->rfind(kHeads, 0) == 0 ? ref->substr(std::string(kHeads).size()) : *ref;
  if (!find_reference(o.repo.get(), head_ref(name)))
    throw BackendError("'" + *ref + "' is not a local branch of " + o.target.path);
  return name;
}

git_oid GitBackend::resolve_read_ref(const Opened& o, const std::string& ref) const {
  if (ref == "HEAD" && git_repository_head_unborn(o.repo.get()) == 1)
    throw BackendError(o.target.path + " has no commits yet (HEAD is unborn)");
  auto oid = guarded([&] { return revparse_commit(o.repo.get(), ref); });
  if (!oid) throw BackendError("unknown revision '" + ref + "' in " + o.target.path);
  return *oid;
}

git_oid GitBackend::resolve_state(const Opened& o, const sdk::State& state) const {
  std::string sha = state_sha(state);
  auto oid = guarded([&] { return lookup_commit_prefix(o.repo.get(), sha); });
  if (!oid) throw BackendError("commit " + sha + " is not in " + o.target.path);
  return *oid;
}

git_oid GitBackend::resolve_source(const Opened& o, const sdk::Source& s) const {
  using K = sdk::Source::Kind;
  switch (s.kind) {
    case K::Pin: {
      auto oid = guarded([&] { return reference_commit(o.repo.get(), tag_ref(s.pin.ref)); });
      if (!oid) throw BackendError("pin " + s.pin.ref + " is not a tag in " + o.target.path);
      return *oid;
    }
    case K::State:
      return resolve_state(o, s.state);
    case K::Ref: {
      refuse_option_like("ref", s.ref);
      if (auto oid = guarded([&] { return reference_commit(o.repo.get(), head_ref(s.ref)); })) return *oid;
      return resolve_read_ref(o, s.ref);
    }
    case K::Base:
      break;
  }
  return resolve_read_ref(o, o.target.read_ref());
}

sdk::State GitBackend::state_at(const Opened& o, const std::string& ref, const git_oid& sha) const {
  bool dirty = false;
  if (!git_repository_is_bare(o.repo.get())) {
    auto here = checked_out_branch(o.repo.get());
    if (ref == "HEAD" || (here && (ref == *here || ref == head_ref(*here))))
      dirty = guarded([&] { return working_tree_dirty(o.repo.get()); });
  }
  return Json{{"sha", oid_hex(sha)}, {"dirty", dirty}};
}

// ---- reading ----------------------------------------------------------------------------------

sdk::State GitBackend::fingerprint(sdk::Call&, const sdk::FingerprintRequest& r) {
  Opened o = open_target(r.locator);
  if (r.working_ref) {
    check_branch_name(*r.working_ref);
    auto oid = guarded([&] { return reference_commit(o.repo.get(), head_ref(*r.working_ref)); });
    if (!oid) throw BackendError("branch " + *r.working_ref + " does not exist in " + o.target.path);
    return state_at(o, *r.working_ref, *oid);
  }
  std::string ref = o.target.read_ref();
  if (ref == "HEAD" && git_repository_is_bare(o.repo.get()))
    throw BackendError(o.target.path + " is a bare repository: it has no checked-out branch; set the locator's `ref`");
  return state_at(o, ref, resolve_read_ref(o, ref));
}

sdk::VerifyReport GitBackend::verify(sdk::Call&, const sdk::VerifyRequest& r) {
  std::string sha = state_sha(r.state);
  Target t = parse_target(r.locator);
  if (!exists(t.path)) return {sdk::VerifyStatus::Missing, "repository " + t.path + " not found"};
  return verify_in(t, verify_repository(t), r, sha, nullptr);
}

sdk::VerifyReport GitBackend::verify_in(const Target& t, git_repository* repo, const sdk::VerifyRequest& r,
                                        const std::string& sha, const TagSnapshot* tags) const {
  std::optional<git_oid> found;
  std::string target;
  if (r.pin) {
    target = r.pin->ref;
    found = guarded([&]() -> std::optional<git_oid> {
      std::string name = tag_ref(r.pin->ref);
      if (tags)
        if (const git_oid* id = tags->packed_target(name); id && is_expected_commit(repo, *id, sha)) return *id;
      return reference_commit_expecting(repo, name, sha);
    });
  } else {
    target = sha;
    found = guarded([&] { return lookup_commit_prefix(repo, sha); });
  }
  if (!found) return {sdk::VerifyStatus::Missing, target + " not found in " + t.path};
  std::string at = oid_hex(*found);
  if (at.compare(0, sha.size(), sha) != 0)
    return {sdk::VerifyStatus::Drifted, target + " -> " + short_hex(*found) + ", expected " + sha.substr(0, 12)};
  return {sdk::VerifyStatus::Ok, ""};
}

// verify's steps item by item, in its order (the state's sha, the locator, the repository),
// but each distinct locator is parsed, resolved, checked and opened once per call: those
// path checks (symlinks resolved with a readlink per component) cost more than the lookup.
// A repository asked about kTagSnapshotAfter pins or more in the call has its tags read once
// (tags.hpp) and the rest of its pins answered from that where the snapshot can vouch for
// the answer; a single pin keeps the per-pin lookup, cheaper than reading the tags.
std::vector<sdk::VerifyOutcome> GitBackend::verify_many(sdk::Call&, const sdk::VerifyManyRequest& r) {
  constexpr int kTagSnapshotAfter = 2;
  struct Place {
    std::optional<Target> target;
    git_repository* repo = nullptr;
    bool missing = false;
    std::exception_ptr error;  // what parsing or opening it threw
  };
  struct Tags {
    int pins = 0;
    std::optional<TagSnapshot> snapshot;
  };
  // Keyed by the items' own locators (no dump per item): equal only when same_json says so.
  struct LocatorHash {
    std::size_t operator()(const Json* j) const { return std::hash<Json>{}(*j); }
  };
  struct LocatorEqual {
    bool operator()(const Json* a, const Json* b) const { return same_json(*a, *b); }
  };
  std::unordered_map<const Json*, Place, LocatorHash, LocatorEqual> places;
  std::unordered_map<git_repository*, Tags> tags;
  // Paths resolved once per call, not once per locator: many locators name one repository.
  std::unordered_map<std::string, std::string> resolved;
  std::optional<std::string> checkout;  // the dataset checkout, resolved
  std::vector<sdk::VerifyOutcome> out;
  out.reserve(r.items.size());
  for (const auto& item : r.items) {
    try {
      std::string sha = state_sha(item.state);
      auto [it, fresh] = places.try_emplace(&item.locator);
      Place& p = it->second;
      if (fresh) {
        try {
          p.target = parse_target(item.locator, resolved);
          p.missing = !exists(p.target->path);
          if (!p.missing) {
            if (!checkout) checkout = configuration().checkout.empty() ? "" : resolve_path(configuration().checkout);
            p.repo = verify_repository(*p.target, &*checkout);
          }
        } catch (...) {
          p.error = std::current_exception();
        }
      }
      if (p.error) std::rethrow_exception(p.error);
      if (p.missing) {
        out.push_back(sdk::VerifyOutcome::of({sdk::VerifyStatus::Missing, "repository " + p.target->path + " not found"}));
        continue;
      }
      const TagSnapshot* snapshot = nullptr;
      if (item.pin) {
        Tags& t = tags[p.repo];
        if (++t.pins == kTagSnapshotAfter) {
          try {
            t.snapshot = TagSnapshot::read(p.repo, packed_refs_, r.items.size());
          } catch (const std::exception&) {  // out of memory: the lookups still answer
          }
        }
        if (t.snapshot) snapshot = &*t.snapshot;
      }
      out.push_back(sdk::VerifyOutcome::of(verify_in(*p.target, p.repo, item, sha, snapshot)));
    } catch (...) {
      out.push_back(sdk::failed_outcome(std::current_exception()));
    }
  }
  return out;
}

sdk::Json GitBackend::open(sdk::Call&, const sdk::OpenRequest& r) {
  Opened o = open_target(r.locator);
  using K = sdk::Source::Kind;
  Json ref = nullptr;
  bool read_only = r.read_only;
  git_oid sha{};
  switch (r.target.kind) {
    case K::Pin:
      sha = resolve_source(o, r.target);
      ref = r.target.pin.ref;
      read_only = true;
      break;
    case K::State:
      sha = resolve_state(o, r.target.state);
      read_only = true;
      break;
    case K::Ref:
      sha = resolve_source(o, r.target);
      ref = r.target.ref;
      break;
    case K::Base: {
      std::string read = o.target.read_ref();
      sha = resolve_read_ref(o, read);
      if (read == "HEAD") {
        if (auto b = checked_out_branch(o.repo.get())) ref = *b;
      } else {
        ref = read;
      }
      break;
    }
  }
  // The address names the commit, so handles on two states differ even without a ref.
  return Json{{"address", o.target.path + "@" + oid_hex(sha)},
              {"key", o.target.path},
              {"path", o.target.path},
              {"ref", ref},
              {"sha", oid_hex(sha)},
              {"read_only", read_only},
              {"worktree", nullptr}};
}

sdk::ObjectDiff GitBackend::diff(sdk::Call& call, const sdk::DiffRequest& r) {
  Opened o = open_target(r.locator);
  sdk::ObjectDiff d;
  d.unit = "files";
  git_oid a = resolve_state(o, r.a), b = resolve_state(o, r.b);
  if (git_oid_equal(&a, &b)) {
    bool da = r.a.value("dirty", false), db = r.b.value("dirty", false);
    if (da != db) d.note = std::string("working tree dirty: ") + (da ? "yes" : "no") + " -> " + (db ? "yes" : "no");
    return d;
  }
  return guarded([&] {
    Commit ca = lookup_commit(o.repo.get(), a), cb = lookup_commit(o.repo.get(), b);
    Tree ta = commit_tree(ca.get()), tb = commit_tree(cb.get());
    auto opts = init_options(git_diff_options_init, GIT_DIFF_OPTIONS_VERSION);
    git_diff* raw = nullptr;
    check(git_diff_tree_to_tree(&raw, o.repo.get(), ta.get(), tb.get(), &opts), "cannot diff " + short_hex(a) + " " + short_hex(b));
    Diff diff(raw);
    auto find = init_options(git_diff_find_options_init, GIT_DIFF_FIND_OPTIONS_VERSION);
    find.flags = GIT_DIFF_FIND_RENAMES;
    check(git_diff_find_similar(diff.get(), &find), "cannot detect renames");
    size_t n = git_diff_num_deltas(diff.get());
    for (size_t i = 0; i < n; ++i) {
      if (i % 256 == 0) {
        if (call.cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "diff cancelled");
        call.progress("diffing", "files", i, n, 0);
      }
      const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
      std::string change, path = delta->new_file.path ? delta->new_file.path : "";
      switch (delta->status) {
        case GIT_DELTA_ADDED: change = "added"; break;
        case GIT_DELTA_DELETED: change = "removed"; path = delta->old_file.path; break;
        case GIT_DELTA_RENAMED: change = "renamed"; path = std::string(delta->old_file.path) + " -> " + path; break;
        default: change = "modified"; break;
      }
      // Line counts only for the entries that are kept: the counts of changes stay exact.
      std::string detail;
      if (d.entries.size() < sdk::kMaxDiffEntries) {
        git_patch* praw = nullptr;
        check(git_patch_from_diff(&praw, diff.get(), i), "cannot diff " + path);
        Patch patch(praw);
        const git_diff_delta* pd = patch ? git_patch_get_delta(patch.get()) : delta;
        if (pd->flags & GIT_DIFF_FLAG_BINARY) {
          detail = "binary";
        } else if (patch) {
          size_t ctx = 0, adds = 0, dels = 0;
          check(git_patch_line_stats(&ctx, &adds, &dels, patch.get()), "cannot count lines of " + path);
          if (adds || dels || delta->status != GIT_DELTA_RENAMED)
            detail = "+" + std::to_string(adds) + " -" + std::to_string(dels);
        }
      }
      d.add(std::move(path), change, std::move(detail));
    }
    return d;
  });
}

std::vector<sdk::HistoryEntry> GitBackend::history(sdk::Call& call, const sdk::HistoryRequest& r) {
  Opened o = open_target(r.locator);
  std::string start = r.ref ? *r.ref : o.target.read_ref();
  if (r.ref) refuse_option_like("ref", *r.ref);
  git_oid head = r.ref ? resolve_source(o, sdk::Source::of_ref(*r.ref)) : resolve_read_ref(o, start);
  return guarded([&] {
    // Decorations: every branch, remote branch and tag, by the commit it names.
    std::map<std::string, std::vector<std::string>> names;
    for (const auto& name : reference_names(o.repo.get(), "refs/*")) {
      auto oid = reference_commit(o.repo.get(), name);
      if (!oid) continue;
      std::string shown = name;
      for (const char* prefix : {"refs/heads/", "refs/tags/", "refs/remotes/"})
        if (shown.rfind(prefix, 0) == 0) shown = shown.substr(std::string(prefix).size());
      names[oid_hex(*oid)].push_back(shown);
    }
    git_revwalk* wraw = nullptr;
    check(git_revwalk_new(&wraw, o.repo.get()), "cannot walk history");
    Revwalk walk(wraw);
    check(git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME), "cannot walk history");
    check(git_revwalk_push(walk.get(), &head), "cannot walk history from " + start);
    std::vector<sdk::HistoryEntry> out;
    git_oid oid;
    while ((r.limit <= 0 || static_cast<int64_t>(out.size()) < r.limit) && git_revwalk_next(&oid, walk.get()) == 0) {
      if (call.cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "history cancelled");
      Commit c = lookup_commit(o.repo.get(), oid);
      sdk::HistoryEntry e;
      e.id = oid_hex(oid);
      const git_signature* who = git_commit_committer(c.get());
      e.when = iso8601(who->when.time, who->when.offset);
      e.message = summary_line(c.get());
      auto it = names.find(e.id);
      if (it != names.end()) e.refs = it->second;
      out.push_back(std::move(e));
    }
    return out;
  });
}

std::optional<bool> GitBackend::ancestor_of(sdk::Call&, const sdk::AncestorRequest& r) {
  Opened o = open_target(r.locator);
  git_oid ancestor = resolve_state(o, r.ancestor);
  git_oid descendant = resolve_source(o, r.descendant);
  if (git_oid_equal(&ancestor, &descendant)) return true;
  int rc = git_graph_descendant_of(o.repo.get(), &descendant, &ancestor);
  guarded([&] { return check(rc, "cannot compare " + short_hex(ancestor) + " and " + short_hex(descendant)); });
  return rc == 1;
}

// ---- pins ---------------------------------------------------------------------------------------

std::vector<std::string> GitBackend::push_urls(const Opened& o, const std::string& remote) const {
  std::vector<std::string> urls;
  guarded([&] {
    int valid = 0;
    if (git_remote_name_is_valid(&valid, remote.c_str()) < 0 || !valid) return 0;
    git_config* raw = nullptr;
    check(git_repository_config_snapshot(&raw, o.repo.get()), "cannot read the configuration of " + o.target.path);
    Config cfg(raw);
    for (const char* key : {".pushurl", ".url"}) {
      git_config_get_multivar_foreach(
          cfg.get(), ("remote." + remote + key).c_str(), nullptr,
          [](const git_config_entry* e, void* out) {
            if (e->value && *e->value) static_cast<std::vector<std::string>*>(out)->emplace_back(e->value);
            return 0;
          },
          &urls);
      if (!urls.empty()) break;
    }
    return 0;
  });
  if (urls.empty()) urls.push_back(remote);
  return urls;
}

namespace {

// A bare GIT_DIR of our own in the temporary directory, removed with the object: the push
// reads its (empty) configuration instead of the object repository's.
class ScratchGitDir {
 public:
  ScratchGitDir() {
    std::string tmpl = (fs::temp_directory_path() / "tether-push-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw BackendError("cannot make a scratch directory for the push in " + fs::temp_directory_path().string());
    path_ = tmpl;
    std::error_code ec;
    for (const char* d : {"objects", "refs/heads", "refs/tags"}) fs::create_directories(path_ / d, ec);
    write("HEAD", "ref: refs/heads/tether-push\n");
    write("config", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
  }
  ~ScratchGitDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchGitDir(const ScratchGitDir&) = delete;
  ScratchGitDir& operator=(const ScratchGitDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  void write(const char* name, const char* text) {
    std::ofstream f(path_ / name, std::ios::binary);
    f << text;
    if (!f) throw BackendError("cannot write " + (path_ / name).string());
  }
  fs::path path_;
};

}  // namespace

GitBackend::PushResult GitBackend::git_push(const Opened& o, const std::string& remote, const std::string& refspec) const {
  const char* configured = std::getenv("TETHER_GIT");
  std::string objects = guarded([&] {
    git_buf buf = GIT_BUF_INIT;
    check(git_repository_item_path(&buf, o.repo.get(), GIT_REPOSITORY_ITEM_OBJECTS),
          "cannot find the object directory of " + o.target.path);
    std::string p(buf.ptr, buf.size);
    git_buf_dispose(&buf);
    return p;
  });
  ScratchGitDir scratch;
  support::ProcessOptions opts;
  opts.unset_env = {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
                    "GIT_NAMESPACE", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG*"};
  opts.set_env = {{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_DIR", scratch.path().string()}, {"GIT_OBJECT_DIRECTORY", objects}};
  for (const auto& url : push_urls(o, remote)) {
    // -C: a relative URL means what it meant in the object repository's working tree.
    std::vector<std::string> argv{configured && *configured ? configured : "git",
                                  "-c", "core.fsmonitor=",
                                  "-c", "core.hooksPath=/dev/null",
                                  "-c", "protocol.ext.allow=never",
                                  "-C", o.target.path, "push", "--end-of-options", url, refspec};
    try {
      auto res = support::run_process(argv, opts);
      if (res.ok()) continue;
      std::string msg = res.err;
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      for (auto& c : msg)
        if (c == '\n') c = ' ';
      return {false, msg};
    } catch (const support::ProcessError& e) {
      return {false, e.what()};
    }
  }
  return {true, {}};
}

sdk::Pin GitBackend::pin(sdk::Call&, const sdk::PinRequest& r) {
  Opened o = open_target(r.locator);
  if (r.state.value("dirty", false) && !o.target.allow_dirty)
    throw BackendError("refusing to pin a dirty working tree in " + o.target.path +
                       " (commit or stash the changes there, or set allow_dirty = true in the locator)");
  git_oid sha = resolve_state(o, r.state);
  sdk::Pin pin;
  pin.id = r.pin_id;
  pin.ref = "tether." + r.pin_id;
  check_branch_name(pin.ref);
  auto remote = push_remote(o, r.locator);
  std::string name = tag_ref(pin.ref);
  git_reference* raw = nullptr;
  // Created only if absent, checked under the ref's lock (the zero id as the current value),
  // so of two racing pins exactly one says it created the tag.
  git_oid absent;
  std::memset(&absent, 0, sizeof absent);
  int rc = with_lock_retry([&] {
    return git_reference_create_matching(&raw, o.repo.get(), name.c_str(), &sha, 0, &absent,
                                         ("tether: pin " + pin.id).c_str());
  });
  Reference made(raw);
  if (rc == GIT_EEXISTS || rc == GIT_EMODIFIED) {
    auto at = guarded([&] { return reference_commit(o.repo.get(), name); });
    if (!at || !git_oid_equal(&*at, &sha))
      throw BackendError("tag " + pin.ref + " already points at " + short12(at) + " in " + o.target.path + ", not " +
                         short_hex(sha));
    pin.created = false;
  } else {
    guarded([&] { return check(rc, "cannot create tag " + pin.ref + " in " + o.target.path); });
    pin.created = true;
  }
  if (remote) {
    auto res = git_push(o, *remote, oid_hex(sha) + ":" + name);
    if (!res.ok) {
      if (pin.created)
        if (Reference again = find_reference(o.repo.get(), name)) git_reference_delete(again.get());
      throw BackendError("pin " + pin.ref + " was not pushed to " + *remote + ": " + res.message);
    }
  }
  return pin;
}

void GitBackend::unpin(sdk::Call&, const sdk::UnpinRequest& r) {
  Opened o = open_target(r.locator);
  std::string name = tag_ref(r.pin.ref);
  if (auto remote = push_remote(o, r.locator)) {
    auto res = git_push(o, *remote, ":" + name);
    if (!res.ok && res.message.find("remote ref does not exist") == std::string::npos)
      throw BackendError("pin " + r.pin.ref + " was not deleted on " + *remote + ": " + res.message);
  }
  guarded([&] {
    Reference ref = find_reference(o.repo.get(), name);
    if (!ref) return 0;  // already gone
    int rc = with_lock_retry([&] { return git_reference_delete(ref.get()); });
    if (rc == GIT_ENOTFOUND) return 0;
    return check(rc, "tag " + r.pin.ref + " was not deleted from " + o.target.path);
  });
}

std::vector<std::string> GitBackend::list_pins(sdk::Call&, const sdk::LocatorRequest& r) {
  Opened o = open_target(r.locator);
  std::vector<std::string> out;
  const std::string prefix = std::string(kTags) + "tether.";
  for (const auto& name : guarded([&] { return reference_names(o.repo.get(), prefix + "*"); })) {
    std::string id = name.substr(prefix.size());
    if (("tether." + id).rfind(kWorkingRefPrefix, 0) == 0) continue;
    out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- branches -----------------------------------------------------------------------------------

bool GitBackend::checked_out_here(const Opened& o, const std::string& branch, const std::string& what) const {
  const char* wd = git_repository_workdir(o.repo.get());
  std::string here = wd ? resolve_path(wd) : std::string();
  bool mine = false;
  for (const auto& c : guarded([&] { return checkouts(o.repo.get()); })) {
    if (c.branch != branch) continue;
    if (!here.empty() && resolve_path(c.worktree) == here) {
      mine = true;
      continue;
    }
    throw BackendError("branch " + branch + " is checked out in " + resolve_path(c.worktree) + "; " + what);
  }
  return mine;
}

void GitBackend::move_branch(const Opened& o, const std::string& branch, const git_oid& to,
                             const std::optional<git_oid>& old, const std::string& what, const Json& expected) const {
  std::string name = head_ref(branch);
  std::string log = "tether: " + what + " " + branch;
  git_reference* raw = nullptr;
  // A create passes the zero id as the current value: libgit2 then checks, under the ref's
  // lock, that the ref does not exist. git_reference_create(force = 0) checks only before
  // taking the lock, so two racing creates could both write (conformance fork-race saw it).
  git_oid absent;
  std::memset(&absent, 0, sizeof absent);
  int rc = with_lock_retry([&] {
    if (!old) return git_reference_create_matching(&raw, o.repo.get(), name.c_str(), &to, 0, &absent, log.c_str());
    return git_reference_create_matching(&raw, o.repo.get(), name.c_str(), &to, 1, &*old, log.c_str());
  });
  Reference made(raw);
  if (rc >= 0) return;
  std::string reason = last_error_message();
  auto now = guarded([&] { return reference_commit(o.repo.get(), name); });
  Json actual = now ? Json{{"sha", oid_hex(*now)}} : Json(nullptr);
  if (!old && now)
    throw sdk::RefMoved(what + ": " + branch + " exists (at " + short_hex(*now) + "), expected absent", branch, expected,
                        actual);
  if (old && (!now || !git_oid_equal(&*now, &*old)))
    throw sdk::RefMoved(what + ": " + branch + " is at " + short12(now) + ", expected " + short_hex(*old), branch,
                        expected, actual);
  throw BackendError("cannot move " + branch + " in " + o.target.path + ": " + reason);
}

std::string GitBackend::fork(sdk::Call&, const sdk::ForkRequest& r) {
  Opened o = open_target(r.locator);
  check_branch_name(r.name);
  git_oid sha = resolve_source(o, r.source);
  auto current = guarded([&] { return reference_commit(o.repo.get(), head_ref(r.name)); });
  using K = sdk::Expected::Kind;
  std::optional<git_oid> old;
  Json expected = nullptr;
  switch (r.expected.kind) {
    case K::None:
      if (current && git_oid_equal(&*current, &sha)) return r.name;
      old = current;
      break;
    case K::Absent:
      expected = Json::object();
      break;
    case K::At: {
      expected = r.expected.state;
      git_oid want = resolve_state(o, r.expected.state);
      if (current && git_oid_equal(&*current, &want) && git_oid_equal(&*current, &sha)) return r.name;
      old = want;
      break;
    }
  }
  // Never move a branch a working tree has checked out (this repository's own included): the
  // files there would be left behind the branch.
  if (!current || !git_oid_equal(&*current, &sha))
    for (const auto& c : guarded([&] { return checkouts(o.repo.get()); }))
      if (c.branch == r.name)
        throw BackendError("branch " + r.name + " is checked out in " + resolve_path(c.worktree) +
                           "; check out another branch there before it is reset");
  move_branch(o, r.name, sha, old, "fork", expected);
  return r.name;
}

void GitBackend::delete_working_ref(sdk::Call& call, const sdk::RefRequest& r) {
  Opened o = open_target(r.locator);
  check_branch_name(r.ref);
  if (auto why = working_ref_blockers(call, r)) throw BackendError("branch " + r.ref + " was not deleted: " + *why);
  guarded([&] {
    Reference ref = find_reference(o.repo.get(), head_ref(r.ref));
    if (!ref) return 0;
    int rc = with_lock_retry([&] { return git_reference_delete(ref.get()); });
    if (rc == GIT_ENOTFOUND) return 0;
    return check(rc, "branch " + r.ref + " was not deleted from " + o.target.path);
  });
}

std::vector<std::string> GitBackend::list_working_refs(sdk::Call&, const sdk::LocatorRequest& r) {
  Opened o = open_target(r.locator);
  std::vector<std::string> out;
  for (const auto& name : guarded([&] { return reference_names(o.repo.get(), std::string(kHeads) + kWorkingRefPrefix + "*"); }))
    out.push_back(name.substr(std::string(kHeads).size()));
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> GitBackend::working_ref_blockers(sdk::Call&, const sdk::RefRequest& r) {
  Opened o = open_target(r.locator);
  for (const auto& c : guarded([&] { return checkouts(o.repo.get()); }))
    if (c.branch == r.ref) return "it is checked out in " + resolve_path(c.worktree);
  return std::nullopt;
}

std::string GitBackend::rename_working_ref(sdk::Call& call, const sdk::RenameRefRequest& r) {
  Opened o = open_target(r.locator);
  check_branch_name(r.old_ref);
  check_branch_name(r.new_ref);
  auto at = guarded([&] { return reference_commit(o.repo.get(), head_ref(r.old_ref)); });
  if (!at) throw BackendError("branch " + r.old_ref + " does not exist in " + o.target.path);
  move_branch(o, r.new_ref, *at, std::nullopt, "rename", Json::object());
  delete_working_ref(call, sdk::RefRequest{r.locator, r.old_ref});
  return r.new_ref;
}

// ---- landing forks --------------------------------------------------------------------------------

git_oid GitBackend::base_head(const Opened& o, const std::string& base, const sdk::Expected& e,
                                              const std::string& what) const {
  auto head = guarded([&] { return reference_commit(o.repo.get(), head_ref(base)); });
  if (!head) throw BackendError("'" + base + "' is not a local branch of " + o.target.path);
  using K = sdk::Expected::Kind;
  if (e.kind == K::None) return *head;
  Json actual{{"sha", oid_hex(*head)}};
  if (e.kind == K::Absent)
    throw sdk::RefMoved(what + ": " + base + " is at " + short_hex(*head) + ", expected absent", base,
                        Json::object(), actual);
  git_oid want = resolve_state(o, e.state);
  if (!git_oid_equal(&want, &*head))
    throw sdk::RefMoved(what + ": " + base + " is at " + short_hex(*head) + ", expected " + short_hex(want), base,
                        e.state, actual);
  return *head;
}

void GitBackend::land(const Opened& o, const std::string& base, const git_oid& head, const git_oid& to, bool here,
                      const std::string& what, const sdk::Expected& e) const {
  Json expected = e.kind == sdk::Expected::Kind::At ? e.state : Json::object();
  if (!here) {
    move_branch(o, base, to, head, what, expected);
    return;
  }
  // The checked-out branch: marker, CAS, then the files (landing.hpp says why this order).
  // Every file the switch touches is checked first, so it cannot stop half way after the CAS.
  auto foreign = guarded([&] { return switch_conflicts(o.repo.get(), head, to); });
  if (!foreign.empty())
    throw BackendError(base + " is checked out in " + o.target.path + " and " + foreign.front() +
                       " there holds changes of its own; commit or stash them first (nothing moved)");
  guarded([&] {
    write_landing(o.repo.get(), LandingMarker{base, head, to});
    return 0;
  });
  try {
    move_branch(o, base, to, head, what, expected);
  } catch (...) {
    try {
      clear_landing(o.repo.get());  // nothing was written: the files are still `head`'s
    } catch (const std::exception&) {
    }
    throw;
  }
  settle(o);
}

void GitBackend::settle(const Opened& o) const {
  if (git_repository_is_bare(o.repo.get())) return;
  auto m = guarded([&] { return read_landing(o.repo.get()); });
  if (!m) return;
  std::string moving = "an interrupted move of " + m->branch + " (" + short_hex(m->from) + " -> " + short_hex(m->to) +
                       ") in " + o.target.path;
  auto here = guarded([&] { return checked_out_branch(o.repo.get()); });
  if (!here || *here != m->branch)
    throw BackendError(moving + " cannot be finished: " + m->branch +
                       " is no longer checked out there; check its working tree, then remove .git/tether-landing");
  auto at = guarded([&] { return reference_commit(o.repo.get(), head_ref(m->branch)); });
  if (!at || (!git_oid_equal(&*at, &m->from) && !git_oid_equal(&*at, &m->to)))
    throw BackendError(moving + " cannot be finished: " + m->branch + " is at " + short12(at) +
                       " now; check its working tree, then remove .git/tether-landing");
  try {
    clear_landing_locks(o.repo.get(), *m);
    switch_paths(o.repo.get(), m->from, m->to, *at);
    clear_landing(o.repo.get());
  } catch (const Git2Error& e) {
    throw BackendError(moving + " cannot be finished: " + e.what());
  }
}

sdk::State GitBackend::promote(sdk::Call&, const sdk::PromoteRequest& r) {
  Opened o = open_target(r.locator);
  std::string base = base_branch_of(o);
  settle(o);
  git_oid target = resolve_source(o, r.source);
  git_oid head = base_head(o, base, r.expected, "promote");
  if (git_oid_equal(&target, &head)) return state_at(o, base, head);
  int rc = git_graph_descendant_of(o.repo.get(), &target, &head);
  guarded([&] { return check(rc, "cannot compare " + short_hex(head) + " and " + short_hex(target)); });
  if (rc != 1)
    throw BackendError(base + " is at " + short_hex(head) + ", which is not an ancestor of " + short_hex(target) +
                       ": a promote only fast-forwards; merge instead");
  bool here = checked_out_here(o, base, "promote from there");
  if (here && guarded([&] { return working_tree_dirty(o.repo.get()); }))
    throw BackendError(base + " is checked out in " + o.target.path +
                       " with uncommitted changes; commit or stash them first");
  land(o, base, head, target, here, "promote", r.expected);
  return state_at(o, base, target);
}

sdk::State GitBackend::merge(sdk::Call&, const sdk::MergeRequest& r) {
  Opened o = open_target(r.locator);
  std::string base = base_branch_of(o);
  settle(o);
  git_oid source = resolve_source(o, r.source);
  git_oid head = base_head(o, base, r.expected, "merge");
  // Already merged: nothing to record (git merge says "Already up to date").
  if (git_oid_equal(&source, &head) || git_graph_descendant_of(o.repo.get(), &head, &source) == 1)
    return state_at(o, base, head);
  bool here = checked_out_here(o, base, "merge from there");
  if (here && guarded([&] { return working_tree_dirty(o.repo.get()); }))
    throw BackendError(base + " has uncommitted changes in " + o.target.path + "; commit or stash them first");
  git_oid merged = guarded([&] {
    Commit ours = lookup_commit(o.repo.get(), head), theirs = lookup_commit(o.repo.get(), source);
    Index index = merged_index(o, head, source, base);
    auto list = conflict_paths(index.get());
    if (!list.empty()) {
      std::string shown;
      for (size_t i = 0; i < list.size() && i < 5; ++i) shown += (i ? ", " : "") + list[i];
      if (list.size() > 5) shown += ", ...";
      throw sdk::MergeConflict("merging " + short_hex(source) + " into " + base + " conflicts in " +
                                   std::to_string(list.size()) + " file(s): " + shown + "; " + base + " is untouched",
                               list);
    }
    git_oid tree_id;
    check(git_index_write_tree_to(&tree_id, index.get(), o.repo.get()), "cannot write the merged tree");
    git_tree* traw = nullptr;
    check(git_tree_lookup(&traw, o.repo.get(), &tree_id), "cannot read the merged tree");
    Tree tree(traw);
    Signature sig = default_signature(o.repo.get());
    const git_commit* parents[] = {ours.get(), theirs.get()};
    std::string message = r.message.empty() ? "tether: merge " + short_hex(source) + " into " + base : r.message;
    if (message.back() != '\n') message += '\n';
    git_oid id;
    check(git_commit_create(&id, o.repo.get(), nullptr, sig.get(), sig.get(), nullptr, message.c_str(), tree.get(), 2,
                            parents),
          "cannot write the merge commit");
    return id;
  });
  land(o, base, head, merged, here, "merge", r.expected);
  return state_at(o, base, merged);
}

Index GitBackend::merged_index(const Opened& o, const git_oid& ours, const git_oid& theirs, const std::string& base) const {
  Commit a = lookup_commit(o.repo.get(), ours), b = lookup_commit(o.repo.get(), theirs);
  auto opts = init_options(git_merge_options_init, GIT_MERGE_OPTIONS_VERSION);
  opts.flags = GIT_MERGE_FIND_RENAMES;
  git_index* iraw = nullptr;
  check(git_merge_commits(&iraw, o.repo.get(), a.get(), b.get(), &opts), "cannot merge " + short_hex(theirs) + " into " + base);
  return Index(iraw);
}

std::vector<std::string> GitBackend::conflict_paths(git_index* index) {
  std::set<std::string> paths;
  if (!git_index_has_conflicts(index)) return {};
  git_index_conflict_iterator* craw = nullptr;
  check(git_index_conflict_iterator_new(&craw, index), "cannot list merge conflicts");
  Handle<git_index_conflict_iterator, git_index_conflict_iterator_free> it(craw);
  const git_index_entry *anc = nullptr, *our = nullptr, *their = nullptr;
  while (git_index_conflict_next(&anc, &our, &their, it.get()) == 0) {
    const git_index_entry* e = our ? our : their ? their : anc;
    if (e && e->path) paths.insert(e->path);
  }
  return {paths.begin(), paths.end()};
}

sdk::LandingBlocker GitBackend::promote_blockers(sdk::Call&, const sdk::LandingRequest& r) {
  Opened o = open_target(r.locator);
  sdk::LandingBlocker out;
  try {
    std::string base = base_branch_of(o);
    if (auto m = guarded([&] { return read_landing(o.repo.get()); })) {
      out.blocker = "an interrupted promote left " + m->branch + " in " + o.target.path + " between " + short_hex(m->from) +
                    " and " + short_hex(m->to) + "; run `tether repair` to finish it";
      return out;
    }
    git_oid source = resolve_source(o, r.source);
    git_oid head = base_head(o, base, r.expected, r.merge ? "merge" : "promote");
    if (git_oid_equal(&source, &head)) return out;
    if (r.merge) {
      if (git_graph_descendant_of(o.repo.get(), &head, &source) == 1) return out;  // already merged
      out.conflicts = guarded([&] { return conflict_paths(merged_index(o, head, source, base).get()); });
      if (!out.conflicts.empty()) {
        std::string shown;
        for (size_t i = 0; i < out.conflicts.size() && i < 5; ++i) shown += (i ? ", " : "") + out.conflicts[i];
        if (out.conflicts.size() > 5) shown += ", ...";
        out.blocker = "merging " + short_hex(source) + " into " + base + " would conflict in " +
                      std::to_string(out.conflicts.size()) + " file(s): " + shown + "; merge them by hand on " + base;
        return out;
      }
    } else if (git_graph_descendant_of(o.repo.get(), &source, &head) != 1) {
      out.blocker = base + " is at " + short_hex(head) + ", which is not an ancestor of " + short_hex(source) +
                    ": a promote only fast-forwards; merge instead";
      return out;
    }
    bool here = checked_out_here(o, base, r.merge ? "merge from there" : "promote from there");
    if (here) {
      auto dirty = guarded([&] { return dirty_paths(o.repo.get(), 4); });
      if (!dirty.empty()) {
        std::string shown;
        for (size_t i = 0; i < dirty.size() && i < 3; ++i) shown += (i ? ", " : "") + dirty[i];
        if (dirty.size() > 3) shown += ", ...";
        out.blocker = base + " is checked out in " + o.target.path + " with uncommitted changes (" + shown +
                      "); commit or stash them there first";
      }
    }
  } catch (const sdk::Error& e) {
    out.blocker = e.what();
  }
  return out;
}

sdk::State GitBackend::rewind(sdk::Call&, const sdk::RewindRequest& r) {
  Opened o = open_target(r.locator);
  std::string base = base_branch_of(o);
  settle(o);
  git_oid head = base_head(o, base, r.expected, "rewind");
  git_oid to = resolve_state(o, r.to);
  if (git_oid_equal(&to, &head)) return state_at(o, base, head);
  if (git_graph_descendant_of(o.repo.get(), &head, &to) != 1)
    throw BackendError(base + " is at " + short_hex(head) + ", which does not descend from " + short_hex(to) +
                       ": rewind only goes back along " + base + "'s own history");
  bool here = checked_out_here(o, base, "rewind from there");
  if (here && guarded([&] { return working_tree_dirty(o.repo.get()); }))
    throw BackendError(base + " is checked out in " + o.target.path +
                       " with uncommitted changes; commit or stash them first");
  land(o, base, head, to, here, "rewind", r.expected);
  return state_at(o, base, to);
}

// ---- the store lifecycle ------------------------------------------------------------------------------

sdk::State GitBackend::create(sdk::Call&, const sdk::CreateRequest& r) {
  Target t = parse_target(r.locator);
  refuse_inside_checkout(t, configuration().checkout);
  if (exists(t.path)) throw BackendError(t.path + " already exists; `create` never adopts it");
  std::string base = t.ref ? *t.ref : "main";
  check_branch_name(base);
  guarded([&] {
    auto opts = init_options(git_repository_init_options_init, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
    opts.initial_head = base.c_str();
    git_repository* raw = nullptr;
    check(git_repository_init_ext(&raw, t.path.c_str(), &opts), "cannot create a repository at " + t.path);
    Repository repo(raw);
    git_config* craw = nullptr;
    check(git_repository_config(&craw, repo.get()), "cannot open the configuration of " + t.path);
    Config cfg(craw);
    git_config* lraw = nullptr;
    check(git_config_open_level(&lraw, cfg.get(), GIT_CONFIG_LEVEL_LOCAL), "cannot open the configuration of " + t.path);
    Config local(lraw);
    check(git_config_set_string(local.get(), "tether.owner", r.owner.c_str()), "cannot write tether.owner in " + t.path);
    git_treebuilder* braw = nullptr;
    check(git_treebuilder_new(&braw, repo.get(), nullptr), "cannot build the empty tree");
    TreeBuilder builder(braw);
    git_oid tree_id;
    check(git_treebuilder_write(&tree_id, builder.get()), "cannot write the empty tree");
    git_tree* traw = nullptr;
    check(git_tree_lookup(&traw, repo.get(), &tree_id), "cannot read the empty tree");
    Tree tree(traw);
    git_signature* sraw = nullptr;
    check(git_signature_new(&sraw, "tether", "tether@localhost", kCreateTime, 0), "cannot make a signature");
    Signature sig(sraw);
    git_oid root;
    check(git_commit_create(&root, repo.get(), nullptr, sig.get(), sig.get(), nullptr, kCreateMessage, tree.get(), 0,
                            nullptr),
          "cannot write the root commit");
    if (oid_hex(root) != kEmptyRootSha)
      throw Git2Error(GIT_ERROR, "the root commit of " + t.path + " is " + oid_hex(root) + ", not " + kEmptyRootSha);
    git_reference* rraw = nullptr;
    check(git_reference_create(&rraw, repo.get(), head_ref(base).c_str(), &root, 0, "tether: created store"),
          "cannot create branch " + base);
    Reference made(rraw);
    auto co = init_options(git_checkout_options_init, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_FORCE;
    return check(git_checkout_head(repo.get(), &co), "cannot check out " + base + " in " + t.path);
  });
  Opened o = open_target(r.locator);
  return state_at(o, base, resolve_read_ref(o, head_ref(base)));
}

std::optional<std::string> GitBackend::owner(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  if (!has_dot_git(t.path)) return std::nullopt;
  Opened o = open_target(r.locator);
  return guarded([&]() -> std::optional<std::string> {
    git_config* raw = nullptr;
    check(git_repository_config_snapshot(&raw, o.repo.get()), "cannot read the configuration of " + t.path);
    Config cfg(raw);
    const char* value = nullptr;
    if (git_config_get_string(&value, cfg.get(), "tether.owner") < 0 || !value || !*value) return std::nullopt;
    return std::string(value);
  });
}

std::optional<bool> GitBackend::is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest& r) {
  Target t = parse_target(r.locator);
  if (!has_dot_git(t.path)) return std::nullopt;
  Opened o = open_target(r.locator);
  std::string base = t.ref ? *t.ref : "main";
  std::set<std::string> ignoring(r.ignoring.begin(), r.ignoring.end());
  return guarded([&]() -> std::optional<bool> {
    std::vector<std::string> left;
    for (const char* glob : {"refs/heads/*", "refs/tags/*"})
      for (const auto& name : reference_names(o.repo.get(), glob)) {
        std::string s = name.substr(std::string(glob).size() - 1);
        if (!ignoring.count(s)) left.push_back(s);
      }
    if (left != std::vector<std::string>{base}) return false;
    auto at = reference_commit(o.repo.get(), head_ref(base));
    if (!at || oid_hex(*at) != kEmptyRootSha) return false;
    auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_INCLUDE_IGNORED |
                 GIT_STATUS_OPT_RECURSE_IGNORED_DIRS;
    int rc = git_status_foreach_ext(o.repo.get(), &opts, [](const char*, unsigned int, void*) { return 1; }, nullptr);
    if (rc == 1) return false;
    check(rc, "cannot read the working tree status of " + t.path);
    return true;
  });
}

void GitBackend::delete_store(sdk::Call& call, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  refuse_inside_checkout(t, configuration().checkout);
  if (!has_dot_git(t.path) || !owner(call, r))
    throw BackendError(t.path + " is not a repository tether created; not removing it");
  if (is_ref_empty(call, sdk::IsRefEmptyRequest{r.locator, {}}) != true)
    throw BackendError(t.path + " is not empty (refs, commits, or files in the working tree); not removing it");
  std::error_code ec;
  fs::remove_all(t.path, ec);
  if (ec) throw BackendError("cannot remove " + t.path + ": " + ec.message());
}

}  // namespace tether::git
