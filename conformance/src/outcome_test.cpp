// Unit tests of the outcome lines, the tally and its closing line, and the JSON forms.
#include <doctest/doctest.h>

#include "outcome.hpp"

using namespace tether::conformance;

TEST_CASE("one line per case, in the fixed format") {
  CHECK(outcome_line({"pin", Verdict::Pass, "", 0}) == "PASS  pin");
  CHECK(outcome_line({"pin", Verdict::Fail, "pin id missing", 0}) == "FAIL  pin: pin id missing");
  CHECK(outcome_line({"merge", Verdict::Skip, "the backend lacks merge", 0}) == "SKIP  merge: the backend lacks merge");
  CHECK(outcome_line({"fork", Verdict::Crash, "SIGSEGV", 0}) == "CRASH fork: SIGSEGV");
}

TEST_CASE("the closing line counts crashes as failures") {
  std::vector<Outcome> v{{"a", Verdict::Pass, "", 0}, {"b", Verdict::Pass, "", 0}, {"c", Verdict::Fail, "x", 0},
                         {"d", Verdict::Crash, "SIGABRT", 0}, {"e", Verdict::Skip, "y", 0}};
  Tally t = tally(v);
  CHECK(t.summary() == "2 passed, 2 failed, 1 skipped");
  CHECK_FALSE(t.ok());
  CHECK(tally({{"a", Verdict::Pass, "", 0}, {"b", Verdict::Skip, "s", 0}}).ok());
  CHECK(tally({}).summary() == "0 passed, 0 failed, 0 skipped");
}

TEST_CASE("an outcome survives its JSON form (the child's result)") {
  Outcome o{"fork-race", Verdict::Fail, "3 of 8 racing forks went through", 1.5};
  Outcome back = outcome_from_json(outcome_to_json(o));
  CHECK(back.id == o.id);
  CHECK(back.verdict == o.verdict);
  CHECK(back.reason == o.reason);
  CHECK(back.seconds == doctest::Approx(1.5));
  CHECK_THROWS(outcome_from_json({{"id", "x"}, {"result", "maybe"}}));
}

TEST_CASE("the report carries the tally and every case") {
  auto j = report_json("p.so", "h.so", {{"a", Verdict::Pass, "", 0}, {"b", Verdict::Crash, "SIGSEGV", 0}});
  CHECK(j["passed"] == 1);
  CHECK(j["failed"] == 1);
  CHECK(j["crashed"] == 1);
  CHECK(j["ok"] == false);
  CHECK(j["summary"] == "1 passed, 1 failed, 0 skipped");
  CHECK(j["cases"].size() == 2);
  CHECK(j["cases"][1]["result"] == "crash");
}
