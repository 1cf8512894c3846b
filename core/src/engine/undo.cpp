// core/src/engine/undo.cpp: `tether undo` (docs/cli.md). Plans first, as every writing command
// does (docs/ARCHITECTURE.md#the-engine): picks the entry to reverse, refuses what cannot be
// undone, and lists what the handler will attempt; applying journals an `undo` entry, then
// runs the handler for the entry's command. A handler says per part what it restored, what it
// skipped and what cannot be reversed (a deleted pin, a moved base branch); it never guesses.
// The handler table is at the bottom: a command absent from it cannot be undone.
#include <algorithm>
#include <functional>
#include <tuple>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/undo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

static UndoResult apply_undo(Context& cx, const Plan& plan);
static Plan plan_undo(Context& cx, const UndoOptions& opt);

namespace {

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

namespace {

std::string field_label(const std::pair<std::string, std::string>& p) {
  return p.second.empty() ? p.first : p.first + "." + p.second;
}

}  // namespace

// One undo in progress: the Repo, the target and its successors in the log, and the three
// lists the result reports. Planning (`plan` set) runs the same derivations as applying,
// but only lists what applying will attempt.
struct Undoer {
  Context& cx;
  const OpEntry& target;
  std::optional<model::Workspace> after;  // the workspace as the target left it (best known)
  bool discard = false;
  std::vector<std::string> restored, irreversible, skipped;
  Plan* plan = nullptr;

  void act(const std::string& op, const std::string& key, const std::string& kind, const std::string& what,
           const std::string& detail, Json params = Json::object()) {
    plan->actions.push_back({op, key, kind, what, detail, std::move(params)});
  }
  void note(const std::string& n) { plan->notes.push_back(n); }

  // ---- shared parts ----

  // The workspace fields the target changed: those no later operation changed again come
  // back, the others are left.
  struct WsChanges {
    model::Workspace before;
    std::vector<std::pair<std::string, std::string>> restore;
    std::vector<std::string> left;
  };
  std::optional<WsChanges> workspace_changes() const {
    const std::string text = str_of(target.pre, "workspace");
    if (text.empty()) return std::nullopt;
    WsChanges c{model::parse_workspace(text, "the op log's workspace of " + target.id), {}, {}};
    const model::Workspace& now = *cx.workspace;
    WsFields pre = ws_fields(c.before), post = ws_fields(after ? *after : now), cur = ws_fields(now);
    std::set<std::pair<std::string, std::string>> paths;
    for (const auto* f : {&pre, &post})
      for (const auto& [p, v] : *f) paths.insert(p);
    for (const auto& p : paths) {
      auto a = pre.find(p), b = post.find(p), k = cur.find(p);
      const Json* va = a == pre.end() ? nullptr : &a->second;
      const Json* vb = b == post.end() ? nullptr : &b->second;
      const Json* vc = k == cur.end() ? nullptr : &k->second;
      auto eq = [](const Json* x, const Json* y) { return (!x && !y) || (x && y && *x == *y); };
      if (eq(va, vb)) continue;  // the target did not change it
      if (!eq(vb, vc)) c.left.push_back(field_label(p));
      else c.restore.push_back(p);
    }
    return c;
  }

  void restore_workspace() {
    auto c = workspace_changes();
    if (!c) return;
    model::Workspace& now = *cx.workspace;
    const WsFields pre = ws_fields(c->before);
    for (const auto& p : c->restore) {
      auto a = pre.find(p);
      set_ws_field(now, p.first, p.second, a == pre.end() ? nullptr : &a->second);
      if (p.first == "working_refs" || p.first == "pending_forks") {  // the cached state was the branch's
        if (auto s = c->before.last_snapshot.find(p.second); s != c->before.last_snapshot.end())
          now.set_snapshot(p.second, s->second);
        else now.last_snapshot.erase(p.second);
      }
    }
    if (!c->left.empty())
      skipped.push_back("workspace.toml: left " + join(c->left) + " (changed again by a later operation)");
    if (!c->restore.empty()) {
      write_workspace(cx);
      restored.push_back("workspace.toml restored");
    }
  }
  void plan_workspace() {
    auto c = workspace_changes();
    if (!c) return;
    std::vector<std::string> fields;
    for (const auto& p : c->restore) fields.push_back(field_label(p));
    if (!fields.empty()) act("restore-workspace", "", "", "workspace.toml", join(fields));
    if (!c->left.empty()) note("workspace.toml: left " + join(c->left) + " (changed again by a later operation)");
  }

  // Puts back the manifests `pre.objects` recorded (null: the object did not exist).
  void restore_manifests() {
    auto objects = target.pre.find("objects");
    if (objects == target.pre.end() || !objects->is_object()) return;
    for (const auto& [key, text] : objects->items()) {
      if (text.is_null()) {
        if (model::remove_manifest(objects_dir(cx), key)) restored.push_back(key + ": manifest removed again");
      } else if (text.is_string()) {
        // A nested key's directories went with its manifest (remove prunes them).
        model::write_checkout_file(model::manifest_path(objects_dir(cx), key), text.get<std::string>());
        restored.push_back(key + ": manifest restored");
      }
    }
    cx.manifests = model::load_manifests(objects_dir(cx));
  }
  void plan_manifests() {
    auto objects = target.pre.find("objects");
    if (objects == target.pre.end() || !objects->is_object()) return;
    for (const auto& [key, text] : objects->items()) {
      if (text.is_string()) act("restore-manifest", key, "", "manifest", "as it was before " + target.command);
      else if (cx.manifests.count(key)) act("restore-manifest", key, "", "manifest", "removed again");
    }
  }

  // ---- commit / pull ----

  void commit() {
    const Json& r = target.result;
    if (bool_of(r, "rolled_back")) {
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
    if (!cx.vcs->uncommit(c)) {
      irreversible.push_back("commit " + c.substr(0, 12) +
                             " is no longer the working copy's parent; uncommit it with jj/git first");
      return;
    }
    restored.push_back("uncommitted " + c.substr(0, 12) + "; its manifests are working-tree changes again (pins kept)");
  }
  void plan_commit() {
    const Json& r = target.result;
    if (bool_of(r, "rolled_back")) {
      note("the commit was rolled back when it failed; nothing to undo");
      return;
    }
    std::string c = str_of(r, "vcs_commit");
    if (c.empty()) {
      plan_manifests();
      plan_workspace();
      if (plan->actions.empty()) note("no VCS commit and no manifest to restore");
      return;
    }
    act("uncommit", "", "", c.substr(0, 12), "its manifests become working-tree changes again (pins kept)",
        Json{{"commit", c}});
    if (cx.vcs->head() != c)
      note("commit " + c.substr(0, 12) + " is no longer the working copy's parent; uncommit it with jj/git first");
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
        if (ref.empty() && !cx.workspace->working_refs.count(key)) continue;
        if (ref.empty()) ref = cx.workspace->working_refs.at(key);
        out.push_back({key, ref, std::string(list) == "created"});
      }
    return out;
  }

  // The heads the created branches of registered objects read now (nullopt: gone or
  // unreadable), by key.
  std::map<std::string, std::optional<Json>> created_heads(const std::vector<Branch>& bs) {
    std::map<std::string, std::optional<Json>> out;
    for (const auto& b : bs) {
      if (!b.created) continue;
      auto m = cx.manifests.find(b.key);
      if (m == cx.manifests.end()) continue;
      try {
        out[b.key] = cx.backend(m->second.kind).fingerprint(m->second.locator, b.ref, b.key);
      } catch (const std::exception&) {
        out[b.key] = std::nullopt;  // nothing to lose by deleting it
      }
    }
    return out;
  }

  // Created branches holding writes beyond where they started: refused unless --discard.
  // Returns the keys with writes (those --discard deletes anyway).
  std::set<std::string> check_writes(const std::vector<Branch>& bs, const std::map<std::string, std::optional<Json>>& heads) {
    std::set<std::string> dirty;
    std::vector<std::string> lines;
    const model::Workspace& ws = *cx.workspace;
    for (const auto& b : bs) {
      auto h = heads.find(b.key);
      if (!b.created || h == heads.end() || !h->second) continue;
      const auto& m = cx.manifests.at(b.key);
      auto& be = cx.backend(m.kind);
      std::vector<Json> starts;
      for (const auto* table : {&ws.fork_points, &ws.base_states})
        if (auto it = table->find(b.key); it != table->end()) starts.push_back(it->second);
      if (m.state) starts.push_back(*m.state);
      bool clean = std::any_of(starts.begin(), starts.end(), [&](const Json& s) { return !s.is_null() && be.same(*h->second, s); });
      if (clean) continue;
      dirty.insert(b.key);
      lines.push_back(b.key + ": " + b.ref + " has writes since (" + model::short_state(*h->second) + ")");
    }
    if (!lines.empty() && !discard)
      throw TetherError("refusing to undo: branches gained writes; commit them or pass --discard\n  " + join(lines, "\n  "));
    return dirty;
  }

  // check_writes ran when the undo was planned.
  void branching() {
    auto bs = branches();
    const Json heads = target.pre.value("heads", Json::object());
    std::set<std::string> done_refs;
    for (const auto& b : bs) {
      if (!b.created) {
        irreversible.push_back(b.key + ": " + b.ref + " was reset (was " + reset_from(heads, b.key) +
                               "); `tether restore " + b.key + " --from REV` or `tether new --discard` puts it where you want");
        continue;
      }
      auto m = cx.manifests.find(b.key);
      if (m == cx.manifests.end()) {
        skipped.push_back(b.key + ": object no longer registered; " + b.ref + " left");
        continue;
      }
      auto& be = cx.backend(m->second.kind);
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
  static std::string reset_from(const Json& heads, const std::string& key) {
    return heads.contains(key) ? model::short_state(heads[key]) : std::string("?");
  }
  // Refuses branches with writes (unless --discard); binds each deletion to the head reviewed.
  void plan_branching() {
    auto bs = branches();
    auto now = created_heads(bs);
    auto dirty = check_writes(bs, now);
    const Json heads = target.pre.value("heads", Json::object());
    std::set<std::string> done_refs;
    for (const auto& b : bs) {
      if (!b.created) {
        act("keep-branch", b.key, "", b.ref,
            "was reset (was " + reset_from(heads, b.key) + "), cannot be put back; `tether restore " + b.key +
                " --from REV` or `tether new --discard` puts it where you want");
        continue;
      }
      auto m = cx.manifests.find(b.key);
      if (m == cx.manifests.end()) {
        note(b.key + ": object no longer registered; " + b.ref + " left");
        continue;
      }
      std::string once = cx.backend(m->second.kind).branch_scope(m->second.locator, b.key) + "\n" + b.ref;
      if (!done_refs.insert(once).second) continue;
      const std::optional<Json>& head = now.at(b.key);
      const std::string at = head ? model::short_state(*head) : std::string("gone");
      std::string detail = "created by " + target.command + " (now " + at + ")";
      if (dirty.count(b.key)) detail += "; --discard: its writes are lost";
      act("delete-branch", b.key, m->second.kind, b.ref, detail);
      plan->preconditions.push_back({"ref_head", head ? *head : Json(nullptr), b.key, Json{{"ref", b.ref}},
                                     "undo " + b.key + ": " + b.ref + " moved since the plan was made (" + at +
                                         " -> {observed}); re-run the plan"});
    }
    plan_workspace();
    if (target.command == "new") plan_return_vcs();
  }

  // Puts the VCS back where `new` found it, if nothing moved it since.
  void return_vcs() {
    const Json& r = target.result;
    const Json pre_vcs = target.pre.value("vcs", Json(nullptr)), post_vcs = r.value("vcs", Json(nullptr));
    if (!pre_vcs.is_object() || !post_vcs.is_object()) return;
    if (place(pre_vcs) != place(post_vcs)) {
      if (place(vcs_position(cx)) != place(post_vcs)) {
        skipped.push_back("VCS working copy has moved since; not returning it");
      } else {
        std::string branch = str_of(pre_vcs, "branch"), commit = str_of(pre_vcs, "commit");
        try {
          if (!branch.empty() && cx.vcs->bookmarks().count(branch)) cx.vcs->switch_to(branch);
          else if (!commit.empty()) cx.vcs->switch_to(commit);
          restored.push_back("VCS working copy back where it was");
        } catch (const std::exception& e) {
          irreversible.push_back(std::string("VCS working copy not returned: ") + e.what());
        }
      }
    }
    std::string bookmark = str_of(r, "bookmark");
    if (!bool_of(r, "created_bookmark") || bookmark.empty()) return;
    auto bms = cx.vcs->bookmarks();
    auto it = bms.find(bookmark);
    if (it == bms.end()) return;
    if (it->second != str_of(post_vcs, "commit")) {
      skipped.push_back("bookmark " + bookmark + " has moved since; kept");
      return;
    }
    if (cx.vcs->current_bookmark() == bookmark) {
      skipped.push_back("bookmark " + bookmark + " is checked out; kept");
      return;
    }
    try {
      cx.vcs->delete_bookmark(bookmark, it->second);
      restored.push_back("bookmark " + bookmark + " deleted");
    } catch (const std::exception& e) {
      irreversible.push_back("bookmark " + bookmark + " not deleted: " + e.what());
    }
  }
  static std::pair<std::string, std::string> place(const Json& v) {
    return std::make_pair(str_of(v, "commit"), str_of(v, "branch"));
  }
  void plan_return_vcs() {
    const Json& r = target.result;
    const Json pre_vcs = target.pre.value("vcs", Json(nullptr)), post_vcs = r.value("vcs", Json(nullptr));
    if (!pre_vcs.is_object() || !post_vcs.is_object()) return;
    bool returning = false;
    if (place(pre_vcs) != place(post_vcs)) {
      if (place(vcs_position(cx)) != place(post_vcs)) {
        note("VCS working copy has moved since; not returning it");
      } else {
        std::string branch = str_of(pre_vcs, "branch"), commit = str_of(pre_vcs, "commit");
        std::string to = !branch.empty() && cx.vcs->bookmarks().count(branch) ? branch : commit.substr(0, 12);
        if (!to.empty()) {
          act("return-vcs", "", "", to, "the working copy goes back where new found it");
          returning = true;
        }
      }
    }
    std::string bookmark = str_of(r, "bookmark");
    if (!bool_of(r, "created_bookmark") || bookmark.empty()) return;
    auto bms = cx.vcs->bookmarks();
    auto it = bms.find(bookmark);
    if (it == bms.end()) return;
    if (it->second != str_of(post_vcs, "commit")) note("bookmark " + bookmark + " has moved since; kept");
    else if (!returning && cx.vcs->current_bookmark() == bookmark) note("bookmark " + bookmark + " is checked out; kept");
    else act("delete-bookmark", "", "", bookmark, "created by new -b", Json{{"commit", it->second}});
  }

  // ---- promote ----

  // Each base a promote moved goes back where its plan found it, conditional on still being
  // where the promote left it (the backend's rewind, which also settles a move a kill
  // interrupted). An interrupted promote is reversed from its journal the same way: a move
  // that never started is nothing to reverse. The trunk goes back while it is still where
  // the promote put it.
  struct PromoteMove {
    std::string key, kind;
    Json locator, before, target;
    std::optional<Json> after;  // where the journal says it landed
    bool merge = false;
  };
  std::optional<std::vector<PromoteMove>> promote_moves() const {
    auto plan_it = target.pre.find("plan");
    if (plan_it == target.pre.end() || !plan_it->is_object()) return std::nullopt;  // journaled before 0.1 of this rule
    std::set<std::string> started, rewound;
    std::map<std::string, Json> landed;
    for (const auto& p : target.progress) {
      std::string action = str_of(p, "action"), key = str_of(p, "key");
      if (action == "landing") started.insert(key);
      if ((action == "fast-forward" || action == "merge") && p.contains("state")) landed[key] = p["state"];
      if (action == "rewind") rewound.insert(key);
    }
    for (const char* table : {"fast_forwarded", "merged"})
      for (const auto& [key, st] : target.result.value(table, Json::object()).items()) landed[key] = st;
    std::vector<PromoteMove> out;
    for (const auto& a : plan_it->value("actions", Json::array())) {
      if (!a.is_object()) continue;
      std::string op = str_of(a, "op"), key = str_of(a, "key");
      if ((op != "fast-forward" && op != "merge") || rewound.count(key)) continue;
      if (!started.count(key) && !landed.count(key)) continue;
      const Json params = a.value("params", Json::object());
      PromoteMove m{key, str_of(a, "kind"), params.value("locator", Json::object()), params.value("base_state", Json(nullptr)),
                    params.value("target_state", Json(nullptr)), std::nullopt, op == "merge"};
      if (auto it = landed.find(key); it != landed.end()) m.after = it->second;
      out.push_back(std::move(m));
    }
    return out;
  }
  // Where the promote moved the trunk: (bookmark, from, to).
  std::optional<std::tuple<std::string, std::string, std::string>> promote_trunk() const {
    for (const auto& p : target.progress)
      if (str_of(p, "action") == "trunk-landing") return std::make_tuple(str_of(p, "bookmark"), str_of(p, "from"), str_of(p, "to"));
    return std::nullopt;
  }
  void promote() {
    auto moves = promote_moves();
    if (!moves) {
      for (const auto& [key, moved] : promote_lines()) irreversible.push_back(key + ": base branch " + moved);
      if (irreversible.empty()) skipped.push_back("promote moved nothing");
      return;
    }
    for (const auto& m : *moves) {
      try {
        auto& b = cx.backend(m.kind);
        Json now = b.fingerprint(m.locator, std::nullopt, m.key);
        if (b.same(now, m.before)) {
          try {
            b.rewind(m.locator, m.before, sdk::Expected::at(now), m.key);  // settles what a kill left
          } catch (const CapabilityError&) {
          }
          skipped.push_back(m.key + ": base branch already at " + model::short_state(m.before));
          continue;
        }
        bool ours = m.after ? b.same(now, *m.after)
                  : m.merge ? b.ancestor_of(m.locator, m.target, sdk::Source::of_state(now), m.key) == true
                            : b.same(now, m.target);
        if (!ours) {
          irreversible.push_back(m.key + ": base branch is at " + model::short_state(now) +
                                 ", not where promote left it; left as it is");
          continue;
        }
        b.rewind(m.locator, m.before, sdk::Expected::at(now), m.key);
        restored.push_back(m.key + ": base branch moved back " + model::short_state(now) + " -> " + model::short_state(m.before));
      } catch (const CapabilityError&) {
        irreversible.push_back(m.key + ": base branch moved to " + (m.after ? model::short_state(*m.after) : std::string("?")) +
                               "; the " + m.kind + " backend cannot move it back, reset it in the store yourself");
      } catch (const std::exception& e) {
        const auto* be = dynamic_cast<const BackendError*>(&e);
        irreversible.push_back(m.key + ": base branch could not be moved back (" + (be ? be->bare_message() : std::string(e.what())) + ")");
      }
    }
    if (auto t = promote_trunk()) {
      const auto& [name, from, to] = *t;
      auto bms = cx.vcs->bookmarks();
      auto it = bms.find(name);
      if (it == bms.end() || it->second != to) {
        skipped.push_back("bookmark " + name + " has moved since; kept");
      } else {
        cx.vcs->bookmark_set(name, from, to);
        restored.push_back("bookmark " + name + " back at " + from.substr(0, 12));
      }
    }
    restore_workspace();
    if (restored.empty() && irreversible.empty() && skipped.empty()) skipped.push_back("promote moved nothing");
  }
  void plan_promote() {
    auto moves = promote_moves();
    if (!moves) {
      auto lines = promote_lines();
      for (const auto& [key, moved] : lines) act("irreversible", key, "", "base branch", moved);
      if (lines.empty()) note("promote moved nothing");
      return;
    }
    for (const auto& m : *moves)
      act("rewind", m.key, m.kind, "base branch",
          "back to " + model::short_state(m.before) + (m.after ? " from " + model::short_state(*m.after) : std::string()));
    if (auto t = promote_trunk())
      act("move-bookmark", "", "", std::get<0>(*t), "back to " + std::get<1>(*t).substr(0, 12));
    plan_workspace();
    if (plan->actions.empty()) note("promote moved nothing");
  }
  std::vector<std::pair<std::string, std::string>> promote_lines() const {
    std::vector<std::pair<std::string, std::string>> out;
    const Json& r = target.result;
    const Json bases = target.pre.value("base_states", Json::object());
    for (const char* table : {"fast_forwarded", "merged"}) {
      const Json moved_keys = r.value(table, Json::object());
      for (const auto& [key, after_state] : moved_keys.items()) {
        std::string before = bases.contains(key) ? model::short_state(bases[key]) : std::string("?");
        out.emplace_back(key, "moved " + before + " -> " + model::short_state(after_state) +
                                  "; tether only fast-forwards base branches, reset it in the store yourself");
      }
    }
    return out;
  }

  // ---- gc ----

  // Released pins and deleted branches cannot come back from here (repair recreates what a
  // manifest still names); deleted listings come back from the VCS; forgotten working refs
  // come back with the workspace.
  std::size_t gc_pins() const {
    std::size_t pins = 0;
    if (auto u = target.result.find("unpinned"); u != target.result.end() && u->is_object())
      for (const auto& [kind, ids] : u->items()) pins += ids.size();
    return pins;
  }
  static std::string pins_deleted() {
    return "deleted; if a manifest references them again, `tether repair` recreates them while the state is still "
           "reachable";
  }
  // The listings a gc deleted: plain file names (anything else in the log is not one).
  static std::vector<std::string> listing_names(const Json& result) {
    std::vector<std::string> out;
    for (auto& n : strings_of(result, "deleted_listings"))
      if (!n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos)
        out.push_back(std::move(n));
    return out;
  }
  static std::string recreate_hint() { return "`tether repair` recreates a bookmark's branches from its manifests"; }
  void gc() {
    const Json& r = target.result;
    // Deleted branches come back at the head they had, while the store still holds that state.
    for (const auto& p : target.progress) {
      if (str_of(p, "action") != "delete-branch") continue;
      std::string key = str_of(p, "key"), ref = str_of(p, "ref"), kind = str_of(p, "kind");
      const Json head = p.value("head", Json(nullptr));
      const std::string at = head.is_null() ? std::string("?") : model::short_state(head);
      try {
        if (kind.empty() || head.is_null() || !p.contains("locator"))
          throw TetherError("the op log does not say where it was");
        std::string made = cx.backend(kind).fork(p["locator"], sdk::Source::of_state(head), ref,
                                                   sdk::Expected::absent(), key);
        restored.push_back(key + ": " + made + " recreated at " + at);
      } catch (const std::exception& e) {
        irreversible.push_back(key + ": " + ref + " could not be recreated at " + at + " (" + e.what() + "); " +
                               recreate_hint());
      }
    }
    if (std::size_t pins = gc_pins()) irreversible.push_back(std::to_string(pins) + " pin(s) " + pins_deleted());
    for (const auto& n : listing_names(r)) {
      auto text = cx.vcs->read_file("HEAD", vcs_path(cx, ".tether/listings/" + n));
      if (!text) {
        irreversible.push_back("listing " + n + ": not in the VCS either");
        continue;
      }
      model::write_checkout_file(tether_dir(cx) / "listings" / n, *text);
      restored.push_back("listing " + n + ": restored from the VCS");
    }
    restore_workspace();
    if (restored.empty() && irreversible.empty()) skipped.push_back("gc released nothing");
  }
  void plan_gc() {
    const Json& r = target.result;
    for (const auto& p : target.progress) {
      if (str_of(p, "action") != "delete-branch") continue;
      std::string key = str_of(p, "key"), ref = str_of(p, "ref"), kind = str_of(p, "kind");
      const Json head = p.value("head", Json(nullptr));
      if (kind.empty() || head.is_null() || !p.contains("locator"))
        act("irreversible", key, "", ref, "cannot be recreated: the op log does not say where it was; " + recreate_hint());
      else act("recreate-branch", key, kind, ref, "at " + model::short_state(head), Json{{"head", head}});
    }
    if (std::size_t pins = gc_pins()) act("irreversible", "", "", std::to_string(pins) + " pin(s)", pins_deleted());
    for (const auto& n : listing_names(r)) {
      if (cx.vcs->read_file("HEAD", vcs_path(cx, ".tether/listings/" + n))) act("restore-listing", "", "", n, "from the VCS");
      else act("irreversible", "", "", "listing " + n, "not in the VCS either");
    }
    plan_workspace();
    if (plan->actions.empty()) note("gc released nothing");
  }

  // ---- add / remove / set / import ----

  std::optional<std::string> created_store() const {
    if (target.command == "add" && target.result.contains("created")) return str_of(target.result, "key");
    return std::nullopt;
  }
  static std::string store_left() { return "is left for `gc` to reclaim once nothing references it"; }
  void objects() {
    if (auto key = created_store()) irreversible.push_back(*key + ": the store it created " + store_left());
    restore_manifests();
    restore_workspace();
  }
  void plan_objects() {
    if (auto key = created_store()) act("irreversible", *key, "", "the store add created", store_left());
    plan_manifests();
    plan_workspace();
  }

  using Handler = void (Undoer::*)();
  struct Handlers {
    Handler apply, plan;
  };
  // The commands undo reverses.
  static const std::map<std::string, Handlers>& handlers() {
    static const std::map<std::string, Handlers> h{
        {"commit", {&Undoer::commit, &Undoer::plan_commit}},
        {"pull", {&Undoer::commit, &Undoer::plan_commit}},
        {"new", {&Undoer::branching, &Undoer::plan_branching}},
        {"restore", {&Undoer::branching, &Undoer::plan_branching}},
        {"fork", {&Undoer::branching, &Undoer::plan_branching}},
        {"promote", {&Undoer::promote, &Undoer::plan_promote}},
        {"add", {&Undoer::objects, &Undoer::plan_objects}},
        {"remove", {&Undoer::objects, &Undoer::plan_objects}},
        {"set", {&Undoer::objects, &Undoer::plan_objects}},
        {"import", {&Undoer::objects, &Undoer::plan_objects}},
        {"gc", {&Undoer::gc, &Undoer::plan_gc}},
    };
    return h;
  }

  // An Undoer for entries[at]; the workspace the target left is the one the next entry found
  // (else today's).
  static Undoer of(Context& cx, const std::vector<OpEntry>& entries, std::size_t at, bool discard) {
    Undoer u{cx, entries[at], std::nullopt, discard, {}, {}, {}, nullptr};
    for (std::size_t i = at + 1; i < entries.size() && !u.after; ++i)
      if (std::string t = str_of(entries[i].pre, "workspace"); !t.empty()) u.after = model::parse_workspace(t, "the op log");
    return u;
  }
};

namespace {

// The entry `undo [OP_ID]` reverses, refusing one it cannot (docs/cli.md, `tether undo`).
std::size_t pick_target(const std::vector<OpEntry>& entries, const std::optional<std::string>& op_id) {
  std::size_t at = entries.size();
  if (op_id) {
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].id == *op_id) at = i;
    if (at == entries.size()) throw ConfigError("no operation '" + *op_id + "' in this workspace's log");
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
  // An interrupted promote journaled its plan and each move before making it: undo reverses
  // what it did from there.
  bool journaled_promote = target.command == "promote" && target.pre.contains("plan") && target.pre["plan"].is_object();
  if (target.incomplete() && !journaled_promote)
    throw TetherError(target.id + " (" + target.command +
                      ") never finished, so what it did is not known; `tether verify` and `tether gc --dry-run` show "
                      "what it left behind");
  if (target.parent.is_string())
    throw TetherError("cannot undo '" + target.command + "': " + target.id + " is a step of " +
                      target.parent.get<std::string>());
  if (never_undoable().count(target.command) || !Undoer::handlers().count(target.command))
    throw TetherError("cannot undo '" + target.command + "'");
  return at;
}

}  // namespace

static Plan plan_undo(Context& cx, const UndoOptions& opt) {
  const auto entries = read_ops(cx);
  const std::size_t at = pick_target(entries, opt.op_id);
  const OpEntry& target = entries[at];
  Plan plan;
  plan.command = "undo";
  plan.created_at = now_iso_seconds(cx);
  plan.context = Json{{"target", target.id}, {"command", target.command}, {"summary", op_summary(target)},
                      {"discard", opt.discard}};
  auto head = cx.vcs->head();
  plan.preconditions.push_back({"workspace_id", cx.workspace->workspace_id, "", Json::object(),
                                "the undo plan belongs to checkout " + cx.workspace->short_id() + "; this is {observed}"});
  plan.preconditions.push_back({"op_not_undone", target.id, "", Json::object(),
                                target.id + " changed since the undo plan was made ({observed})"});
  plan.preconditions.push_back({"op_log_head", entries.back().id, "", Json::object(),
                                "the op log changed since the undo plan was made (its newest entry is now {observed})"});
  plan.preconditions.push_back({"vcs_head", head ? Json(*head) : Json(nullptr), "", Json::object(),
                                "the checkout moved since the undo plan was made (now at {observed})"});
  Undoer u = Undoer::of(cx, entries, at, opt.discard);
  u.plan = &plan;
  (u.*(Undoer::handlers().at(target.command).plan))();  // refusals (branches with writes) throw here
  return plan;
}

static UndoResult apply_undo(Context& cx, const Plan& plan) {
  auto lock = lock_checkout(cx);
  auto repo_lock = lock_repository(cx);
  OpLog oplog = op_log(cx);
  const auto entries = read_ops(cx);
  const std::string id = plan.context.value("target", std::string());
  auto found = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return e.id == id; });
  if (found == entries.end()) throw StalePlanError("operation '" + id + "' is no longer in this workspace's log; re-run the plan");
  const std::size_t at = static_cast<std::size_t>(found - entries.begin());
  const OpEntry& target = entries[at];
  if (target.undone_by.is_string())
    throw StalePlanError(target.id + " was undone by " + target.undone_by.get<std::string>() +
                         " since the undo plan was made; re-run the plan");
  auto handler = Undoer::handlers().find(target.command);
  if (handler == Undoer::handlers().end() || target.command != plan.context.value("command", std::string()))
    throw StalePlanError("the undo plan was made for another operation; re-run the plan");

  Undoer u = Undoer::of(cx, entries, at, plan.context.value("discard", false));
  UndoResult res;
  res.plan = plan;
  res.undone = target.id;
  res.command = target.command;
  res.summary = op_summary(target);
  res.undo_id = oplog.begin("undo", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}, {"target", target.id}},
                            std::nullopt, target.id);
  auto result_json = [&] {
    return Json{{"summary", res.summary}, {"restored", u.restored}, {"irreversible", u.irreversible}, {"skipped", u.skipped}};
  };
  try {
    (u.*(handler->second.apply))();
  } catch (const std::exception& e) {
    Json r = result_json();
    r["failed"] = e.what();
    if (u.restored.empty()) oplog.end(res.undo_id, r);
    else oplog.end_undo(res.undo_id, r, target.id);
    reload(cx);
    throw;
  }
  reload(cx);
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
  res.applied = true;
  return res;
}

UndoResult undo(Repo& repo, const UndoOptions& opt) {
  Context& cx = Context::of(repo);
  if (opt.saved) {  // the saved plan names its target and whether it discards
    const std::string target = opt.saved->context.value("target", std::string());
    if (opt.op_id && *opt.op_id != target)
      throw ConfigError("the plan in " + opt.saved_from + " undoes " + target + ", not " + *opt.op_id);
    if (opt.discard && !opt.saved->context.value("discard", false))
      throw ConfigError("the plan in " + opt.saved_from + " was made without --discard; re-run the plan with it");
  }
  auto lock = lock_checkout(cx);
  std::unique_ptr<Lock> repo_lock;
  if (!opt.dry_run) repo_lock = lock_repository(cx);
  return run_planned<UndoResult>(
      opt.saved, opt.dry_run, [&](const Plan& p) { check_preconditions(cx, p); }, [&] { return plan_undo(cx, opt); },
      [&](const Plan& p) { return apply_undo(cx, p); });
}

Json UndoResult::to_json() const {
  return Json{{"undone", undone},
              {"command", command},
              {"undo_id", undo_id},
              {"restored", restored},
              {"irreversible", irreversible},
              {"skipped", skipped}};
}

// What `tether ops` says of an undo (ops.cpp's table).
std::string summarize_undo(const OpEntry& e) {
  const Json& r = e.result;
  std::string s = "undid " + (e.undoes.is_string() ? e.undoes.get<std::string>() : std::string("?")) + ": " +
                  str_of(r, "summary");
  if (r.contains("failed")) s += " (failed: " + str_of(r, "failed") + ")";
  return s;
}

}  // namespace tether::engine
