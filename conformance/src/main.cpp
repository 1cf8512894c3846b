// conformance/src/main.cpp: the tether-conformance command.
//
//   tether-conformance validate PLUGIN.so --harness HARNESS.so [--json FILE] [--in-process]
//                      [--include REGEX] [--exclude REGEX] [--timeout SEC]
//   tether-conformance list [--json]
//   tether-conformance run-one ID PLUGIN.so [--harness HARNESS.so] [--result-file FILE]
//
// validate prints one line per case and closes with `N passed, N failed, N skipped`; it exits
// 0 when nothing failed or crashed, 1 otherwise, 2 on a usage error.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "outcome.hpp"
#include "runner.hpp"

namespace tc = tether::conformance;

namespace {

std::string requirement(const tc::Case& c) {
  std::string s;
  for (const auto& n : tether::sdk::capability_names(c.needs)) s += (s.empty() ? "" : "+") + n;
  if (s.empty()) s = c.needs_harness ? "any" : "library";
  return s;
}

std::shared_ptr<tc::Pattern> compile(const std::string& pattern, const char* flag) {
  if (pattern.empty()) return nullptr;
  try {
    return std::make_shared<tc::Pattern>(pattern);
  } catch (const std::runtime_error& e) {
    throw CLI::ValidationError(flag, e.what());
  }
}

bool write_json(const std::string& file, const nlohmann::json& j) {
  std::ofstream out(file, std::ios::trunc);
  out << j.dump(2) << "\n";
  if (!out) {
    std::cerr << "error: cannot write " << file << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tether-conformance: check a tether backend plugin against the backend contract"};
  app.require_subcommand(1);

  std::string plugin, harness, json_file, include, exclude, case_id, result_file;
  double timeout = 60;
  bool in_process = false, list_json = false;

  auto* validate = app.add_subcommand("validate", "run every case that applies to the plugin's capabilities");
  validate->add_option("plugin", plugin, "the plugin shared object (tether-backend-<kind>.so)")->required()->check(CLI::ExistingFile);
  validate->add_option("--harness", harness, "the plugin's conformance harness (tether/harness.h)")->check(CLI::ExistingFile);
  validate->add_option("--json", json_file, "also write a JSON report to FILE");
  validate->add_flag("--in-process", in_process, "run the cases in this process (for debuggers), not one child each");
  validate->add_option("--include", include, "run only cases whose id matches REGEX (POSIX extended)");
  validate->add_option("--exclude", exclude, "skip cases whose id matches REGEX");
  validate->add_option("--timeout", timeout, "seconds a case may take (default 60)")->check(CLI::PositiveNumber);

  auto* list = app.add_subcommand("list", "list every case: id, what it needs, what it checks");
  list->add_flag("--json", list_json, "as JSON");

  auto* run_one = app.add_subcommand("run-one", "run one case in this process");
  run_one->add_option("id", case_id, "the case id")->required();
  run_one->add_option("plugin", plugin, "the plugin shared object")->required()->check(CLI::ExistingFile);
  run_one->add_option("--harness", harness, "the plugin's conformance harness")->check(CLI::ExistingFile);
  run_one->add_option("--result-file", result_file, "write the outcome as JSON to FILE");

  tc::RunOptions ro;
  try {
    app.parse(argc, argv);
    ro.include = compile(include, "--include");
    ro.exclude = compile(exclude, "--exclude");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  ro.suite.plugin = plugin;
  if (!harness.empty()) ro.suite.harness = harness;
  ro.in_process = in_process;
  ro.timeout_seconds = timeout;

  if (*list) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& c : tc::all_cases()) {
      if (list_json) rows.push_back({{"id", c.id}, {"requires", requirement(c)}, {"description", c.description}});
      else std::cout << c.id << std::string(c.id.size() < 26 ? 26 - c.id.size() : 1, ' ') << requirement(c) << "\n    "
                     << c.description << "\n";
    }
    if (list_json) std::cout << rows.dump(2) << "\n";
    return 0;
  }

  if (*run_one) {
    const tc::Case* found = nullptr;
    for (const auto& c : tc::all_cases())
      if (c.id == case_id) found = &c;
    if (!found) {
      std::cerr << "error: no case '" << case_id << "'; `tether-conformance list` shows them\n";
      return 2;
    }
    tc::Outcome o = tc::run_here(*found, ro.suite);
    std::cout << tc::outcome_line(o) << "\n";
    if (!result_file.empty() && !write_json(result_file, tc::outcome_to_json(o))) return 1;
    return o.verdict == tc::Verdict::Fail || o.verdict == tc::Verdict::Crash ? 1 : 0;
  }

  if (tc::select_cases(ro).empty()) {
    std::cerr << "error: --include/--exclude leave no case to run; `tether-conformance list` shows the ids\n";
    return 2;
  }
  std::cout << "validating " << plugin << (harness.empty() ? " without a harness" : " with " + harness) << "\n";
  auto outcomes = tc::run_suite(ro, std::cout);
  tc::Tally t = tc::tally(outcomes);
  std::cout << t.summary() << std::endl;
  if (!json_file.empty() && !write_json(json_file, tc::report_json(plugin, harness, outcomes))) return 1;
  return t.ok() ? 0 : 1;
}
