// core/cli/upgrade.cpp: `tether upgrade`: bring a dataset of an older format to version 5.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/upgrade.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_upgrade(const Global& g, const UpgradeOptions& o) {
  auto repo = open_repo(/*allow_outdated=*/true);  // the one command that opens an older dataset
  engine::UpgradeOptions opt;
  opt.ignore_immutable = o.ignore_immutable;
  set_plan_options(opt, o.plan, "upgrade");
  const int at = repo->config().version;
  auto r = engine::upgrade(*repo, opt);
  if (r.from_version >= 5 && at >= 5) {
    if (g.json) print_json(r.to_json());
    else out("already at version " + std::to_string(at));
    return 0;
  }
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  const int rc = r.failed.empty() ? 0 : kExitPartial;
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  out(r.failed.empty() ? "upgraded v" + std::to_string(r.from_version) + " -> v" + std::to_string(r.to_version)
                       : "upgrade of v" + std::to_string(r.from_version) + " stopped");
  if (r.dataset_id) out("  id      " + *r.dataset_id + " (new)");
  if (r.trunk) out("  trunk   " + *r.trunk);
  for (const auto& [from, to] : r.renamed_pins) out("  pin     " + from + " -> " + to);
  for (const auto& [from, to] : r.renamed_branches) out("  branch  " + from + " -> " + to);
  if (r.rewritten_commits) out("  rewrote " + std::to_string(r.rewritten_commits) + " commit(s); other clones must re-sync");
  for (const auto& k : r.refingerprinted) out("  rehashed " + k);
  for (const auto& k : r.rewritten_manifests) out("  rewrote  " + k);
  for (const auto& [name, n] : r.rewritten_indexes) out("  index   " + name + ": " + std::to_string(n) + " record(s)");
  if (r.vcs_commit) out("  commit  " + r.vcs_commit->substr(0, 12));
  for (const auto& [what, why] : r.failed) err("  FAILED  " + what + ": " + why);
  return rc;
}

}  // namespace tether::cli
