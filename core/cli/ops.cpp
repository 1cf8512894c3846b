// core/cli/ops.cpp: `tether ops`: this checkout's operations, newest first (docs/cli.md).
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/ops.hpp"

namespace tether::cli {

int run_ops(const Global& g, const OpsOptions& o) {
  auto repo = open_repo();
  auto report = engine::ops(*repo, static_cast<std::size_t>(o.limit));
  if (g.json) {
    print_json(report.to_json());
    return 0;
  }
  if (report.entries.empty()) {
    out("no operations recorded");
    return 0;
  }
  for (const auto& e : report.entries) {
    std::string flags;
    if (e.incomplete) flags = "  (INCOMPLETE: never finished; see `tether repair --dry-run`)";
    else if (e.undone_by) flags = "  (undone by " + *e.undone_by + ")";
    else if (e.vcs_commit_gone) flags = "  (vcs commit gone)";
    if (e.parent) flags += "  (step of " + *e.parent + ")";
    out(e.id + "  " + e.at + "  " + ljust(e.command, 8) + " " + e.summary + flags);
  }
  return 0;
}

}  // namespace tether::cli
