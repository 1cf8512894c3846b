// core/cli/verify.cpp: `tether verify`: do committed pins and states still resolve.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/verify.hpp"

namespace tether::cli {

int run_verify(const Global& g, const VerifyOptions& o) {
  auto repo = open_repo();
  engine::VerifyOptions opt;
  opt.rev = o.rev;
  opt.all_history = o.all_history;
  opt.deep = o.deep;
  Progress progress("verifying", !g.json);
  opt.progress = progress.callback();
  auto result = engine::verify(*repo, opt);
  progress.finish();
  const auto& entries = result.entries;
  bool all_ok = result.ok();
  if (g.json) {
    print_json(result.to_json());
    return all_ok ? 0 : 1;
  }
  if (entries.empty() && result.skipped_observed > 0)
    out("  nothing to verify: the history holds " + std::to_string(result.skipped_observed) +
        " Observed record(s), which promise no state to check (only pinned or recoverable states are verified)");
  else if (entries.empty()) out("  nothing to verify: no committed states");
  for (const auto& e : entries) {
    std::string line = "  " + rjust(e.status, 8) + "  " + e.label + (e.message.empty() ? "" : "  " + e.message);
    out(e.status == "ok" ? green(line) : red(line));
  }
  return all_ok ? 0 : 1;
}

}  // namespace tether::cli
