// tether/engine/commit.hpp: `tether commit` (docs/cli.md): fingerprint, pin, write the
// manifests, commit them to the VCS.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"
#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

struct CommitOptions {
  std::string message;  // with `saved`: when not empty, replaces the message the plan recorded
  bool dry_run = false, strict = false, no_vcs = false, no_snapshot = false;
  bool force = false;  // skip check_quiescence (docs/cli.md, `tether commit`)
  std::optional<Plan> saved;  // --from-plan: apply this plan (its preconditions re-checked)
  ProgressFn progress;
};
struct CommitResult {
  Plan plan;
  bool applied = false;
  std::optional<std::string> vcs_commit;
  std::map<std::string, std::optional<std::string>> pinned;  // key -> pin ref (null: recorded)
  std::vector<std::string> unrecoverable;
  std::vector<std::string> unchanged;
  std::vector<std::string> warnings;  // best-effort bookkeeping that failed (the pinned index)
  Json to_json() const;  // `tether commit --json` (docs/cli.md)
};

CommitResult commit(Repo& repo, const CommitOptions& options);

}  // namespace tether::engine
