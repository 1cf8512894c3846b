// core/src/engine/open.cpp: `tether open` (docs/cli.md#open): a native handle on an object's
// working branch, a revision's state or the trunk, making a fork `new` deferred on the first
// writable open.
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

static std::string materialize_fork(Context& cx, const std::string& key);

namespace {

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

// ---- tether open -----------------------------------------------------------------------------

OpenResult open_object(Repo& repo, const std::string& key, const std::optional<std::string>& rev_in,
                       std::optional<bool> writable, bool with_password) {
  Context& cx = Context::of(repo);
  std::optional<std::string> rev = rev_in;
  if (!rev)
    if (const char* env = std::getenv("TETHER_REV"); env && *env) rev = std::string(env);
  OpenResult r;
  r.key = key;
  auto finish = [&](const model::ObjectManifest& m, const sdk::Source& target, bool read_only) {
    r.read_only = read_only;
    r.handle = cx.backend(m.kind).open(m.locator, target, read_only, key, with_password);
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
    auto objects = manifests_at(cx, *rev);
    auto it = objects.find(key);
    if (it == objects.end()) throw ConfigError("object '" + key + "' does not exist at " + *rev);
    const auto& m = it->second;
    if (!m.state) throw TetherError("'" + key + "' has no committed state at " + *rev);
    uint32_t caps = cx.effective_capabilities(m);
    if (!(caps & (sdk::kPin | sdk::kAddressable)) || (!m.pin && !(caps & sdk::kAddressable)) || !m.recoverable)
      throw CapabilityError("'" + key + "' (" + m.kind + ") is Observed-tier; its state at " + *rev + " is not recoverable");
    return finish(m, checked_source(cx, m), true);
  }
  auto it = cx.manifests.find(key);
  if (it == cx.manifests.end()) throw ConfigError("no such object: " + key);
  uint32_t caps = cx.effective_capabilities(it->second);
  bool want_write = writable.value_or((caps & sdk::kFork) != 0);
  if (want_write) {
    if (!(caps & sdk::kFork))
      throw CapabilityError("'" + key + "' (" + it->second.kind + ", tier " + sdk::tier_name(caps) +
                            ") does not support writable handles; open it --read-only");
    auto lock = lock_checkout(cx);
    const auto& m = cx.manifests.at(key);
    check_not_stale(cx);
    std::string ref;
    if (auto w = working_ref(cx, key)) {
      ref = *w;
    } else if (cx.workspace->pending_forks.count(key)) {
      ref = materialize_fork(cx, key);
    } else if (on_trunk_bookmark(cx) && !has_at(m.locator)) {
      ref = cx.backend(m.kind).base_branch(m.locator, key);
    } else if (!cx.workspace->bookmark) {
      throw StaleWorkingCopyError("no working ref for '" + key +
                                  "': this working copy is on no bookmark and is read-only; `tether new -b NAME` to write");
    } else {
      throw StaleWorkingCopyError("no working ref for '" + key + "'; run `tether new` first");
    }
    return finish(cx.manifests.at(key), sdk::Source::of_ref(ref), false);
  }
  const auto& m = it->second;
  if (auto w = working_ref(cx, key)) return finish(m, sdk::Source::of_ref(*w), true);
  if (m.state && m.pin && (caps & sdk::kPin)) return finish(m, checked_source(cx, m), true);
  if (m.state && (caps & sdk::kAddressable)) return finish(m, sdk::Source::of_state(*m.state), true);
  return finish(m, sdk::Source::base(), true);
}

static std::string materialize_fork(Context& cx, const std::string& key) {
  auto lock = lock_checkout(cx);
  auto repo_lock = lock_repository(cx);
  if (auto w = working_ref(cx, key)) return *w;
  auto pending = cx.workspace->pending_forks.find(key);
  if (pending == cx.workspace->pending_forks.end())
    throw ConfigError("no working branch pending for '" + key + "'; run `tether new`");
  // The only caller, a writable open, checked staleness under this same lock.
  const std::string name = pending->second;
  const auto& m = cx.manifests.at(key);
  auto& be = cx.backend(m.kind);
  std::string scope = be.branch_scope(m.locator, key);
  auto refs = be.list_working_refs(m.locator, key);
  bool exists = std::find(refs.begin(), refs.end(), name) != refs.end();
  bool adopt = false;
  std::optional<Json> head;
  if (exists) {
    head = be.fingerprint(m.locator, name, key);
    for (const auto& [k, r] : cx.workspace->working_refs)
      if (k != key && r == name && cx.manifests.count(k) && cx.manifests.at(k).kind == m.kind &&
          cx.backend(m.kind).branch_scope(cx.manifests.at(k).locator, k) == scope)
        adopt = true;
    if (m.state && be.same(*head, *m.state)) adopt = true;
    if (!adopt) {
      auto agreed = cx.workspace->pending_resets.find(key);
      if (agreed == cx.workspace->pending_resets.end() || !be.same(agreed->second, *head))
        throw StaleWorkingCopyError("branch " + name + " holds writes (" + model::short_state(*head) +
                                    ") that `new` did not see; a writable open never resets a branch -- run `tether new` "
                                    "to decide (it refuses while the branch holds uncommitted writes; --discard throws "
                                    "them away)");
    }
  }
  OpLog oplog = op_log(cx);
  Json pre{{"workspace", model::workspace_to_toml(*cx.workspace)}};
  if (head) pre["heads"] = Json{{key, *head}};
  std::string op_id = oplog.begin("fork", pre);
  std::string ref = name;
  try {
    if (!adopt) {
      sdk::Source source = checked_source(cx, m);
      ref = be.fork(m.locator, source, name, head ? sdk::Expected::at(*head) : sdk::Expected::absent(), key);
      record_touched(cx, key, m.kind, m.locator);
    }
  } catch (const std::exception& e) {
    oplog.end(op_id, Json{{"failed", e.what()}});
    throw;
  }
  model::Workspace& ws = *cx.workspace;
  std::vector<std::string> adopted{key};
  for (const auto& [k, r] : ws.pending_forks)
    if (k != key && r == name && cx.manifests.count(k) && cx.manifests.at(k).kind == m.kind &&
        cx.backend(m.kind).branch_scope(cx.manifests.at(k).locator, k) == scope)
      adopted.push_back(k);
  for (const auto& k : adopted) {
    ws.working_refs[k] = ref;
    ws.pending_forks.erase(k);
    ws.pending_resets.erase(k);
    if (auto mm = cx.manifests.find(k); mm != cx.manifests.end() && mm->second.state) {
      ws.fork_points[k] = *mm->second.state;
      ws.base_states[k] = *mm->second.state;
    }
  }
  write_workspace(cx);
  oplog.end(op_id, Json{{"key", key}, {"ref", ref}, {"kind", m.kind}, {"locator", m.locator}});
  return ref;
}

Json OpenResult::to_json() const {
  return Json{{"key", key}, {"read_only", read_only}, {"address", address}, {"type", type}, {"handle", handle}};
}

// What `tether ops` says of the fork a writable open made (ops.cpp's table).
std::string summarize_fork(const OpEntry& e) { return "forked " + str_of(e.result, "key") + " -> " + str_of(e.result, "ref"); }

}  // namespace tether::engine
