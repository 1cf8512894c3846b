// core/cli/ops.cpp: `tether ops`, `undo` and `repair` (docs/cli.md).
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

using nlohmann::json;

int run_ops(const Global& g, const OpsOptions& o) {
  auto repo = open_repo();
  auto entries = repo->ops(static_cast<std::size_t>(o.limit));
  if (g.json) {
    json list = json::array();
    for (const auto& e : entries) {
      json j = e.entry;
      j["vcs_commit_gone"] = e.vcs_commit_gone;
      list.push_back(std::move(j));
    }
    print_json(list);
    return 0;
  }
  if (entries.empty()) {
    out("no operations recorded");
    return 0;
  }
  for (const auto& e : entries) {
    std::string flags;
    if (e.incomplete) flags = "  (INCOMPLETE: never finished; see `tether repair --dry-run`)";
    else if (e.undone_by) flags = "  (undone by " + *e.undone_by + ")";
    else if (e.vcs_commit_gone) flags = "  (vcs commit gone)";
    if (e.parent) flags += "  (step of " + *e.parent + ")";
    out(e.id + "  " + e.at + "  " + ljust(e.command, 8) + " " + e.summary + flags);
  }
  return 0;
}

int run_undo(const Global& g, const UndoOptions& o) {
  auto repo = open_repo();
  engine::UndoOptions opt;
  opt.op_id = o.op_id;
  opt.discard = o.discard;
  set_plan_options(opt, o.plan, "undo");
  if (opt.saved) {  // the saved plan names its target and whether it discards
    const std::string target = opt.saved->context.value("target", std::string());
    if (o.op_id && *o.op_id != target)
      throw ConfigError("the plan in " + *o.plan.from_plan + " undoes " + target + ", not " + *o.op_id);
    if (o.discard && !opt.saved->context.value("discard", false))
      throw ConfigError("the plan in " + *o.plan.from_plan + " was made without --discard; re-run the plan with it");
  }
  auto r = repo->undo(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.irreversible.empty() ? kExitOk : kExitPartial;
  if (g.json) {
    print_json({{"undone", r.undone},
                {"command", r.command},
                {"undo_id", r.undo_id},
                {"restored", r.restored},
                {"irreversible", r.irreversible},
                {"skipped", r.skipped}});
    return rc;
  }
  out("undid " + r.undone + " (" + r.command + ": " + r.summary + ")");
  for (const auto& l : r.restored) out("  restored   " + l);
  for (const auto& l : r.skipped) out("  skipped    " + l);
  for (const auto& l : r.irreversible) err("  " + yellow_err("IRREVERSIBLE") + " " + l);
  return rc;
}

int run_repair(const Global& g, const RepairOptions& o) {
  auto repo = open_repo();
  engine::RepairOptions opt;
  opt.all_history = o.all_history;
  set_plan_options(opt, o.plan, "repair");
  auto r = repo->repair(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.failed.empty() ? kExitOk : kExitPartial;
  if (g.json) {
    print_json({{"repinned", r.repinned},
                {"reforked", r.reforked},
                {"finished", r.finished},
                {"failed", r.failed},
                {"notes", r.notes}});
    return rc;
  }
  for (const auto& [label, ref] : r.repinned) out("repinned  " + label + " -> " + ref);
  for (const auto& [key, ref] : r.reforked) out("reforked  " + key + " -> " + ref);
  for (const auto& [id, what] : r.finished) out("finished  promote " + id + ": " + what);
  for (const auto& n : r.notes) out("note      " + n);
  for (const auto& [target, why] : r.failed) err(red_err("FAILED") + "    " + target + ": " + why);
  return rc;
}

}  // namespace tether::cli
