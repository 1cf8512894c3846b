// Unit tests of `forget-workspace` (reclaim.cpp): forgetting another checkout removes tether's
// state there and its git worktree; forgetting git's main worktree removes only tether's state
// of it; store branches are never touched. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/forget_workspace.hpp"
#include "tether/engine/new.hpp"
#include "tether/errors.hpp"
#include "tether/model/workspace.hpp"

namespace fs = std::filesystem;
using namespace tether::engine;
using tether::engine::testing::Dataset;

namespace {

void commit(const Dataset& ds) {
  ds.commit("first");
}

}  // namespace

TEST_CASE("forget-workspace of a linked worktree removes its state and the worktree") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds);
  const fs::path other = ds.scratch() / "other";
  ds.git({"worktree", "add", "-q", "-b", "other", other.string()});
  NewOptions n;
  n.bookmark = "side";
  n.eager = true;
  auto there = ds.open_at(other);
  tether::engine::new_workspace(*there, n);
  const std::string id8 = there->workspace().short_id();
  const std::string fork = there->workspace().working_refs.at("m");
  there.reset();
  REQUIRE(fs::exists(other / ".tether" / "workspace.toml"));

  ForgetWorkspaceOptions dry;
  dry.workspace = id8;
  dry.dry_run = true;
  const auto plan = tether::engine::forget_workspace(*ds.open(), dry);
  CHECK_FALSE(plan.applied);
  CHECK(fs::exists(other / ".tether" / "workspace.toml"));

  ForgetWorkspaceOptions o;
  o.workspace = id8;
  const auto r = tether::engine::forget_workspace(*ds.open(), o);
  CHECK(r.applied);
  CHECK(r.workspace == id8);
  CHECK(r.failed.empty());
  CHECK(r.vcs);
  CHECK_FALSE(fs::exists(other));
  CHECK(ds.branches("sys1").count(fork) == 1);  // bookmarks own store branches, not workspaces
}

TEST_CASE("forget-workspace of git's main worktree forgets only tether's state of it") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds);
  const std::string before = ds.open()->workspace().workspace_id;
  const auto r = tether::engine::forget_workspace(*ds.open(), {});
  CHECK(r.applied);
  CHECK_FALSE(r.vcs);
  CHECK(fs::exists(ds.root() / "tether.toml"));
  CHECK_FALSE(fs::exists(ds.root() / ".tether" / "workspace.toml"));
  CHECK(ds.open()->workspace().workspace_id != before);
}

TEST_CASE("a saved forget-workspace plan with a mistyped context field is refused before anything goes") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds);
  ForgetWorkspaceOptions dry;
  dry.dry_run = true;
  const Plan plan = tether::engine::forget_workspace(*ds.open(), dry).plan;
  REQUIRE(plan.context.contains("root"));

  auto refused = [&](const char* field, Json value) {
    Plan edited = plan;
    edited.context[field] = std::move(value);
    ForgetWorkspaceOptions o;
    o.saved = std::move(edited);
    try {
      tether::engine::forget_workspace(*ds.open(), o);
    } catch (const tether::StalePlanError& e) {
      return std::string(e.what());
    } catch (const std::exception& e) {
      return std::string("not a StalePlanError: ") + e.what();
    }
    return std::string("no error");
  };
  CHECK(refused("current", "yes") == "the forget-workspace plan's \"current\" is not true or false; re-run the plan");
  CHECK(refused("workspace", Json::array()) == "the forget-workspace plan's \"workspace\" is not a string; re-run the plan");
  CHECK(refused("root", 1) == "the forget-workspace plan's \"root\" is not a string; re-run the plan");
  CHECK(fs::exists(ds.root() / ".tether" / "workspace.toml"));  // nothing was forgotten

  ForgetWorkspaceOptions o;
  o.saved = plan_from_json(plan.to_json(), "forget-workspace", required_preconditions("forget-workspace"), "forget.json");
  CHECK(tether::engine::forget_workspace(*ds.open(), o).applied);
  CHECK_FALSE(fs::exists(ds.root() / ".tether" / "workspace.toml"));
}
