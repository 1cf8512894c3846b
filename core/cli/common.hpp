// core/cli/common.hpp: what the command files share: opening the dataset from the current
// directory (printing its warnings), the plan flags, small text helpers, and the renderings
// more than one command prints (a plan, table row counts, gc's report).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cli/options.hpp"
#include "tether/engine/plan.hpp"  // std::optional<Plan> needs the whole type
#include "tether/engine/repo.hpp"

namespace tether::engine {
struct GcReport;  // tether/engine/gc.hpp
}
namespace tether::sdk {
struct HistoryEntry;  // tether/sdk/types.hpp
}

namespace tether::cli {

// The dataset at or above the current directory, its warnings printed; `allow_outdated`: one
// of an older format too (only `upgrade`).
std::unique_ptr<engine::Repo> open_repo(bool allow_outdated = false);
std::string rjust(const std::string& s, std::size_t w);
std::string ljust(const std::string& s, std::size_t w);
// `--set k=v` (repeatable) into a locator: string values, split on the first '='; a
// malformed one is refused (`--set expects key=value, got 'x'`).
void apply_sets(nlohmann::json& locator, const std::vector<std::string>& sets);
// A history entry as `tether log` (and `add --pick`) print it: `<id, padded to id_width>
// <YYYY-MM-DD HH:MM>  <message>`, without log's leading indent and refs.
std::string history_line(const sdk::HistoryEntry& e, std::size_t id_width);

// The plan text (docs/cli.md, "Plans"): `plan: <command> (N write(s))`, one aligned line per
// action, notes.
std::string render_plan(const engine::Plan& plan);
// The experimental registry commands' stderr note (not under --json), and their per-table
// row counts (`  <table>  <n> row(s)`, names padded to the longest).
void registry_note(const Global& g);
void print_table_counts(const std::vector<std::pair<std::string, std::size_t>>& counts);
// --from-plan: the saved plan (refusing --dry-run/--plan alongside), else nullopt.
std::optional<engine::Plan> load_saved_plan(const PlanFlags& flags, const std::string& command);
// After planning with --dry-run or --plan: save (--plan), print the plan; true when it did.
bool show_plan(const Global& g, const PlanFlags& flags, engine::Repo& repo, const engine::Plan& plan);
// The engine options' `saved` (--from-plan) and `dry_run` (--dry-run or --plan) from the flags.
template <class EngineOptions>
void set_plan_options(EngineOptions& opt, const PlanFlags& flags, const std::string& command) {
  opt.saved = load_saved_plan(flags, command);
  opt.dry_run = flags.dry_run || flags.plan_file.has_value();
}

// gc's text report (docs/cli.md, `tether gc`): printed by gc, abandon --gc and drop.
void print_gc_report(const engine::GcReport& r);
// What did not happen (a store that cannot be listed, ...): stderr, one `error:` line each.
void print_failed(const std::map<std::string, std::string>& failed);
// Exit status of an applied gc: 3 when part failed and something applied, 1 when nothing did.
int gc_exit(const engine::GcReport& r);

}  // namespace tether::cli
