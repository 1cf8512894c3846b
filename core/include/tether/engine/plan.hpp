// tether/engine/plan.hpp: the plan every store-writing command builds before it writes
// (docs/FORMAT.md#saved-plans, docs/ARCHITECTURE.md#the-engine). A plan is a list of actions
// (what each object gets), notes (what was decided without a write) and preconditions (what
// the plan reviewed: manifest hash, branch heads, the workspace). `--dry-run` prints it,
// `--plan FILE` saves it (format 3 JSON with a digest binding everything), `--from-plan FILE`
// loads it and the command applies it only after every precondition still holds against the
// live systems.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

using Json = nlohmann::json;

inline constexpr int kPlanFormat = 3;

// What an action does to its object. Saved plans spell it by name (op_name); the names are
// the format and never change. In the order of the table in plan.cpp.
enum class PlanOp : int {
  // commit
  Pin,
  Record,
  VcsCommit,
  // new, restore
  Fork,
  DeferFork,
  Reuse,
  Share,
  Trunk,
  // promote
  FastForward,
  Merge,
  Hold,
  // any planner: what it will not do, and why
  Refuse,
  // gc, abandon, drop
  Unpin,
  KeepPin,
  DeleteBranch,
  KeepBranch,
  ForgetWorkingRef,
  DeleteListing,
  DeleteStore,
  KeepStore,
  ForgetStore,
  ForgetTouched,
  AbandonCommit,
  MoveBookmark,
  DeleteBookmark,
  LeaveBookmark,
  // repair
  Repin,
  Refork,
  FinishPromote,
  // import, publish
  Add,
  Update,
  Remove,
  Upsert,
  // forget-workspace
  DeleteFile,
  ForgetVcsWorkspace,
  // upgrade
  RenamePin,
  RenameBranch,
  RewriteHistory,
  RewriteManifest,
  RewriteLocator,
  RenameManifest,
  Refingerprint,
  RewriteState,
  RewriteIndex,
  // undo
  Uncommit,
  Rewind,
  RecreateBranch,
  RestoreListing,
  RestoreManifest,
  RestoreWorkspace,
  ReturnVcs,
  Irreversible,  // a line naming what cannot be reversed
};
inline constexpr std::size_t kPlanOpCount = static_cast<std::size_t>(PlanOp::Irreversible) + 1;

// "pin", "vcs-commit", "fast-forward", ...: the name a saved plan and `--dry-run` use.
std::string_view op_name(PlanOp op);
// The op named `name`; nothing for a name this build does not know.
std::optional<PlanOp> parse_plan_op(std::string_view name);

struct PlanAction {
  PlanOp op;
  std::string key, kind, target, detail;
  Json params = Json::object();
};

struct Precondition {
  std::string kind;  // manifest_hash | workspace_id | workspace_bookmark | bookmark_head | ref_head | ...
  Json expected;
  std::string key;  // the object it is about, "" for dataset-wide ones
  Json params = Json::object();
  std::string detail;  // the StalePlanError message; `{observed}` is replaced by what was found
};

struct Plan {
  std::string command;
  std::string created_at;  // UTC ISO seconds
  Json context = Json::object();
  std::vector<std::string> notes;
  std::vector<Precondition> preconditions;
  std::vector<PlanAction> actions;

  // Actions that write (not trunk, keep-*, defer-fork, refuse, reuse, hold, share, irreversible).
  std::size_t writes() const;
  static bool is_write(PlanOp op);
  // sha256 over the sorted, ASCII-escaped JSON of everything but the digest
  // (docs/FORMAT.md#the-digest).
  std::string digest() const;
  Json to_json() const;  // with "format" and "digest"
  bool has_precondition(const std::string& kind) const;
};

// Parses a saved plan: format 3 only, a digest that matches, the command expected, and the
// preconditions `required` (a plan lacking one is stale). `source` names the file.
Plan plan_from_json(const Json& j, const std::string& expected_command, const std::vector<std::string>& required,
                    const std::string& source);
Plan read_plan_file(const std::filesystem::path& path, const std::string& expected_command,
                    const std::vector<std::string>& required);
void write_plan_file(const std::filesystem::path& path, const Plan& plan);

// The preconditions each command's saved plan must carry (docs/FORMAT.md#preconditions).
const std::vector<std::string>& required_preconditions(const std::string& command);

}  // namespace tether::engine
