// Unit tests of `promote` (promote.cpp): a bookmark lands whole or not at all, a subset never
// moves the trunk, a base that moved is refused under --strategy ff and merged otherwise, and
// a dry run moves nothing. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/testing/dataset.hpp"
#include "tether/errors.hpp"
#include "tether/testing/errors.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/promote.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;

namespace {

// Objects a (sys1) and b (sys2) committed on the trunk, then bookmark x with writes to both
// forks, committed on x.
struct Bookmarked {
  Dataset ds;
  std::string id, trunk0, bookmark_commit, wa, wb;
  Bookmarked() {
    ds.add_memory("a", "sys1");
    ds.add_memory("b", "sys2");
    commit("baseline");
    id = ds.open()->dataset_id();
    trunk0 = ds.git({"rev-parse", "main"});
    NewOptions n;
    n.bookmark = "x";
    n.eager = true;
    tether::engine::new_workspace(*ds.open(), n);
    wa = ds.advance("sys1", fork(), "a-key");
    wb = ds.advance("sys2", fork(), "b-key");
    bookmark_commit = commit("work on both");
  }
  std::string fork() const { return "tether.ws." + id + ".x"; }
  std::string commit(const std::string& message) const {
    return ds.commit(message).vcs_commit.value_or("");
  }
  std::string main_of(const std::string& system) const { return ds.branches(system).at("main"); }
};

PromoteReport promote(const Dataset& ds, const std::string& strategy = "auto", std::vector<std::string> keys = {},
                      bool dry_run = false) {
  PromoteOptions o;
  o.strategy = strategy;
  o.keys = std::move(keys);
  o.dry_run = dry_run;
  return tether::engine::promote(*ds.open(), o);
}

}  // namespace

TEST_CASE("promote fast-forwards every object and moves the trunk onto the bookmark") {
  Bookmarked b;
  const auto dry = promote(b.ds, "auto", {}, /*dry_run=*/true);
  CHECK_FALSE(dry.applied);
  CHECK(b.main_of("sys1") == "sys1:s0");
  CHECK(b.ds.git({"rev-parse", "main"}) == b.trunk0);

  const auto r = promote(b.ds);
  CHECK(r.fast_forwarded.count("a") == 1);
  CHECK(r.fast_forwarded.count("b") == 1);
  CHECK(r.refused.empty());
  REQUIRE(r.trunk_moved);
  CHECK(b.main_of("sys1") == b.wa);
  CHECK(b.main_of("sys2") == b.wb);
  CHECK(b.ds.git({"rev-parse", "main"}) == b.bookmark_commit);
}

TEST_CASE("a refused object holds every other move: nothing lands, the trunk stays") {
  Bookmarked b;
  const std::string moved = b.ds.advance("sys2", "main");  // b's base moves under the bookmark
  const auto log = b.ds.op_log().size();
  const auto r = promote(b.ds, "ff");
  REQUIRE(r.refused.count("b") == 1);
  CHECK(contains(r.refused.at("b"), "main moved since the fork"));
  REQUIRE(r.held.count("a") == 1);
  CHECK(contains(r.held.at("a"), "held because b refused"));
  CHECK(r.fast_forwarded.empty());
  CHECK(b.main_of("sys1") == "sys1:s0");
  CHECK(b.main_of("sys2") == moved);
  CHECK(b.ds.git({"rev-parse", "main"}) == b.trunk0);
  CHECK(b.ds.op_log().size() >= log);

  // Landing a alone on purpose moves a, never the trunk.
  const auto a = promote(b.ds, "ff", {"a"});
  CHECK(a.fast_forwarded.count("a") == 1);
  CHECK_FALSE(a.trunk_moved);
  CHECK(b.main_of("sys1") == b.wa);
  CHECK(b.ds.git({"rev-parse", "main"}) == b.trunk0);

  // The rest merges natively; once the merge is committed the bookmark lands whole.
  const auto merged = promote(b.ds);
  CHECK(merged.merged.count("b") == 1);
  CHECK_FALSE(merged.trunk_moved);
  b.commit("pin the merge");
  const auto whole = promote(b.ds);
  REQUIRE(whole.trunk_moved);
  CHECK(b.ds.git({"rev-parse", "main"}) == b.ds.git({"rev-parse", "x"}));
}

TEST_CASE("a saved promote plan whose context has a field of the wrong type is refused, naming the field") {
  Bookmarked b;
  const Plan saved = plan_from_json(promote(b.ds, "auto", {}, /*dry_run=*/true).plan.to_json(), "promote",
                                    required_preconditions("promote"), "promote.json");
  auto apply = [&](const Plan& p) {
    PromoteOptions o;
    o.saved = p;
    return tether::engine::promote(*b.ds.open(), o);
  };

  Plan bad = saved;
  bad.context["subset"] = nlohmann::json::array({"a", 1});
  CHECK_THROWS_WITH_AS(apply(bad), "the promote plan's \"subset\" is not a list of strings; re-run the plan",
                       tether::StalePlanError);
  bad = saved;
  bad.context["current"] = nlohmann::json::object();
  CHECK_THROWS_WITH_AS(apply(bad), "the promote plan's \"current\" is not a list of strings; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context["rev"] = false;
  CHECK_THROWS_WITH_AS(apply(bad), "the promote plan's \"rev\" is not a string or null; re-run the plan",
                       tether::StalePlanError);
  CHECK(b.main_of("sys1") == "sys1:s0");
  CHECK(b.ds.git({"rev-parse", "main"}) == b.trunk0);

  const auto r = apply(saved);
  CHECK(r.applied);
  CHECK(r.fast_forwarded.size() == 2);
  CHECK(b.main_of("sys1") == b.wa);
  CHECK(b.ds.git({"rev-parse", "main"}) == b.bookmark_commit);
}
