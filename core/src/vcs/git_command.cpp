// git_command.cpp: argv, environment and error text for `git` subprocesses.
#include "vcs/git_command.hpp"

#include "tether/errors.hpp"

namespace tether::vcs {
namespace {

// `git rev-parse --local-env-vars` (git 2.39) plus the config-injection variables.
const std::vector<std::string>& scrubbed_env() {
  static const std::vector<std::string> vars = {
      "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CONFIG_COUNT",
      "GIT_CONFIG_PARAMETERS", "GIT_DIR", "GIT_GRAFT_FILE", "GIT_IMPLICIT_WORK_TREE",
      "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX",
      "GIT_REPLACE_REF_BASE", "GIT_SHALLOW_FILE", "GIT_WORK_TREE", "GIT_CONFIG_KEY_*",
      "GIT_CONFIG_VALUE_*"};
  return vars;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::optional<std::vector<int>> parse_git_version(const std::string& banner) {
  // The first `N.N[.N]` in the banner (regex `(\d+)\.(\d+)(?:\.(\d+))?`;
  // docs/ARCHITECTURE.md#the-vcs).
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < banner.size(); ++i) {
    if (!digit(banner[i]) || (i > 0 && digit(banner[i - 1]))) continue;
    std::vector<int> parts;
    std::size_t j = i;
    while (parts.size() < 3 && j < banner.size() && digit(banner[j])) {
      int n = 0;
      while (j < banner.size() && digit(banner[j]) && n < 100000) n = n * 10 + (banner[j++] - '0');
      parts.push_back(n);
      if (j + 1 < banner.size() && banner[j] == '.' && digit(banner[j + 1])) ++j;
      else break;
    }
    if (parts.size() >= 2) {
      parts.resize(3, 0);
      return parts;
    }
  }
  return std::nullopt;
}

GitCommand::GitCommand(std::string executable, std::filesystem::path work_tree)
    : exe_(executable.empty() ? "git" : std::move(executable)), work_tree_(std::move(work_tree)) {}

support::ProcessResult GitCommand::spawn(const std::vector<std::string>& args, std::optional<std::string> stdin_data) const {
  std::vector<std::string> argv = {exe_,
                                   "-c", "color.ui=never",
                                   "-c", "log.showSignature=false",
                                   "-c", "core.quotePath=false",
                                   "-c", "status.showUntrackedFiles=all"};
  argv.insert(argv.end(), args.begin(), args.end());
  support::ProcessOptions options;
  options.cwd = work_tree_;
  options.unset_env = scrubbed_env();
  options.set_env = {{"GIT_TERMINAL_PROMPT", "0"}};
  options.stdin_data = std::move(stdin_data);
  support::ProcessResult result;
  try {
    result = support::run_process(argv, options);
  } catch (const support::ProcessError& e) {
    throw VcsError(e.what());
  }
  return result;
}

void GitCommand::check_version() const {
  std::call_once(version_checked_, [this] {
    support::ProcessResult r = spawn({"--version"}, std::nullopt);
    auto version = parse_git_version(r.out);
    if (!version) return;  // an unparsable banner passes (docs/ARCHITECTURE.md#the-vcs)
    if (*version < std::vector<int>{2, 38, 0}) {
      std::string v = std::to_string((*version)[0]) + "." + std::to_string((*version)[1]) + "." +
                      std::to_string((*version)[2]);
      throw VcsError("git " + v + " is too old: tether needs git 2.38.0 or newer (" + exe_ + ")");
    }
  });
}

support::ProcessResult GitCommand::run(const std::vector<std::string>& args, bool check,
                              std::optional<std::string> stdin_data) const {
  check_version();
  support::ProcessResult result = spawn(args, std::move(stdin_data));
  if (check && !result.ok()) {
    std::vector<std::string> shown = {exe_};
    shown.insert(shown.end(), args.begin(), args.end());
    std::string detail = trim(result.err.empty() ? result.out : result.err);
    throw VcsError("command failed (" + support::join_argv(shown) + "): " + detail);
  }
  return result;
}

}  // namespace tether::vcs
