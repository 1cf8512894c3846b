// core/src/engine/branching.cpp: what every command working on bookmarks shares (docs/concepts.md):
// the checkout's VCS position, stale working copies, the checkout being on its bookmark, other
// live checkouts, and the source a committed state is read or forked from. `new` and `open`
// are new.cpp and open.cpp.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
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

// ---- undoing new, restore and fork (undo.cpp runs it; engine/undoer.hpp) ----

static void return_vcs(Undoer& u);
static void plan_return_vcs(Undoer& u);
static std::string reset_from(const Json& heads, const std::string& key);
static std::pair<std::string, std::string> place(const Json& v);

namespace {
struct Branch {
  std::string key, ref;
  bool created = false;
};
}  // namespace
static std::vector<Branch> branches(const Undoer& u) {
  std::vector<Branch> out;
  const Json& r = u.target.result;
  const Json heads = u.target.pre.value("heads", Json::object());
  if (u.target.command == "fork") {
    std::string key = str_of(r, "key"), ref = str_of(r, "ref");
    if (!key.empty() && !ref.empty()) out.push_back({key, ref, !heads.contains(key)});
    return out;
  }
  const Json refs = r.value("working_refs", Json::object());
  for (const char* list : {"created", "reset"})
    for (const auto& k : r.value(list, Json::array())) {
      if (!k.is_string()) continue;
      std::string key = k.get<std::string>();
      std::string ref = refs.contains(key) && refs[key].is_string() ? refs[key].get<std::string>() : std::string();
      if (ref.empty() && !u.cx.workspace->working_refs.count(key)) continue;
      if (ref.empty()) ref = u.cx.workspace->working_refs.at(key);
      out.push_back({key, ref, std::string(list) == "created"});
    }
  return out;
}

// The heads the created branches of registered objects read now (nullopt: gone or
// unreadable), by key.
static std::map<std::string, std::optional<Json>> created_heads(Undoer& u, const std::vector<Branch>& bs) {
  std::map<std::string, std::optional<Json>> out;
  for (const auto& b : bs) {
    if (!b.created) continue;
    auto m = u.cx.manifests.find(b.key);
    if (m == u.cx.manifests.end()) continue;
    try {
      out[b.key] = u.cx.backend(m->second.kind).fingerprint(m->second.locator, b.ref, b.key);
    } catch (const std::exception&) {
      out[b.key] = std::nullopt;  // nothing to lose by deleting it
    }
  }
  return out;
}

// Created branches holding writes beyond where they started: refused unless --discard.
// Returns the keys with writes (those --discard deletes anyway).
static std::set<std::string> check_writes(Undoer& u, const std::vector<Branch>& bs, const std::map<std::string, std::optional<Json>>& heads) {
  std::set<std::string> dirty;
  std::vector<std::string> lines;
  const model::Workspace& ws = *u.cx.workspace;
  for (const auto& b : bs) {
    auto h = heads.find(b.key);
    if (!b.created || h == heads.end() || !h->second) continue;
    const auto& m = u.cx.manifests.at(b.key);
    auto& be = u.cx.backend(m.kind);
    std::vector<Json> starts;
    for (const auto* table : {&ws.fork_points, &ws.base_states})
      if (auto it = table->find(b.key); it != table->end()) starts.push_back(it->second);
    if (m.state) starts.push_back(*m.state);
    bool clean = std::any_of(starts.begin(), starts.end(), [&](const Json& s) { return !s.is_null() && be.same(*h->second, s); });
    if (clean) continue;
    dirty.insert(b.key);
    lines.push_back(b.key + ": " + b.ref + " has writes since (" + model::short_state(*h->second) + ")");
  }
  if (!lines.empty() && !u.discard)
    throw TetherError("refusing to undo: branches gained writes; commit them or pass --discard\n  " + join(lines, "\n  "));
  return dirty;
}

// check_writes ran when the undo was planned.
void undo_branching(Undoer& u) {
  auto bs = branches(u);
  const Json heads = u.target.pre.value("heads", Json::object());
  std::set<std::string> done_refs;
  for (const auto& b : bs) {
    if (!b.created) {
      u.irreversible.push_back(b.key + ": " + b.ref + " was reset (was " + reset_from(heads, b.key) +
                             "); `tether restore " + b.key + " --from REV` or `tether new --discard` puts it where you want");
      continue;
    }
    auto m = u.cx.manifests.find(b.key);
    if (m == u.cx.manifests.end()) {
      u.skipped.push_back(b.key + ": object no longer registered; " + b.ref + " left");
      continue;
    }
    auto& be = u.cx.backend(m->second.kind);
    std::string once = be.branch_scope(m->second.locator, b.key) + "\n" + b.ref;
    if (!done_refs.insert(once).second) continue;  // a branch shared by several keys
    try {
      be.delete_working_ref(m->second.locator, b.ref, b.key);
      u.restored.push_back(b.key + ": deleted " + b.ref);
    } catch (const std::exception& e) {
      u.irreversible.push_back(b.key + ": could not delete " + b.ref + ": " + e.what());
    }
  }
  u.restore_workspace();
  if (u.target.command == "new") return_vcs(u);
}
static std::string reset_from(const Json& heads, const std::string& key) {
  return heads.contains(key) ? model::short_state(heads[key]) : std::string("?");
}
// Refuses branches with writes (unless --discard); binds each deletion to the head reviewed.
void plan_undo_branching(Undoer& u) {
  auto bs = branches(u);
  auto now = created_heads(u, bs);
  auto dirty = check_writes(u, bs, now);
  const Json heads = u.target.pre.value("heads", Json::object());
  std::set<std::string> done_refs;
  for (const auto& b : bs) {
    if (!b.created) {
      u.act(PlanOp::KeepBranch, b.key, "", b.ref,
          "was reset (was " + reset_from(heads, b.key) + "), cannot be put back; `tether restore " + b.key +
              " --from REV` or `tether new --discard` puts it where you want");
      continue;
    }
    auto m = u.cx.manifests.find(b.key);
    if (m == u.cx.manifests.end()) {
      u.note(b.key + ": object no longer registered; " + b.ref + " left");
      continue;
    }
    std::string once = u.cx.backend(m->second.kind).branch_scope(m->second.locator, b.key) + "\n" + b.ref;
    if (!done_refs.insert(once).second) continue;
    const std::optional<Json>& head = now.at(b.key);
    const std::string at = head ? model::short_state(*head) : std::string("gone");
    std::string detail = "created by " + u.target.command + " (now " + at + ")";
    if (dirty.count(b.key)) detail += "; --discard: its writes are lost";
    u.act(PlanOp::DeleteBranch, b.key, m->second.kind, b.ref, detail);
    u.plan->preconditions.push_back({"ref_head", head ? *head : Json(nullptr), b.key, Json{{"ref", b.ref}},
                                   "undo " + b.key + ": " + b.ref + " moved since the plan was made (" + at +
                                       " -> {observed}); re-run the plan"});
  }
  u.plan_workspace();
  if (u.target.command == "new") plan_return_vcs(u);
}

// Puts the VCS back where `new` found it, if nothing moved it since.
static void return_vcs(Undoer& u) {
  const Json& r = u.target.result;
  const Json pre_vcs = u.target.pre.value("vcs", Json(nullptr)), post_vcs = r.value("vcs", Json(nullptr));
  if (!pre_vcs.is_object() || !post_vcs.is_object()) return;
  if (place(pre_vcs) != place(post_vcs)) {
    if (place(vcs_position(u.cx)) != place(post_vcs)) {
      u.skipped.push_back("VCS working copy has moved since; not returning it");
    } else {
      std::string branch = str_of(pre_vcs, "branch"), commit = str_of(pre_vcs, "commit");
      try {
        if (!branch.empty() && u.cx.vcs->bookmarks().count(branch)) u.cx.vcs->switch_to(branch);
        else if (!commit.empty()) u.cx.vcs->switch_to(commit);
        u.restored.push_back("VCS working copy back where it was");
      } catch (const std::exception& e) {
        u.irreversible.push_back(std::string("VCS working copy not returned: ") + e.what());
      }
    }
  }
  std::string bookmark = str_of(r, "bookmark");
  if (!bool_of(r, "created_bookmark") || bookmark.empty()) return;
  auto bms = u.cx.vcs->bookmarks();
  auto it = bms.find(bookmark);
  if (it == bms.end()) return;
  if (it->second != str_of(post_vcs, "commit")) {
    u.skipped.push_back("bookmark " + bookmark + " has moved since; kept");
    return;
  }
  if (u.cx.vcs->current_bookmark() == bookmark) {
    u.skipped.push_back("bookmark " + bookmark + " is checked out; kept");
    return;
  }
  try {
    u.cx.vcs->delete_bookmark(bookmark, it->second);
    u.restored.push_back("bookmark " + bookmark + " deleted");
  } catch (const std::exception& e) {
    u.irreversible.push_back("bookmark " + bookmark + " not deleted: " + e.what());
  }
}
static std::pair<std::string, std::string> place(const Json& v) {
  return std::make_pair(str_of(v, "commit"), str_of(v, "branch"));
}
static void plan_return_vcs(Undoer& u) {
  const Json& r = u.target.result;
  const Json pre_vcs = u.target.pre.value("vcs", Json(nullptr)), post_vcs = r.value("vcs", Json(nullptr));
  if (!pre_vcs.is_object() || !post_vcs.is_object()) return;
  bool returning = false;
  if (place(pre_vcs) != place(post_vcs)) {
    if (place(vcs_position(u.cx)) != place(post_vcs)) {
      u.note("VCS working copy has moved since; not returning it");
    } else {
      std::string branch = str_of(pre_vcs, "branch"), commit = str_of(pre_vcs, "commit");
      std::string to = !branch.empty() && u.cx.vcs->bookmarks().count(branch) ? branch : commit.substr(0, 12);
      if (!to.empty()) {
        u.act(PlanOp::ReturnVcs, "", "", to, "the working copy goes back where new found it");
        returning = true;
      }
    }
  }
  std::string bookmark = str_of(r, "bookmark");
  if (!bool_of(r, "created_bookmark") || bookmark.empty()) return;
  auto bms = u.cx.vcs->bookmarks();
  auto it = bms.find(bookmark);
  if (it == bms.end()) return;
  if (it->second != str_of(post_vcs, "commit")) u.note("bookmark " + bookmark + " has moved since; kept");
  else if (!returning && u.cx.vcs->current_bookmark() == bookmark) u.note("bookmark " + bookmark + " is checked out; kept");
  else u.act(PlanOp::DeleteBookmark, "", "", bookmark, "created by new -b", Json{{"commit", it->second}});
}

}  // namespace tether::engine
