// tether/testing/git.hpp (tests only): running the user's `git` in a test, with an identity
// and without the developer's own configuration.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tether/support/process.hpp"

namespace tether::testing {

// Identity and configuration for every git a test process runs, the test's and the code's
// under test: CI has no user identity, and a developer's global config (signing, hooks) must
// not leak in. Set once, when the first test file including this header is initialised.
struct GitTestEnvironment {
  GitTestEnvironment() {
    ::setenv("GIT_AUTHOR_NAME", "Tether Test", 1);
    ::setenv("GIT_AUTHOR_EMAIL", "test@tether.invalid", 1);
    ::setenv("GIT_COMMITTER_NAME", "Tether Test", 1);
    ::setenv("GIT_COMMITTER_EMAIL", "test@tether.invalid", 1);
    ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
  }
};
inline const GitTestEnvironment git_test_environment;

// `git ARGS` in `dir`; its stdout without the trailing newlines. A failure throws with git's
// message, so a broken test setup is not mistaken for the behaviour under test.
inline std::string git(const std::filesystem::path& dir, const std::vector<std::string>& args,
                       const std::vector<std::pair<std::string, std::string>>& env = {}) {
  std::vector<std::string> argv = {"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  support::ProcessOptions options;
  options.cwd = dir;
  options.set_env = env;
  auto r = support::run_process(argv, options);
  if (!r.ok()) throw std::runtime_error("test git failed: " + support::join_argv(argv) + ": " + r.err);
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace tether::testing
