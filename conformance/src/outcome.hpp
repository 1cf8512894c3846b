// conformance/src/outcome.hpp: what running one case gave, the printed line per case, the
// tally with its closing line and the JSON report. No plugin code here, so it is unit-tested.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::conformance {

enum class Verdict { Pass, Fail, Skip, Crash };
const char* verdict_name(Verdict v);  // "pass" | "fail" | "skip" | "crash"

struct Outcome {
  std::string id;
  Verdict verdict = Verdict::Pass;
  std::string reason;  // why it failed / was skipped / which signal
  double seconds = 0;
};

// "PASS  id", "FAIL  id: reason", "SKIP  id: reason", "CRASH id: SIGSEGV".
std::string outcome_line(const Outcome& o);

// The JSON form of one outcome (the result file of a child, a report row) and back.
nlohmann::json outcome_to_json(const Outcome& o);
Outcome outcome_from_json(const nlohmann::json& j);

struct Tally {
  int passed = 0, failed = 0, skipped = 0, crashed = 0;
  void add(Verdict v);
  // Crashes count as failures in the closing line: "N passed, N failed, N skipped".
  std::string summary() const;
  bool ok() const { return failed == 0 && crashed == 0; }
};
Tally tally(const std::vector<Outcome>& outcomes);

// The --json report: the plugin, harness, tally and every outcome.
nlohmann::json report_json(const std::string& plugin, const std::string& harness, const std::vector<Outcome>& outcomes);

}  // namespace tether::conformance
