// Unit tests of the runner: the verdict of a case that passes, fails, skips, breaks the status
// protocol anywhere, crashes or hangs, with the C example plugin (and its no-fail breakage)
// whose paths meson passes.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "runner.hpp"

using namespace tether::conformance;

namespace {

std::string env_path(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v != nullptr, name << " is not set (run through meson test)");
  return v;
}

Options cexample(const char* plugin_env = "CEXAMPLE_PLUGIN") {
  Options o;
  o.plugin = env_path(plugin_env);
  o.harness = env_path("CEXAMPLE_HARNESS");
  return o;
}

Case adhoc(std::function<void(Fixture&)> fn, uint32_t needs = 0, bool needs_harness = true) {
  return Case{"adhoc", "a case made up by the test", needs, needs_harness, std::move(fn)};
}

}  // namespace

TEST_CASE("pass, fail and skip, and the scratch directory is gone afterwards") {
  std::string seen;
  Outcome o = run_here(adhoc([&](Fixture& fx) {
                         seen = fx.workdir();
                         CHECK(std::filesystem::is_directory(seen));
                         fx.fingerprint(fx.new_object());
                       }),
                       cexample());
  CHECK(o.verdict == Verdict::Pass);
  CHECK_FALSE(std::filesystem::exists(seen));

  o = run_here(adhoc([](Fixture&) { fail("it went wrong"); }), cexample());
  CHECK(o.verdict == Verdict::Fail);
  CHECK(o.reason == "it went wrong");

  o = run_here(adhoc([](Fixture&) {}, TETHER_CAP_PIN), cexample());
  CHECK(o.verdict == Verdict::Skip);
  CHECK(o.reason == "the backend lacks pin");

  Options no_harness = cexample();
  no_harness.harness.reset();
  o = run_here(adhoc([](Fixture&) {}), no_harness);
  CHECK(o.verdict == Verdict::Skip);
}

TEST_CASE("an error the case did not expect fails it, naming the status") {
  Outcome o = run_here(adhoc([](Fixture& fx) { fx.backend().fingerprint({{"path", "/no/such/file"}}); }), cexample());
  CHECK(o.verdict == Verdict::Fail);
  CHECK(o.reason.rfind("unexpected NOT_FOUND: ", 0) == 0);
}

TEST_CASE("a protocol breach anywhere in a case fails it, even when the case swallowed the error") {
  auto swallow = adhoc([](Fixture& fx) {
    try {
      fx.backend().fingerprint(tether::sdk::Json::object());
    } catch (const tether::BackendError&) {
    }
  });
  CHECK(run_here(swallow, cexample()).verdict == Verdict::Pass);  // the example calls fail()
  Outcome o = run_here(swallow, cexample("BROKEN_NO_FAIL"));
  CHECK(o.verdict == Verdict::Fail);
  CHECK(o.reason == "status protocol breach: returned INVALID_ARGUMENT without calling fail()");
}

TEST_CASE("in a child: the outcome comes back, a signal is a crash, a hang a timeout") {
  CHECK(run_isolated(adhoc([](Fixture&) {}), cexample(), 30).verdict == Verdict::Pass);

  Outcome o = run_isolated(adhoc([](Fixture&) { fail("child says no"); }), cexample(), 30);
  CHECK(o.verdict == Verdict::Fail);
  CHECK(o.reason == "child says no");

  o = run_isolated(adhoc([](Fixture&) { std::abort(); }), cexample(), 30);
  CHECK(o.verdict == Verdict::Crash);
  CHECK(o.reason == "SIGABRT");

  o = run_isolated(adhoc([](Fixture&) { std::this_thread::sleep_for(std::chrono::seconds(30)); }), cexample(), 0.3);
  CHECK(o.verdict == Verdict::Fail);
  CHECK(o.reason == "timed out after 0.3 s");
  CHECK(o.seconds < 10);
}

TEST_CASE("--include/--exclude patterns are POSIX extended expressions searched in the id") {
  CHECK(Pattern("fork|pin").found_in("fork-race"));
  CHECK(Pattern("^pin$").found_in("pin"));
  CHECK_FALSE(Pattern("^pin$").found_in("pin-ghost"));
  CHECK_THROWS_AS(Pattern("(unclosed"), std::runtime_error);
}
