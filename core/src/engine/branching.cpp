// core/src/engine/branching.cpp: what every command working on bookmarks shares (docs/concepts.md):
// the checkout's VCS position, stale working copies, the checkout being on its bookmark, other
// live checkouts, and the source a committed state is read or forked from. `new` and `open`
// are new.cpp and open.cpp.
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

bool has_at(const Json& locator) {
  auto it = locator.find("at");
  return it != locator.end() && it->is_string() && !it->get<std::string>().empty();
}

// ---- shared checks -------------------------------------------------------------------------

Json vcs_position(const Context& cx) {
  auto head = cx.vcs->head();
  auto branch = cx.vcs->current_branch();
  return Json{{"kind", cx.vcs->kind()},
              {"id", head ? Json(*head) : Json(nullptr)},
              {"commit", head ? Json(*head) : Json(nullptr)},
              {"branch", branch ? Json(*branch) : Json(nullptr)}};
}

void Repo::require_persisted_workspace() {
  Context& cx = Context::of(*this);
  if (!model::checkout_entry_exists(tether_dir(cx) / "workspace.toml")) write_workspace(cx);
}

std::vector<std::string> Repo::stale_keys() const {
  const Context& cx = Context::of(*this);
  if (on_trunk(cx)) return {};  // the trunk's branches are the upstream ones: nothing to go stale
  std::set<std::string> keys;
  for (const auto& [k, r] : cx.workspace->working_refs) keys.insert(k);
  for (const auto& [k, r] : cx.workspace->pending_forks) keys.insert(k);
  std::vector<std::string> stale;
  for (const auto& k : keys) {
    auto m = cx.manifests.find(k);
    if (m == cx.manifests.end() || !m->second.state) continue;
    auto base = cx.workspace->base_states.find(k);
    if (base == cx.workspace->base_states.end()) {
      stale.push_back(k);
      continue;
    }
    bool same = false;
    try {
      same = cx.host->get(m->second.kind).same(base->second, *m->second.state);
    } catch (const std::exception&) {
      same = base->second == *m->second.state;
    }
    if (!same) stale.push_back(k);
  }
  return stale;
}

std::vector<std::string> Repo::bookmark_drift() {
  Context& cx = Context::of(*this);
  if (!cx.workspace->bookmark) return {};
  const std::string& b = *cx.workspace->bookmark;
  const std::string trunk = cx.config.trunk();
  auto bms = cx.vcs->bookmarks();
  auto cur = cx.vcs->current_branch();
  auto here = cx.vcs->current_bookmark();
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
  if (b == trunk || cx.workspace->working_refs.empty()) return {};
  std::map<std::string, model::ObjectManifest> at;
  try {
    at = manifests_at(cx, bms[b]);
  } catch (const std::exception&) {
    return {};
  }
  std::vector<std::string> moved;
  for (const auto& [k, ref] : cx.workspace->working_refs) {
    auto m = at.find(k);
    auto base = cx.workspace->base_states.find(k);
    if (m == at.end() || !m->second.state || base == cx.workspace->base_states.end()) continue;
    bool same = base->second == *m->second.state;
    try {
      same = cx.backend(m->second.kind).same(base->second, *m->second.state);
    } catch (const std::exception&) {
    }
    if (!same) moved.push_back(k);
  }
  if (moved.empty()) return {};
  return {"bookmark '" + b + "' was moved to " + bms[b].substr(0, 12) + ": its commit no longer records what the store branches of " +
          join(moved) + " hold; `tether new " + b +
          "` resets them onto the pins there (refused while they hold unpinned writes; --discard to drop those)"};
}

void check_not_stale(Context& cx) {
  auto stale = cx.stale_keys();
  if (stale.empty()) return;
  throw StaleWorkingCopyError("working copy is stale: the committed state of " + join(stale) +
                              " changed since this workspace forked; run `tether new` to refork before writing");
}

void check_on_bookmark(Context& cx) {
  if (!cx.workspace->bookmark) return;
  const std::string& b = *cx.workspace->bookmark;
  auto current = cx.vcs->current_branch();
  if (current && *current == b) return;  // also an unborn branch HEAD is on
  auto bookmarks = cx.vcs->bookmarks();
  if (!bookmarks.count(b))
    throw StaleWorkingCopyError("bookmark '" + b + "' no longer exists; `tether new -b " + b +
                                "` recreates it, `tether new NAME` joins another");
  auto here = cx.vcs->current_bookmark();
  throw StaleWorkingCopyError("the working copy is not on bookmark '" + b + "' (it moved to " +
                              (here ? "'" + *here + "'" : std::string("no bookmark")) + "); run `tether new " + b +
                              "` to return, or `tether new` to work where you are");
}

std::map<std::string, std::string> other_workspaces(const Context& cx) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  fs::path mine = fs::weakly_canonical(cx.vcs->root(), ec);
  for (const auto& root : cx.vcs->workspace_roots()) {
    fs::path r = fs::weakly_canonical(root, ec);
    if (r == mine) continue;
    fs::path dir = cx.vcs->rel().empty() ? r : r / cx.vcs->rel();
    try {
      auto ws = model::read_workspace(model::tether_path(dir, "workspace.toml"));
      if (!ws || ws->workspace_id == cx.workspace->workspace_id) continue;
      out[ws->workspace_id] = ws->bookmark.value_or("");
    } catch (const std::exception&) {
      // An unreadable workspace file is skipped: it cannot hold a bookmark we could honour.
    }
  }
  return out;
}

sdk::Source checked_source(Context& cx, const model::ObjectManifest& m) {
  auto& b = cx.backend(m.kind);
  uint32_t caps = cx.effective_capabilities(m);
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

}  // namespace tether::engine
