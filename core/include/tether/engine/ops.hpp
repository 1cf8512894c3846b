// tether/engine/ops.hpp: the results of the commands that read and act on the operation log
// (docs/cli.md; docs/FORMAT.md#the-op-log): `ops` lists it, `undo` reverses one entry,
// `repair` recreates what the manifests promise and the stores lost. Repo returns these.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/engine/plan.hpp"

namespace tether::engine {

// One line of `tether ops`.
struct OpsEntry {
  std::string id, at, command;
  std::string summary;  // the `tether ops` line (ops.cpp)
  bool incomplete = false;
  bool vcs_commit_gone = false;  // a commit/pull whose VCS commit left history (docs/cli.md, `ops`)
  std::optional<std::string> undone_by, parent;
  nlohmann::json entry;  // the entry as the log tells it (id, at, command, plan, result, pre, ...)
};

// A commit tether made that is no longer in VCS history (docs/cli.md, `tether ops`).
struct VcsDrift {
  std::string op, commit;
  std::map<std::string, bool> referenced;  // key -> the working tree's manifest still names its pin
  std::string message() const;
};

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
};

struct RepairOptions {
  bool all_history = false;
  bool dry_run = false;
  std::optional<Plan> saved;
};
struct RepairResult {
  Plan plan;
  bool applied = false;
  std::map<std::string, std::string> repinned;  // target label -> pin ref
  std::map<std::string, std::string> reforked;  // key -> working ref
  std::map<std::string, std::string> finished;  // interrupted promote's op id -> what landed
  std::map<std::string, std::string> failed;    // "<op> <target>" -> why
  std::vector<std::string> notes;
};

}  // namespace tether::engine
