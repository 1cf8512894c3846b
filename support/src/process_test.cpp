// Tests for run_process: output capture, stdin, environment, cwd, failures.
#include "tether/support/process.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using tether::support::ProcessError;
using tether::support::ProcessOptions;
using tether::support::run_process;

TEST_CASE("run_process captures stdout, stderr and the exit code") {
  auto r = run_process({"sh", "-c", "printf out; printf err >&2; exit 3"});
  CHECK(r.out == "out");
  CHECK(r.err == "err");
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.ok());
}

TEST_CASE("run_process feeds stdin and drains large outputs without deadlock") {
  std::string big(3 * 1024 * 1024, 'x');
  for (std::size_t i = 0; i < big.size(); i += 1000) big[i] = '\n';
  ProcessOptions options;
  options.stdin_data = big;
  // cat writes back while we are still writing: both pipes fill up if not polled together.
  auto r = run_process({"sh", "-c", "cat; cat /dev/null >&2"}, options);
  CHECK(r.ok());
  CHECK(r.out == big);
}

TEST_CASE("run_process without stdin data gives the child /dev/null") {
  auto r = run_process({"cat"});
  CHECK(r.ok());
  CHECK(r.out.empty());
}

TEST_CASE("run_process survives a child that stops reading stdin") {
  ProcessOptions options;
  options.stdin_data = std::string(4 * 1024 * 1024, 'y');
  auto r = run_process({"sh", "-c", "head -c 5; exit 0"}, options);
  CHECK(r.ok());
  CHECK(r.out == "yyyyy");
}

TEST_CASE("run_process sets, removes and keeps environment variables") {
  ::setenv("TETHER_PT_KEEP", "kept", 1);
  ::setenv("TETHER_PT_DROP", "dropped", 1);
  ::setenv("TETHER_PT_PREFIX_A", "a", 1);
  ProcessOptions options;
  options.unset_env = {"TETHER_PT_DROP", "TETHER_PT_PREFIX_*"};
  options.set_env = {{"TETHER_PT_NEW", "new value"}, {"TETHER_PT_KEEP", "replaced"}};
  auto r = run_process(
      {"sh", "-c", "echo \"$TETHER_PT_KEEP|${TETHER_PT_DROP-unset}|${TETHER_PT_PREFIX_A-unset}|$TETHER_PT_NEW\""},
      options);
  CHECK(r.out == "replaced|unset|unset|new value\n");
}

TEST_CASE("run_process runs in the given directory and passes arguments verbatim") {
  ProcessOptions options;
  options.cwd = "/";
  auto r = run_process({"sh", "-c", "pwd; printf '%s\\n' \"$1\"", "sh", "a b; $(rm -rf x) 'q'"}, options);
  CHECK(r.out == "/\na b; $(rm -rf x) 'q'\n");
}

TEST_CASE("run_process reports a missing executable and a missing directory") {
  CHECK_THROWS_WITH_AS(run_process({"tether-no-such-program-xyz"}), "executable not found: tether-no-such-program-xyz",
                       ProcessError);
  CHECK_THROWS_WITH_AS(run_process({"/nonexistent/bin/tool"}), "executable not found: /nonexistent/bin/tool",
                       ProcessError);
  ProcessOptions options;
  options.cwd = "/nonexistent-dir-for-tether-test";
  CHECK_THROWS_AS(run_process({"true"}, options), ProcessError);
}

TEST_CASE("run_process reports death by signal") {
  auto r = run_process({"sh", "-c", "kill -TERM $$"});
  CHECK(r.signal == 15);
  CHECK(r.exit_code == 128 + 15);
}
