// tether/support/process.hpp: run a program without a shell and capture what it prints.
//
// Used by core's git adapter for the commands that must go through the user's `git` (commit,
// switch), by the git plugin's push, and by tests. argv[0] containing a '/' is run as given,
// otherwise it is looked up on the caller's PATH. Safe to call from several threads at once.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tether::support {

// The program could not be started at all (missing executable, bad cwd, no resources).
// Deliberately not a TetherError: callers turn it into the error type of their layer.
class ProcessError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProcessOptions {
  // Working directory of the child; empty = the caller's.
  std::filesystem::path cwd;
  // Variables removed from the inherited environment. An entry ending in '*' removes every
  // variable whose name starts with what precedes the '*' (e.g. "GIT_CONFIG_KEY_*").
  std::vector<std::string> unset_env;
  // Variables added to (or replaced in) the environment, applied after unset_env.
  std::vector<std::pair<std::string, std::string>> set_env;
  // Written to the child's stdin, which is then closed; nullopt = stdin is /dev/null.
  std::optional<std::string> stdin_data;
};

struct ProcessResult {
  int exit_code = 0;  // the exit status, or 128 + signal number when killed by a signal
  int signal = 0;     // the signal that killed the child, 0 if it exited
  std::string out;    // everything written to stdout
  std::string err;    // everything written to stderr

  bool ok() const { return exit_code == 0; }
};

// Runs argv to completion. Throws ProcessError `executable not found: <argv[0]>` when the
// program does not exist, ProcessError with the system's reason for other spawn failures.
// A non-zero exit is not an error here: inspect the result.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// `argv` joined by spaces, for error messages (no quoting: it is read by people).
std::string join_argv(const std::vector<std::string>& argv);

}  // namespace tether::support
