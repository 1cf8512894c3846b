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
  opt.leave_memory_to_exit = true;  // main returns after this command
  Progress reading("reading history", !g.json), progress("verifying", !g.json);
  opt.reading = reading.callback();
  opt.progress = progress.callback();
  auto kept = std::make_shared<engine::VerifyResult>(engine::verify(*repo, opt));
  reading.finish();
  progress.finish();
  // A long history's results and the VCS's caches are hundreds of thousands of small blocks:
  // the exit returns them at once (the plugins still shut down with the repo).
  engine::keep_until_exit(kept);
  repo->leave_vcs_to_exit();
  const engine::VerifyResult& result = *kept;
  bool all_ok = result.ok();
  if (g.json) {
    print_json(result.to_json());
    return all_ok ? 0 : 1;
  }
  if (result.empty() && result.skipped_observed > 0)
    out("  nothing to verify: the history holds " + std::to_string(result.skipped_observed) +
        " Observed record(s), which promise no state to check (only pinned or recoverable states are verified)");
  else if (result.empty()) out("  nothing to verify: no committed states");
  // 500,000 lines for a long history: one buffer, written in large blocks.
  StdoutLines lines;
  std::string line;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const std::string_view status = result.status(i);
    const std::string& message = result.message(i);
    line.assign(2 + (status.size() < 8 ? 8 - status.size() : 0), ' ');
    line.append(status).append("  ");
    result.append_label(line, i);
    if (!message.empty()) line.append("  ").append(message);
    lines.line(line, status == "ok" ? StdoutLines::Paint::Green : StdoutLines::Paint::Red);
  }
  lines.flush();
  return all_ok ? 0 : 1;
}

}  // namespace tether::cli
