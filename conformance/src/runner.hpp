// conformance/src/runner.hpp: runs cases, each in a child process with a timeout (or in this
// process with --in-process), in a fresh scratch directory, and reports one Outcome per case.
#pragma once

#include <iosfwd>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "outcome.hpp"
#include "suite.hpp"

namespace tether::conformance {

struct RunOptions {
  Options suite;
  bool in_process = false;
  double timeout_seconds = 60;
  std::optional<std::regex> include, exclude;  // matched against case ids (regex_search)
};

// The cases the filters select, in suite order.
std::vector<const Case*> select_cases(const RunOptions& options);

// One case in this process: scratch dir, Fixture, requirement check, the case, harness
// cleanup, the protocol-breach check. Never throws.
Outcome run_here(const Case& c, const Options& options);

// One case in a forked child with a timeout; a signal is a Crash named after the signal.
Outcome run_isolated(const Case& c, const Options& options, double timeout_seconds);

// Every selected case; prints outcome_line of each to `out` as it finishes.
std::vector<Outcome> run_suite(const RunOptions& options, std::ostream& out);

}  // namespace tether::conformance
