// core/src/engine/undoer.hpp: one undo in progress, as the command modules' undo handlers see
// it. undo.cpp picks the entry, plans and journals; the handler of the entry's command (named
// in the command table, commands.cpp) says per part what it restored, what it skipped and
// what cannot be reversed. Planning (`plan` set) runs the same derivations as applying, but
// only lists what applying will attempt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/internal.hpp"
#include "tether/model/workspace.hpp"

namespace tether::engine {

struct OpEntry;
struct Plan;

struct Undoer {
  Context& cx;
  const OpEntry& target;                  // the entry being undone
  std::optional<model::Workspace> after;  // the workspace as the target left it (best known)
  bool discard = false;                   // --discard: branches with writes are deleted anyway
  std::vector<std::string> restored, irreversible, skipped;  // what the result reports
  Plan* plan = nullptr;                   // set while planning

  // An Undoer for entries[at]; the workspace the target left is the one the next entry found
  // (else today's).
  static Undoer of(Context& cx, const std::vector<OpEntry>& entries, std::size_t at, bool discard);

  // Planning: one action of the plan, or a note.
  void act(PlanOp op, const std::string& key, const std::string& kind, const std::string& what,
           const std::string& detail, nlohmann::json params = nlohmann::json::object());
  void note(const std::string& n);

  // The parts several handlers share (undo.cpp). The workspace fields the target changed:
  // those no later operation changed again come back, the others are left.
  void restore_workspace();
  void plan_workspace();
  // Puts back the manifests the entry's `pre.objects` recorded (null: the object did not exist).
  void restore_manifests();
  void plan_manifests();
};

// The handlers, each in its command's module.
void undo_commit(Undoer& u);  // commit.cpp: commit and pull
void plan_undo_commit(Undoer& u);
void undo_branching(Undoer& u);  // branching.cpp: new, restore and fork
void plan_undo_branching(Undoer& u);
void undo_promote(Undoer& u);  // promote.cpp
void plan_undo_promote(Undoer& u);
void undo_gc(Undoer& u);  // gc.cpp
void plan_undo_gc(Undoer& u);
void undo_objects(Undoer& u);  // objects.cpp: add, remove, set and import
void plan_undo_objects(Undoer& u);
void undo_upgrade(Undoer& u);  // upgrade.cpp
void plan_undo_upgrade(Undoer& u);

}  // namespace tether::engine
