// core/cli/undo.cpp: `tether undo`: reverse an operation (docs/cli.md).
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/undo.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

int run_undo(const Global& g, const UndoOptions& o) {
  auto repo = open_repo();
  engine::UndoOptions opt;
  opt.op_id = o.op_id;
  opt.discard = o.discard;
  set_plan_options(opt, o.plan, "undo");
  opt.saved_from = o.plan.from_plan.value_or("");
  auto r = engine::undo(*repo, opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.irreversible.empty() ? kExitOk : kExitPartial;
  if (g.json) {
    print_json(r.to_json());
    return rc;
  }
  out("undid " + r.undone + " (" + r.command + ": " + r.summary + ")");
  for (const auto& l : r.restored) out("  restored   " + l);
  for (const auto& l : r.skipped) out("  skipped    " + l);
  for (const auto& l : r.irreversible) err("  " + yellow_err("IRREVERSIBLE") + " " + l);
  return rc;
}

}  // namespace tether::cli
