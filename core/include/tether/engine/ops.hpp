// tether/engine/ops.hpp: `tether ops` (docs/cli.md; docs/FORMAT.md#the-op-log): the operation
// log as a list, and the commits tether made that left VCS history. Undo and repair, the
// commands that act on the log, have undo.hpp and repair.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

// One line of `tether ops`.
struct OpsEntry {
  std::string id, at, command;
  std::string summary;  // the `tether ops` line (ops.cpp)
  bool incomplete = false;
  bool vcs_commit_gone = false;  // a commit/pull whose VCS commit left history (docs/cli.md, `ops`)
  std::optional<std::string> undone_by, parent;
  Json entry;  // the entry as the log tells it (id, at, command, plan, result, pre, ...)
  Json to_json() const;  // one element of `tether ops --json`: the entry + "vcs_commit_gone"
};

struct OpsReport {
  std::vector<OpsEntry> entries;  // newest first
  Json to_json() const;           // `tether ops --json` (docs/cli.md): the entries as an array
};

// A commit tether made that is no longer in VCS history (docs/cli.md, `tether ops`).
struct VcsDrift {
  std::string op, commit;
  std::map<std::string, bool> referenced;  // key -> the working tree's manifest still names its pin
  std::string message() const;
};

// The operation log, newest first; limit 0: all (docs/FORMAT.md#the-op-log).
OpsReport ops(Repo& repo, std::size_t limit);

}  // namespace tether::engine
