// Unit tests of the commands that reclaim storage, `gc`, `abandon` and `drop` (gc.cpp,
// reclaim.cpp): only what no commit references is released, a dry run (gc's default) touches
// nothing, a pin two commits share survives until both are gone, drop takes a bookmark's
// commits, branch, pins and working branches with it, and a saved plan whose context was edited
// to a wrong type is refused naming the field. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/abandon.hpp"
#include "tether/engine/drop.hpp"
#include "tether/engine/new.hpp"
#include "tether/errors.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;

namespace {

std::string commit(const Dataset& ds, const std::string& message) {
  const auto r = ds.commit(message);
  return r.pinned.count("m") && r.pinned.at("m") ? *r.pinned.at("m") : "";
}

GcReport gc(const Dataset& ds, bool dry_run) {
  GcOptions o;
  o.dry_run = dry_run;
  return tether::engine::gc(*ds.open(), o);
}

AbandonResult abandon(const Dataset& ds, const std::string& rev, bool with_gc = false) {
  AbandonOptions o;
  o.revs = {rev};
  o.gc = with_gc;
  return tether::engine::abandon(*ds.open(), o);
}

std::vector<std::string> unpin_targets(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& a : plan.actions)
    if (a.op == PlanOp::Unpin) out.push_back(a.target);
  return out;
}

}  // namespace

TEST_CASE("abandon previews the pins it orphans; gc releases exactly those, dry run first") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string pa = commit(ds, "A");
  ds.advance("sys1");
  const std::string pb = commit(ds, "B");
  ds.advance("sys1");
  const std::string pc = commit(ds, "C");
  REQUIRE(ds.tags("sys1").size() == 3);

  const auto a = abandon(ds, "HEAD~1");
  CHECK(a.applied);
  REQUIRE(a.abandoned.size() == 1);
  CHECK(unpin_targets(a.gc_plan) == std::vector<std::string>{pb});
  CHECK(ds.git({"log", "--format=%s", "main"}) == "C\nA\ninitial");
  CHECK(ds.tags("sys1").size() == 3);  // nothing released yet

  const auto dry = gc(ds, true);
  CHECK_FALSE(dry.applied);
  CHECK(unpin_targets(dry.plan) == std::vector<std::string>{pb});
  CHECK(ds.tags("sys1").size() == 3);

  const auto done = gc(ds, false);
  CHECK(done.applied);
  REQUIRE(done.unpinned.count("memory") == 1);
  CHECK(done.unpinned.at("memory") == std::vector<std::string>{pb.substr(std::string("tether.").size())});
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{pa, "sys1:s0"}, {pc, "sys1:s2"}});
  CHECK(gc(ds, true).plan.actions.empty());
}

TEST_CASE("a pin two commits name survives the abandon of one and goes with the other") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "base");
  ds.advance("sys1");
  ds.add_memory("other", "sys2");
  const std::string shared = commit(ds, "S1");
  ds.advance("sys2");
  commit(ds, "S2");  // m unchanged: S2 names the same pin
  ds.advance("sys1");
  commit(ds, "S3");

  const auto s1 = abandon(ds, "HEAD~2", /*with_gc=*/true);
  REQUIRE(s1.gc);
  CHECK(ds.tags("sys1").count(shared) == 1);
  CHECK(s1.gc->unpinned.at("memory").size() == 1);  // S1's pin of `other`, not the shared one

  const auto s2 = abandon(ds, "HEAD~1", true);
  REQUIRE(s2.gc);
  CHECK(ds.tags("sys1").count(shared) == 0);
}

TEST_CASE("drop takes a bookmark's commits, branch, pins and working branches") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string pin1 = commit(ds, "baseline");
  const std::string main_head = ds.git({"rev-parse", "main"});
  const std::string id = ds.open()->dataset_id();
  const std::string fork = "tether.ws." + id + ".try";
  NewOptions n;
  n.bookmark = "try";
  n.eager = true;
  tether::engine::new_workspace(*ds.open(), n);
  ds.advance("sys1", fork);
  const std::string pin2 = commit(ds, "try it");

  DropOptions trunk;
  trunk.bookmark = "main";
  CHECK(contains(tether::testing::error_of([&] { tether::engine::drop(*ds.open(), trunk); }), "is the trunk bookmark"));

  DropOptions o;
  o.bookmark = "try";
  const auto dry = tether::engine::drop(*ds.open(), o);  // a dry run unless told otherwise
  CHECK_FALSE(dry.applied);
  CHECK(ds.git({"branch", "--show-current"}) == "try");
  CHECK(ds.tags("sys1").size() == 2);
  CHECK(ds.branches("sys1").count(fork) == 1);

  o.dry_run = false;
  const auto r = tether::engine::drop(*ds.open(), o);
  CHECK(r.applied);
  CHECK(r.abandoned.size() == 1);
  CHECK(ds.git({"branch", "--show-current"}) == "main");
  CHECK(ds.git({"rev-parse", "HEAD"}) == main_head);
  CHECK(ds.git({"branch", "--list", "try"}).empty());
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{pin1, "sys1:s0"}});
  CHECK(ds.branches("sys1").count(fork) == 0);
}

// ---- saved plans whose context was tampered with ----
// A saved plan is input from outside: a context field of the wrong type or a missing one is
// refused as a stale plan naming the command and the field, before anything is touched. The
// plans are edited as structs, so the digest (checked when a file is read) does not refuse
// them first.

namespace {

// The message of the StalePlanError `fn` throws, else what happened instead (so the CHECK
// comparing it shows that).
template <class Fn>
std::string stale_plan_error(Fn&& fn) {
  try {
    fn();
  } catch (const tether::StalePlanError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a StalePlanError: ") + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a saved abandon plan with a mistyped or missing context field is refused naming it") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "A");
  ds.advance("sys1");
  commit(ds, "B");
  const std::string head = ds.head();
  AbandonOptions dry;
  dry.revs = {"HEAD"};
  dry.dry_run = true;
  const Plan plan = tether::engine::abandon(*ds.open(), dry).plan;

  auto refused = [&](Plan edited) {
    AbandonOptions o;
    o.revs = {"HEAD"};
    o.saved = std::move(edited);
    return stale_plan_error([&] { tether::engine::abandon(*ds.open(), o); });
  };
  Plan commits = plan;
  commits.context["commits"] = 42;
  CHECK(refused(commits) == "the abandon plan's \"commits\" is not a list of strings; re-run the plan");
  Plan gc_flag = plan;
  gc_flag.context["gc"] = "yes";
  CHECK(refused(gc_flag) == "the abandon plan's \"gc\" is not true or false; re-run the plan");
  Plan missing = plan;
  missing.context.erase("commits");
  CHECK(refused(missing) == "the abandon plan's \"commits\" is missing; re-run the plan");
  Plan not_object = plan;
  not_object.context = Json::array();
  CHECK(refused(not_object) == "the abandon plan's context is not an object; re-run the plan");
  CHECK(ds.head() == head);  // nothing was abandoned

  // The plan as saved, through its file form, still applies.
  AbandonOptions o;
  o.revs = {"HEAD"};
  o.saved = plan_from_json(plan.to_json(), "abandon", required_preconditions("abandon"), "abandon.json");
  CHECK(tether::engine::abandon(*ds.open(), o).applied);
  CHECK(ds.git({"log", "--format=%s", "main"}) == "A\ninitial");
}

TEST_CASE("a saved gc plan with a mistyped context field is refused naming it") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "A");
  ds.advance("sys1");
  const std::string pb = commit(ds, "B");
  abandon(ds, "HEAD");
  const Plan plan = gc(ds, true).plan;
  REQUIRE(unpin_targets(plan) == std::vector<std::string>{pb});

  auto refused = [&](Plan edited) {
    GcOptions o;
    o.dry_run = false;
    o.saved = std::move(edited);
    return stale_plan_error([&] { tether::engine::gc(*ds.open(), o); });
  };
  Plan keep = plan;
  keep.context["keep_bookmarks"] = Json::array({"main", 7});
  CHECK(refused(keep) == "the gc plan's \"keep_bookmarks\" is not a list of strings; re-run the plan");
  Plan scope = plan;
  scope.context["scope"] = true;
  CHECK(refused(scope) == "the gc plan's \"scope\" is not a string or null; re-run the plan");
  Plan unreachable = plan;
  unreachable.context["unreachable"] = Json{{"memory|sys1", 3}};
  CHECK(refused(unreachable) == "the gc plan's \"unreachable\" is not an object of strings; re-run the plan");
  Plan commits = plan;
  commits.context["commits"] = -1;
  CHECK(refused(commits) == "the gc plan's \"commits\" is not a count; re-run the plan");
  CHECK(ds.tags("sys1").count(pb) == 1);  // nothing was released

  GcOptions o;
  o.dry_run = false;
  o.saved = plan_from_json(plan.to_json(), "gc", required_preconditions("gc"), "gc.json");
  const auto done = tether::engine::gc(*ds.open(), o);
  CHECK(done.applied);
  CHECK(ds.tags("sys1").count(pb) == 0);
}

TEST_CASE("a saved drop plan with a mistyped context field is refused naming it") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "baseline");
  NewOptions n;
  n.bookmark = "try";
  n.eager = true;
  tether::engine::new_workspace(*ds.open(), n);
  ds.advance("sys1", "tether.ws." + ds.open()->dataset_id() + ".try");
  commit(ds, "try it");
  DropOptions dry;
  dry.bookmark = "try";
  const Plan plan = tether::engine::drop(*ds.open(), dry).plan;
  REQUIRE(plan.context.at("leave") == "main");

  auto refused = [&](Plan edited) {
    DropOptions o;
    o.bookmark = "try";
    o.dry_run = false;
    o.saved = std::move(edited);
    return stale_plan_error([&] { tether::engine::drop(*ds.open(), o); });
  };
  Plan leave = plan;
  leave.context["leave"] = 42;
  CHECK(refused(leave) == "the drop plan's \"leave\" is not a string or null; re-run the plan");
  Plan bookmark = plan;
  bookmark.context.erase("bookmark");
  CHECK(refused(bookmark) == "the drop plan's \"bookmark\" is missing; re-run the plan");
  Plan force = plan;
  force.context["force_prune"] = nullptr;
  CHECK(refused(force) == "the drop plan's \"force_prune\" is not true or false; re-run the plan");
  CHECK(ds.git({"branch", "--show-current"}) == "try");  // nothing was dropped

  DropOptions o;
  o.bookmark = "try";
  o.dry_run = false;
  o.saved = plan_from_json(plan.to_json(), "drop", required_preconditions("drop"), "drop.json");
  CHECK(tether::engine::drop(*ds.open(), o).applied);
  CHECK(ds.git({"branch", "--list", "try"}).empty());
}
