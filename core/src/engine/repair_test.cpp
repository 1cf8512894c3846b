// Unit tests of `repair` (repair.cpp): a pin deleted in the store is cut again at the recorded
// state, a working branch deleted in the store is forked again, a dry run changes nothing and
// a healthy dataset has nothing to repair. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/errors.hpp"
#include "tether/engine/repair.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/verify.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

namespace {

RepairResult repair(const Dataset& ds, bool dry_run = false) {
  RepairOptions o;
  o.dry_run = dry_run;
  return tether::engine::repair(*ds.open(), o);
}

}  // namespace

TEST_CASE("repair recreates a deleted pin at the recorded state") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string pin = *ds.commit("first").pinned.at("m");
  CHECK(repair(ds, true).plan.actions.empty());

  ds.advance("sys1");  // the store moves on; the pin must come back at the committed state
  ds.untag("sys1", pin);
  VerifyOptions v;
  CHECK_FALSE(tether::engine::verify(*ds.open(), v).ok());

  const auto dry = repair(ds, true);
  REQUIRE(dry.plan.actions.size() == 1);
  CHECK(dry.plan.actions[0].op == PlanOp::Repin);
  CHECK(dry.plan.actions[0].target == pin);
  CHECK(ds.tags("sys1").empty());

  const auto r = repair(ds);
  CHECK(r.repinned.size() == 1);
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{pin, "sys1:s0"}});
  CHECK(tether::engine::verify(*ds.open(), v).ok());
  CHECK(repair(ds, true).plan.actions.empty());
}

TEST_CASE("repair forks a working branch the store lost") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  ds.commit("first");
  NewOptions n;
  n.bookmark = "work";
  n.eager = true;
  const auto started = tether::engine::new_workspace(*ds.open(), n);
  const std::string fork = started.working_refs.at("m");
  ds.delete_branch("sys1", fork);

  const auto r = repair(ds);
  REQUIRE(r.reforked.count("m") == 1);
  CHECK(r.reforked.at("m") == fork);
  CHECK(ds.branches("sys1").at(fork) == "sys1:s0");
}

TEST_CASE("a saved repair plan whose context has a field of the wrong type is refused, naming the field") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string pin = *ds.commit("first").pinned.at("m");
  ds.untag("sys1", pin);
  const Plan saved = plan_from_json(repair(ds, true).plan.to_json(), "repair", required_preconditions("repair"), "repair.json");
  auto apply = [&](const Plan& p) {
    RepairOptions o;
    o.saved = p;
    return tether::engine::repair(*ds.open(), o);
  };

  Plan bad = saved;
  bad.context["all_history"] = "yes";
  CHECK_THROWS_WITH_AS(apply(bad), "the repair plan's \"all_history\" is not true or false; re-run the plan",
                       tether::StalePlanError);
  CHECK(ds.tags("sys1").empty());

  CHECK(apply(saved).repinned.size() == 1);
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{pin, "sys1:s0"}});
}
