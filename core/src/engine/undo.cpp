// core/src/engine/undo.cpp: `tether undo` (spec §4.22, §6.5). Picks the entry to reverse,
// journals an `undo` entry, then runs the handler for the entry's command. A handler says
// per part what it restored, what it skipped and what cannot be reversed (a deleted pin, a
// moved base branch); it never guesses. The handler table is at the bottom: a command absent
// from it cannot be undone.
#include <algorithm>
#include <functional>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace {

std::string str_of(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Commands whose effects undo does not reverse (b4): their own undo is another command.
const std::set<std::string>& never_undoable() {
  static const std::set<std::string> s{"undo", "repair", "upgrade", "abandon", "forget-workspace", "drop"};
  return s;
}

// The workspace fields an operation changes, flattened to (table, key) -> value; the bookmark
// is ("bookmark", ""). Snapshot caches are left out: status rewrites them without a log entry.
using WsFields = std::map<std::pair<std::string, std::string>, Json>;
WsFields ws_fields(const model::Workspace& ws) {
  WsFields f;
  if (ws.bookmark) f[{"bookmark", ""}] = *ws.bookmark;
  for (const auto& [k, v] : ws.working_refs) f[{"working_refs", k}] = v;
  for (const auto& [k, v] : ws.pending_forks) f[{"pending_forks", k}] = v;
  for (const auto& [k, v] : ws.pending_resets) f[{"pending_resets", k}] = v;
  for (const auto& [k, v] : ws.fork_points) f[{"fork_points", k}] = v;
  for (const auto& [k, v] : ws.base_states) f[{"base_states", k}] = v;
  return f;
}
void set_ws_field(model::Workspace& ws, const std::string& table, const std::string& key, const Json* v) {
  if (table == "bookmark") {
    ws.bookmark = v ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
    return;
  }
  auto put_str = [&](std::map<std::string, std::string>& m) {
    if (v) m[key] = v->get<std::string>();
    else m.erase(key);
  };
  auto put_json = [&](std::map<std::string, Json>& m) {
    if (v) m[key] = *v;
    else m.erase(key);
  };
  if (table == "working_refs") put_str(ws.working_refs);
  else if (table == "pending_forks") put_str(ws.pending_forks);
  else if (table == "pending_resets") put_json(ws.pending_resets);
  else if (table == "fork_points") put_json(ws.fork_points);
  else if (table == "base_states") put_json(ws.base_states);
}

}  // namespace

// One undo in progress: the Repo, the target and its successors in the log, and the three
// lists the result reports.
struct Undoer {
  Repo& repo;
  const OpEntry& target;
  std::optional<model::Workspace> after;  // the workspace as the target left it (best known)
  bool discard = false;
  std::vector<std::string> restored, irreversible, skipped;

  // ---- shared parts ----

  // Restores the workspace fields the target changed that no later operation changed again.
  void restore_workspace() {
    const std::string text = str_of(target.pre, "workspace");
    if (text.empty()) return;
    model::Workspace before = model::parse_workspace(text, "the op log's workspace of " + target.id);
    model::Workspace& now = *repo.workspace_;
    WsFields pre = ws_fields(before), post = ws_fields(after ? *after : now), cur = ws_fields(now);
    std::set<std::pair<std::string, std::string>> paths;
    for (const auto* f : {&pre, &post})
      for (const auto& [p, v] : *f) paths.insert(p);
    std::vector<std::string> left;
    bool changed = false;
    for (const auto& p : paths) {
      auto a = pre.find(p), b = post.find(p), c = cur.find(p);
      const Json* va = a == pre.end() ? nullptr : &a->second;
      const Json* vb = b == post.end() ? nullptr : &b->second;
      const Json* vc = c == cur.end() ? nullptr : &c->second;
      auto eq = [](const Json* x, const Json* y) { return (!x && !y) || (x && y && *x == *y); };
      if (eq(va, vb)) continue;  // the target did not change it
      if (!eq(vb, vc)) {
        left.push_back(p.second.empty() ? p.first : p.first + "." + p.second);
        continue;
      }
      set_ws_field(now, p.first, p.second, va);
      if (p.first == "working_refs" || p.first == "pending_forks") {  // the cached state was the branch's
        if (auto s = before.last_snapshot.find(p.second); s != before.last_snapshot.end()) now.set_snapshot(p.second, s->second);
        else now.last_snapshot.erase(p.second);
      }
      changed = true;
    }
    if (!left.empty())
      skipped.push_back("workspace.toml: left " + join(left) + " (changed again by a later operation)");
    if (changed) {
      repo.write_workspace();
      restored.push_back("workspace.toml restored");
    }
  }

  // Puts back the manifests `pre.objects` recorded (null: the object did not exist).
  void restore_manifests() {
    auto objects = target.pre.find("objects");
    if (objects == target.pre.end() || !objects->is_object()) return;
    for (const auto& [key, text] : objects->items()) {
      if (text.is_null()) {
        if (model::remove_manifest(repo.objects_dir(), key)) restored.push_back(key + ": manifest removed again");
      } else {
        model::atomic_write_file(model::key_to_manifest_path(repo.objects_dir(), key), text.get<std::string>());
        restored.push_back(key + ": manifest restored");
      }
    }
    repo.manifests_ = model::load_manifests(repo.objects_dir());
  }

  // ---- commit / pull ----

  void commit() {
    const Json& r = target.result;
    if (r.value("rolled_back", false)) {
      skipped.push_back("the commit was rolled back when it failed; nothing to undo");
      return;
    }
    std::string c = str_of(r, "vcs_commit");
    if (c.empty()) {  // --no-vcs (or a commit that made none): the manifests and workspace come back
      restore_manifests();
      restore_workspace();
      if (restored.empty()) skipped.push_back("no VCS commit and no manifest to restore");
      return;
    }
    if (!repo.vcs_->uncommit(c)) {
      irreversible.push_back("commit " + c.substr(0, 12) +
                             " is no longer the working copy's parent; uncommit it with jj/git first");
      return;
    }
    restored.push_back("uncommitted " + c.substr(0, 12) + "; its manifests are working-tree changes again (pins kept)");
  }

  // ---- new / restore / fork ----

  struct Branch {
    std::string key, ref;
    bool created = false;
  };
  std::vector<Branch> branches() const {
    std::vector<Branch> out;
    const Json& r = target.result;
    const Json heads = target.pre.value("heads", Json::object());
    if (target.command == "fork") {
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
        if (ref.empty() && !repo.workspace_->working_refs.count(key)) continue;
        if (ref.empty()) ref = repo.workspace_->working_refs.at(key);
        out.push_back({key, ref, std::string(list) == "created"});
      }
    return out;
  }

  // Created branches holding writes beyond where they started: refused unless --discard.
  void check_writes(const std::vector<Branch>& bs) {
    if (discard) return;
    std::vector<std::string> lines;
    const model::Workspace& ws = *repo.workspace_;
    for (const auto& b : bs) {
      if (!b.created) continue;
      auto m = repo.manifests_.find(b.key);
      if (m == repo.manifests_.end()) continue;
      auto& be = repo.backend(m->second.kind);
      std::optional<Json> head;
      try {
        head = be.fingerprint(m->second.locator, b.ref, b.key);
      } catch (const std::exception&) {
        continue;  // gone or unreadable: nothing to lose by deleting it
      }
      std::vector<Json> starts;
      for (const auto* table : {&ws.fork_points, &ws.base_states})
        if (auto it = table->find(b.key); it != table->end()) starts.push_back(it->second);
      if (m->second.state) starts.push_back(*m->second.state);
      bool clean = std::any_of(starts.begin(), starts.end(), [&](const Json& s) { return !s.is_null() && be.same(*head, s); });
      if (!clean) lines.push_back(b.key + ": " + b.ref + " has writes since (" + model::short_state(*head) + ")");
    }
    if (!lines.empty())
      throw TetherError("refusing to undo: branches gained writes; commit them or pass --discard\n  " + join(lines, "\n  "));
  }

  // check_writes(branches()) ran before the undo was journaled.
  void branching() {
    auto bs = branches();
    const Json heads = target.pre.value("heads", Json::object());
    std::set<std::string> done_refs;
    for (const auto& b : bs) {
      if (!b.created) {
        std::string was = heads.contains(b.key) ? model::short_state(heads[b.key]) : std::string("?");
        irreversible.push_back(b.key + ": " + b.ref + " was reset (was " + was + "); `tether restore " + b.key +
                               " --from REV` or `tether new --discard` puts it where you want");
        continue;
      }
      auto m = repo.manifests_.find(b.key);
      if (m == repo.manifests_.end()) {
        skipped.push_back(b.key + ": object no longer registered; " + b.ref + " left");
        continue;
      }
      auto& be = repo.backend(m->second.kind);
      std::string once = be.branch_scope(m->second.locator, b.key) + "\n" + b.ref;
      if (!done_refs.insert(once).second) continue;  // a branch shared by several keys
      try {
        be.delete_working_ref(m->second.locator, b.ref, b.key);
        restored.push_back(b.key + ": deleted " + b.ref);
      } catch (const std::exception& e) {
        irreversible.push_back(b.key + ": could not delete " + b.ref + ": " + e.what());
      }
    }
    restore_workspace();
    if (target.command == "new") return_vcs();
  }

  // Puts the VCS back where `new` found it, if nothing moved it since.
  void return_vcs() {
    const Json& r = target.result;
    const Json pre_vcs = target.pre.value("vcs", Json(nullptr)), post_vcs = r.value("vcs", Json(nullptr));
    if (!pre_vcs.is_object() || !post_vcs.is_object()) return;
    auto place = [](const Json& v) { return std::make_pair(str_of(v, "commit"), str_of(v, "branch")); };
    if (place(pre_vcs) != place(post_vcs)) {
      if (place(repo.vcs_position()) != place(post_vcs)) {
        skipped.push_back("VCS working copy has moved since; not returning it");
      } else {
        std::string branch = str_of(pre_vcs, "branch"), commit = str_of(pre_vcs, "commit");
        try {
          if (!branch.empty() && repo.vcs_->bookmarks().count(branch)) repo.vcs_->switch_to(branch);
          else if (!commit.empty()) repo.vcs_->switch_to(commit);
          restored.push_back("VCS working copy back where it was");
        } catch (const std::exception& e) {
          irreversible.push_back(std::string("VCS working copy not returned: ") + e.what());
        }
      }
    }
    std::string bookmark = str_of(r, "bookmark");
    if (!r.value("created_bookmark", false) || bookmark.empty()) return;
    auto bms = repo.vcs_->bookmarks();
    auto it = bms.find(bookmark);
    if (it == bms.end()) return;
    if (it->second != str_of(post_vcs, "commit")) {
      skipped.push_back("bookmark " + bookmark + " has moved since; kept");
      return;
    }
    if (repo.vcs_->current_bookmark() == bookmark) {
      skipped.push_back("bookmark " + bookmark + " is checked out; kept");
      return;
    }
    try {
      repo.vcs_->delete_bookmark(bookmark, it->second);
      restored.push_back("bookmark " + bookmark + " deleted");
    } catch (const std::exception& e) {
      irreversible.push_back("bookmark " + bookmark + " not deleted: " + e.what());
    }
  }

  // ---- promote ----

  void promote() {
    const Json& r = target.result;
    const Json bases = target.pre.value("base_states", Json::object());
    bool moved = false;
    for (const char* table : {"fast_forwarded", "merged"}) {
      const Json moved_keys = r.value(table, Json::object());
      for (const auto& [key, after_state] : moved_keys.items()) {
        moved = true;
        std::string before = bases.contains(key) ? model::short_state(bases[key]) : std::string("?");
        irreversible.push_back(key + ": base branch moved " + before + " -> " + model::short_state(after_state) +
                               "; tether only fast-forwards base branches, reset it in the store yourself");
      }
    }
    if (!moved) skipped.push_back("promote moved nothing");
  }

  // ---- gc ----

  // Released pins and deleted branches cannot come back from here (repair recreates what a
  // manifest still names); deleted listings come back from the VCS; forgotten working refs
  // come back with the workspace.
  void gc() {
    const Json& r = target.result;
    std::size_t pins = 0;
    if (auto u = r.find("unpinned"); u != r.end() && u->is_object())
      for (const auto& [kind, ids] : u->items()) pins += ids.size();
    // Deleted branches come back at the head they had, while the store still holds that state.
    for (const auto& p : target.progress) {
      if (str_of(p, "action") != "delete-branch") continue;
      std::string key = str_of(p, "key"), ref = str_of(p, "ref"), kind = str_of(p, "kind");
      const Json head = p.value("head", Json(nullptr));
      const std::string at = head.is_null() ? std::string("?") : model::short_state(head);
      try {
        if (kind.empty() || head.is_null() || !p.contains("locator"))
          throw TetherError("the op log does not say where it was");
        std::string made = repo.backend(kind).fork(p["locator"], sdk::Source::of_state(head), ref,
                                                   sdk::Expected::absent(), key);
        restored.push_back(key + ": " + made + " recreated at " + at);
      } catch (const std::exception& e) {
        irreversible.push_back(key + ": " + ref + " could not be recreated at " + at + " (" + e.what() +
                               "); `tether repair` recreates a bookmark's branches from its manifests");
      }
    }
    if (pins)
      irreversible.push_back(std::to_string(pins) +
                             " pin(s) deleted; if a manifest references them again, `tether repair` recreates them while "
                             "the state is still reachable");
    for (const auto& name : r.value("deleted_listings", Json::array())) {
      std::string n = name.get<std::string>();
      auto text = repo.vcs_->read_file("HEAD", repo.vcs_path(".tether/listings/" + n));
      if (!text) {
        irreversible.push_back("listing " + n + ": not in the VCS either");
        continue;
      }
      model::atomic_write_file(repo.tether_dir() / "listings" / n, *text);
      restored.push_back("listing " + n + ": restored from the VCS");
    }
    restore_workspace();
    if (restored.empty() && irreversible.empty()) skipped.push_back("gc released nothing");
  }

  // ---- add / remove / set / import ----

  void objects() {
    const Json& r = target.result;
    if (target.command == "add" && r.contains("created")) {
      std::string key = str_of(r, "key");
      irreversible.push_back(key + ": the store it created is left for `gc` to reclaim once nothing references it");
    }
    restore_manifests();
    restore_workspace();
  }

  using Handler = void (Undoer::*)();
  // The commands undo reverses.
  static const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> h{
        {"commit", &Undoer::commit},  {"pull", &Undoer::commit},     {"new", &Undoer::branching},
        {"restore", &Undoer::branching}, {"fork", &Undoer::branching}, {"promote", &Undoer::promote},
        {"add", &Undoer::objects},    {"remove", &Undoer::objects},  {"set", &Undoer::objects},
        {"import", &Undoer::objects}, {"gc", &Undoer::gc},
    };
    return h;
  }
};

UndoResult Repo::undo(const UndoOptions& opt) {
  auto lock = lock_checkout();
  auto repo_lock = lock_repository();
  OpLog oplog(tether_dir() / "ops.jsonl");
  const auto entries = oplog.read();
  std::size_t at = entries.size();
  if (opt.op_id) {
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].id == *opt.op_id) at = i;
    if (at == entries.size()) throw ConfigError("no operation '" + *opt.op_id + "' in this workspace's log");
  } else {
    for (std::size_t i = entries.size(); i-- > 0;)
      if (entries[i].command != "undo" && entries[i].undone_by.is_null()) {
        at = i;
        break;
      }
    if (at == entries.size()) throw TetherError("nothing to undo");
  }
  const OpEntry& target = entries[at];
  if (target.undone_by.is_string())
    throw TetherError(target.id + " was already undone by " + target.undone_by.get<std::string>());
  if (target.incomplete())
    throw TetherError(target.id + " (" + target.command +
                      ") never finished, so what it did is not known; `tether verify` and `tether gc --dry-run` show "
                      "what it left behind");
  if (target.parent.is_string())
    throw TetherError("cannot undo '" + target.command + "': " + target.id + " is a step of " +
                      target.parent.get<std::string>());
  auto handler = Undoer::handlers().find(target.command);
  if (never_undoable().count(target.command) || handler == Undoer::handlers().end())
    throw TetherError("cannot undo '" + target.command + "'");

  Undoer u{*this, target, std::nullopt, opt.discard, {}, {}, {}};
  // The workspace the target left is the one the next entry found (else today's).
  for (std::size_t i = at + 1; i < entries.size() && !u.after; ++i)
    if (std::string t = str_of(entries[i].pre, "workspace"); !t.empty()) u.after = model::parse_workspace(t, "the op log");
  // Refusals come before anything is journaled or touched.
  if (handler->second == &Undoer::branching) u.check_writes(u.branches());

  UndoResult res;
  res.undone = target.id;
  res.command = target.command;
  res.summary = op_summary(target);
  res.undo_id = oplog.begin("undo", Json{{"workspace", model::workspace_to_toml(*workspace_)}, {"target", target.id}},
                            std::nullopt, target.id);
  auto result_json = [&] {
    return Json{{"summary", res.summary}, {"restored", u.restored}, {"irreversible", u.irreversible}, {"skipped", u.skipped}};
  };
  try {
    (u.*(handler->second))();
  } catch (const std::exception& e) {
    Json r = result_json();
    r["failed"] = e.what();
    if (u.restored.empty()) oplog.end(res.undo_id, r);
    else oplog.end_undo(res.undo_id, r, target.id);
    reload();
    throw;
  }
  reload();
  res.restored = u.restored;
  res.irreversible = u.irreversible;
  res.skipped = u.skipped;
  if (res.restored.empty() && !res.irreversible.empty()) {
    Json r = result_json();
    r["failed"] = "nothing restored";
    oplog.end(res.undo_id, r);
    throw TetherError("cannot undo " + target.id + " (" + target.command + "):\n  " + join(res.irreversible, "\n  "));
  }
  oplog.end_undo(res.undo_id, result_json(), target.id);
  return res;
}

}  // namespace tether::engine
