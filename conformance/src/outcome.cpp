// conformance/src/outcome.cpp
#include "outcome.hpp"

#include <stdexcept>

namespace tether::conformance {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Skip: return "skip";
    case Verdict::Crash: return "crash";
  }
  return "fail";
}

static Verdict verdict_from_name(const std::string& s) {
  if (s == "pass") return Verdict::Pass;
  if (s == "fail") return Verdict::Fail;
  if (s == "skip") return Verdict::Skip;
  if (s == "crash") return Verdict::Crash;
  throw std::runtime_error("unknown verdict '" + s + "'");
}

std::string outcome_line(const Outcome& o) {
  switch (o.verdict) {
    case Verdict::Pass: return "PASS  " + o.id;
    case Verdict::Fail: return "FAIL  " + o.id + ": " + o.reason;
    case Verdict::Skip: return "SKIP  " + o.id + ": " + o.reason;
    case Verdict::Crash: return "CRASH " + o.id + ": " + o.reason;
  }
  return "FAIL  " + o.id + ": " + o.reason;
}

nlohmann::json outcome_to_json(const Outcome& o) {
  return {{"id", o.id}, {"result", verdict_name(o.verdict)}, {"reason", o.reason}, {"seconds", o.seconds}};
}

Outcome outcome_from_json(const nlohmann::json& j) {
  Outcome o;
  o.id = j.at("id").get<std::string>();
  o.verdict = verdict_from_name(j.at("result").get<std::string>());
  o.reason = j.value("reason", std::string());
  o.seconds = j.value("seconds", 0.0);
  return o;
}

void Tally::add(Verdict v) {
  switch (v) {
    case Verdict::Pass: ++passed; break;
    case Verdict::Fail: ++failed; break;
    case Verdict::Skip: ++skipped; break;
    case Verdict::Crash: ++crashed; break;
  }
}

std::string Tally::summary() const {
  return std::to_string(passed) + " passed, " + std::to_string(failed + crashed) + " failed, " +
         std::to_string(skipped) + " skipped";
}

Tally tally(const std::vector<Outcome>& outcomes) {
  Tally t;
  for (const auto& o : outcomes) t.add(o.verdict);
  return t;
}

nlohmann::json report_json(const std::string& plugin, const std::string& harness, const std::vector<Outcome>& outcomes) {
  Tally t = tally(outcomes);
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& o : outcomes) cases.push_back(outcome_to_json(o));
  return {{"plugin", plugin},
          {"harness", harness},
          {"passed", t.passed},
          {"failed", t.failed + t.crashed},
          {"crashed", t.crashed},
          {"skipped", t.skipped},
          {"ok", t.ok()},
          {"summary", t.summary()},
          {"cases", cases}};
}

}  // namespace tether::conformance
