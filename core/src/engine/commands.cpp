// core/src/engine/commands.cpp: the command table. Every command the op log records or a saved
// plan names has one row: what `tether ops` says of its entries, how `tether undo` reverses
// it, and the precondition kinds a saved plan of it must carry. The code of each lives in its
// command's module; adding a command adds a row here.
#include <map>
#include <string_view>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"

namespace tether::engine {

namespace {

const UndoHandler kUndoCommit{&undo_commit, &plan_undo_commit};
const UndoHandler kUndoBranching{&undo_branching, &plan_undo_branching};
const UndoHandler kUndoObjects{&undo_objects, &plan_undo_objects};
const UndoHandler kUndoPromote{&undo_promote, &plan_undo_promote};
const UndoHandler kUndoGc{&undo_gc, &plan_undo_gc};
const UndoHandler kUndoUpgrade{&undo_upgrade, &plan_undo_upgrade};
// abandon, drop and forget-workspace are undone by other commands (their refusal says
// which); undo and repair are not undone.
const UndoHandler kNotUndone{};

const std::map<std::string_view, CommandSpec, std::less<>>& table() {
  static const std::map<std::string_view, CommandSpec, std::less<>> commands = {
      // registering
      {"add", {&summarize_add, kUndoObjects, {}}},
      {"remove", {&summarize_remove, kUndoObjects, {}}},
      {"set", {&summarize_set, kUndoObjects, {}}},
      {"import", {&summarize_import, kUndoObjects, {"manifest_hash"}}},
      // recording states
      {"commit", {&summarize_commit, kUndoCommit, {"workspace_id", "workspace_bookmark", "manifest_hash"}}},
      {"pull", {&summarize_pull, kUndoCommit, {}}},
      // working branches
      {"new", {&summarize_new, kUndoBranching, {"workspace_id", "manifest_hash"}}},
      {"restore", {&summarize_restore, kUndoBranching, {"workspace_id", "workspace_bookmark", "manifest_hash"}}},
      {"fork", {&summarize_fork, kUndoBranching, {}}},  // open's lazy fork
      {"promote",
       {&summarize_promote, kUndoPromote, {"workspace_id", "workspace_bookmark", "bookmark_head", "manifest_hash"}}},
      // reclaiming
      {"gc", {&summarize_gc, kUndoGc, {"workspace_id", "history_digest", "manifest_hash"}}},
      {"abandon", {&summarize_abandon, kNotUndone, {"workspace_id", "history_digest", "vcs_head"}}},
      {"drop", {&summarize_drop, kNotUndone, {"workspace_id", "history_digest", "bookmark_head", "no_new_holders"}}},
      {"forget-workspace", {&summarize_forget_workspace, kNotUndone, {}}},
      // the op log's own
      {"undo", {&summarize_undo, kNotUndone, {"workspace_id", "vcs_head", "op_not_undone", "op_log_head"}}},
      {"repair", {&summarize_repair, kNotUndone, {"workspace_id", "history_digest"}}},
      {"upgrade", {&summarize_upgrade, kUndoUpgrade, {"config_version", "manifest_hash"}}},
  };
  return commands;
}

}  // namespace

const CommandSpec* find_command(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

const std::vector<std::string>& required_preconditions(const std::string& command) {
  static const std::vector<std::string> none;
  const CommandSpec* c = find_command(command);
  return c ? c->preconditions : none;
}

std::string op_summary(const OpEntry& e) {
  const CommandSpec* c = find_command(e.command);
  return c ? c->summarize(e) : "";
}

}  // namespace tether::engine
