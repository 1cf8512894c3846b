// core/src/engine/undo.cpp: `tether undo` (docs/cli.md). Plans first, as every writing command
// does (docs/ARCHITECTURE.md#the-engine): picks the entry to reverse, refuses what cannot be
// undone, and lists what the handler will attempt; applying journals an `undo` entry, then
// runs the handler for the entry's command. A handler says per part what it restored, what it
// skipped and what cannot be reversed (a deleted pin, a moved base branch); it never guesses.
// The handlers live in their commands' modules, named in the command table (commands.cpp);
// a command without one cannot be undone.
#include <algorithm>
#include <functional>
#include <tuple>
#include <set>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
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

// How undo reverses `command` (its row of the command table), or null: undo refuses it.
const UndoHandler* undo_handler(const std::string& command) {
  const CommandSpec* c = find_command(command);
  return c && c->undo.apply ? &c->undo : nullptr;
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
// ---- Undoer: what every handler shares (engine/undoer.hpp) -----------------------------------

Undoer Undoer::of(Context& cx, const std::vector<OpEntry>& entries, std::size_t at, bool discard) {
  Undoer u{cx, entries[at], std::nullopt, discard, {}, {}, {}, nullptr};
  for (std::size_t i = at + 1; i < entries.size() && !u.after; ++i)
    if (std::string t = str_of(entries[i].pre, "workspace"); !t.empty()) u.after = model::parse_workspace(t, "the op log");
  return u;
}

void Undoer::act(PlanOp op, const std::string& key, const std::string& kind, const std::string& what,
                 const std::string& detail, Json params) {
  plan->actions.push_back({op, key, kind, what, detail, std::move(params)});
}

void Undoer::note(const std::string& n) { plan->notes.push_back(n); }

namespace {

// The workspace fields the target changed: those no later operation changed again come
// back, the others are left.
struct WsChanges {
  model::Workspace before;
  std::vector<std::pair<std::string, std::string>> restore;
  std::vector<std::string> left;
};
std::optional<WsChanges> workspace_changes(const Undoer& u) {
  const std::string text = str_of(u.target.pre, "workspace");
  if (text.empty()) return std::nullopt;
  WsChanges c{model::parse_workspace(text, "the op log's workspace of " + u.target.id), {}, {}};
  const model::Workspace& now = *u.cx.workspace;
  WsFields pre = ws_fields(c.before), post = ws_fields(u.after ? *u.after : now), cur = ws_fields(now);
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

}  // namespace
void Undoer::restore_workspace() {
  auto c = workspace_changes(*this);
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
void Undoer::plan_workspace() {
  auto c = workspace_changes(*this);
  if (!c) return;
  std::vector<std::string> fields;
  for (const auto& p : c->restore) fields.push_back(field_label(p));
  if (!fields.empty()) act(PlanOp::RestoreWorkspace, "", "", "workspace.toml", join(fields));
  if (!c->left.empty()) note("workspace.toml: left " + join(c->left) + " (changed again by a later operation)");
}

// Puts back the manifests `pre.objects` recorded (null: the object did not exist).
void Undoer::restore_manifests() {
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
  cx.manifests = model::load_manifests(objects_dir(cx), /*legacy_layout=*/cx.config.version < 4);
}
void Undoer::plan_manifests() {
  auto objects = target.pre.find("objects");
  if (objects == target.pre.end() || !objects->is_object()) return;
  for (const auto& [key, text] : objects->items()) {
    if (text.is_string()) act(PlanOp::RestoreManifest, key, "", "manifest", "as it was before " + target.command);
    else if (cx.manifests.count(key)) act(PlanOp::RestoreManifest, key, "", "manifest", "removed again");
  }
}

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
  if (!undo_handler(target.command)) throw TetherError("cannot undo '" + target.command + "'");
  return at;
}

// What an undo plan decided (its context): the operation it reverses, that operation's
// command and summary as the log told them, and --discard.
struct UndoPayload {
  std::string target, command, summary;
  bool discard = false;

  Json to_json() const { return Json{{"target", target}, {"command", command}, {"summary", summary}, {"discard", discard}}; }
  static UndoPayload from(const Plan& plan) {
    const ContextReader c{plan.context, "undo"};
    UndoPayload p;
    p.target = c.string("target");
    p.command = c.string("command");
    p.summary = c.string("summary");
    p.discard = c.boolean("discard");
    return p;
  }
};

}  // namespace

static Plan plan_undo(Context& cx, const UndoOptions& opt) {
  const auto entries = read_ops(cx);
  const std::size_t at = pick_target(entries, opt.op_id);
  const OpEntry& target = entries[at];
  Plan plan;
  plan.command = "undo";
  plan.created_at = now_iso_seconds(cx);
  plan.context = UndoPayload{target.id, target.command, op_summary(target), opt.discard}.to_json();
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
  undo_handler(target.command)->plan(u);  // refusals (branches with writes) throw here
  return plan;
}

static UndoResult apply_undo(Context& cx, const Plan& plan) {
  auto lock = lock_checkout(cx);
  auto repo_lock = lock_repository(cx);
  OpLog oplog = op_log(cx);
  const UndoPayload ctx = UndoPayload::from(plan);
  const auto entries = read_ops(cx);
  const std::string& id = ctx.target;
  auto found = std::find_if(entries.begin(), entries.end(), [&](const OpEntry& e) { return e.id == id; });
  if (found == entries.end()) throw StalePlanError("operation '" + id + "' is no longer in this workspace's log; re-run the plan");
  const std::size_t at = static_cast<std::size_t>(found - entries.begin());
  const OpEntry& target = entries[at];
  if (target.undone_by.is_string())
    throw StalePlanError(target.id + " was undone by " + target.undone_by.get<std::string>() +
                         " since the undo plan was made; re-run the plan");
  const UndoHandler* handler = undo_handler(target.command);
  if (!handler || target.command != ctx.command)
    throw StalePlanError("the undo plan was made for another operation; re-run the plan");

  Undoer u = Undoer::of(cx, entries, at, ctx.discard);
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
    handler->apply(u);
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
    const UndoPayload ctx = UndoPayload::from(*opt.saved);
    if (opt.op_id && *opt.op_id != ctx.target)
      throw ConfigError("the plan in " + opt.saved_from + " undoes " + ctx.target + ", not " + *opt.op_id);
    if (opt.discard && !ctx.discard)
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
