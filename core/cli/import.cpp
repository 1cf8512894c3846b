// core/cli/import.cpp: `tether import` (experimental; docs/registry.md#import, docs/cli.md).
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/import.hpp"

namespace tether::cli {

int run_import(const Global& g, const ImportOptions& o) {
  registry_note(g);
  auto repo = open_repo();
  engine::ImportOptions opt;
  opt.source = o.source;
  opt.table = o.table;
  opt.query = o.query;
  opt.sync = o.sync;
  opt.cwd = std::filesystem::current_path();
  set_plan_options(opt, o.plan, "import");
  auto r = engine::import_objects(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  // The plan's other notes (ignored columns) matter to whoever applies it without looking.
  for (const auto& n : r.plan.notes)
    if (n.size() < 11 || n.compare(n.size() - 11, 11, ": unchanged") != 0) note(n);
  out("added " + std::to_string(r.added.size()) + ", updated " + std::to_string(r.updated.size()) + ", removed " +
      std::to_string(r.removed.size()) + ", unchanged " + std::to_string(r.unchanged.size()));
  for (const auto& k : r.added) out("  added   " + k);
  for (const auto& k : r.updated) out("  updated " + k);
  for (const auto& k : r.removed) out(yellow("  removed " + k));
  if (!r.added.empty() || !r.updated.empty()) out("run `tether commit` to record their states");
  return 0;
}

}  // namespace tether::cli
