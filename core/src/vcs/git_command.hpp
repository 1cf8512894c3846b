// vcs/git_command.hpp: runs the user's `git` executable for the writes tether makes.
//
// Every call gets the isolation of docs/ARCHITECTURE.md#the-vcs (no colour, no signature
// display, unquoted paths, all untracked files shown) and an environment without the
// repository-selecting variables git lists in `rev-parse --local-env-vars`, so an outer
// GIT_DIR or GIT_INDEX_FILE (a hook running tether, say) cannot point git at another
// repository. Hooks stay on: the commit is the user's.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tether/support/process.hpp"

namespace tether::vcs {

class GitCommand {
 public:
  // `executable` "" = `git` on PATH. Commands run in `work_tree`.
  GitCommand(std::string executable, std::filesystem::path work_tree);

  // Runs `git <isolation> <args>`. With `check`, a non-zero exit is VcsError
  // `command failed (<argv>): <stderr or stdout>`; a missing executable is always VcsError
  // `executable not found: <exe>`. The first call checks the version (git >= 2.38.0).
  support::ProcessResult run(const std::vector<std::string>& args, bool check = true,
                    std::optional<std::string> stdin_data = std::nullopt) const;

  const std::string& executable() const { return exe_; }

 private:
  support::ProcessResult spawn(const std::vector<std::string>& args, std::optional<std::string> stdin_data) const;
  void check_version() const;

  std::string exe_;
  std::filesystem::path work_tree_;
  mutable std::once_flag version_checked_;
};

// Parses the version out of `git --version` output; nullopt when unparsable.
std::optional<std::vector<int>> parse_git_version(const std::string& banner);

}  // namespace tether::vcs
