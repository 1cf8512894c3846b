// tether/engine/undo.hpp: `tether undo` (docs/cli.md): reverse one entry of the operation log.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct UndoOptions {
  std::optional<std::string> op_id;  // default: the newest entry not undone (undos skipped)
  bool discard = false;              // delete created branches even when they gained writes
  bool dry_run = false;              // plan only (--dry-run, --plan)
  std::optional<Plan> saved;         // --from-plan
  std::string saved_from;            // the file `saved` was read from, for messages
};
struct UndoResult {
  Plan plan;             // what was planned (a dry run returns just this)
  bool applied = false;
  std::string undone, command, summary, undo_id;
  std::vector<std::string> restored, irreversible, skipped;
  Json to_json() const;  // `tether undo --json` (docs/cli.md)
};

UndoResult undo(Repo& repo, const UndoOptions& options);

}  // namespace tether::engine
