// tether/engine/forget_workspace.hpp: `tether forget-workspace` (docs/cli.md): delete a
// checkout's tether state (its files and its VCS worktree record).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct ForgetWorkspaceOptions {
  std::optional<std::string> workspace;  // full id or its first 8; default this checkout
  bool dry_run = false;
  std::optional<Plan> saved;
};
struct ForgetWorkspaceResult {
  Plan plan;
  bool applied = false;
  std::string workspace;  // id8
  std::vector<std::string> removed_files;
  std::optional<std::string> vcs;
  std::map<std::string, std::string> failed;
  Json to_json() const;  // `tether forget-workspace --json` (docs/cli.md)
};

ForgetWorkspaceResult forget_workspace(Repo& repo, const ForgetWorkspaceOptions& options);

}  // namespace tether::engine
