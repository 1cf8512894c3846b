// conformance/src/runner.hpp: runs cases, each in a child process with a timeout (or in this
// process with --in-process), in a fresh scratch directory, and reports one Outcome per case.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "outcome.hpp"
#include "suite.hpp"

namespace tether::conformance {

// A POSIX extended regular expression (regcomp), searched for anywhere in a case id.
// std::regex is avoided: GCC 12 warns inside it under the sanitizers, and warnings are errors.
class Pattern {
 public:
  explicit Pattern(const std::string& expression);  // std::runtime_error when malformed
  ~Pattern();
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;
  bool found_in(const std::string& text) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
};

struct RunOptions {
  Options suite;
  bool in_process = false;
  double timeout_seconds = 60;
  std::shared_ptr<Pattern> include, exclude;  // searched for in case ids; null = every case
};

// The cases the filters select, in suite order.
std::vector<const Case*> select_cases(const RunOptions& options);

// One case in this process, in `workdir`: Fixture, requirement check, the case, harness
// cleanup, the protocol-breach check. Never throws.
Outcome run_in(const Case& c, const Options& options, const std::string& workdir);
// run_in with a fresh scratch directory, removed afterwards.
Outcome run_here(const Case& c, const Options& options);

// run_in in a forked child (its own process group) with a timeout; a signal is a Crash
// named after the signal, a timeout a Fail. The child reports its Outcome through a pipe;
// when it never does (crash, timeout), the harness cleanup runs here instead.
Outcome run_child(const Case& c, const Options& options, const std::string& workdir, double timeout_seconds);
// After a crash or timeout the child never reached harness cleanup: run it (in a child).
void cleanup_after_crash(const Options& options, const std::string& workdir);
// run_child with a fresh scratch directory, removed afterwards.
Outcome run_isolated(const Case& c, const Options& options, double timeout_seconds);

// Every selected case; prints outcome_line of each to `out` as it finishes.
std::vector<Outcome> run_suite(const RunOptions& options, std::ostream& out);

}  // namespace tether::conformance
