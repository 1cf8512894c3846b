// Unit tests of plan ops (plan.cpp): every op keeps its name through op_name/parse_plan_op and
// through a saved plan's JSON, and a saved plan naming an op this build does not know is
// refused as stale, in one line, even when its digest was made to match.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/engine/plan.hpp"
#include "tether/errors.hpp"
#include "tether/vcs/vcs.hpp"

using namespace tether::engine;

namespace {

// A commit plan carrying the preconditions a saved commit plan needs, one action per op.
Plan plan_of(const std::vector<PlanOp>& ops) {
  Plan p;
  p.command = "commit";
  p.created_at = "2026-01-01T00:00:00Z";
  for (const auto& kind : required_preconditions("commit")) p.preconditions.push_back({kind, "x", "", Json::object(), ""});
  for (PlanOp op : ops) p.actions.push_back({op, "m", "memory", "target", "detail", Json::object()});
  return p;
}

// What someone editing the file by hand would do: change it, then make the digest match.
Json with_digest_recomputed(Json j) {
  j.erase("digest");
  j["digest"] = tether::vcs::sha256_hex(j.dump(-1, ' ', true));
  return j;
}

std::vector<PlanOp> every_op() {
  std::vector<PlanOp> ops;
  for (std::size_t i = 0; i < kPlanOpCount; ++i) ops.push_back(static_cast<PlanOp>(i));
  return ops;
}

}  // namespace

TEST_CASE("every plan op round-trips through its name, and the names are distinct") {
  std::set<std::string> names;
  for (PlanOp op : every_op()) {
    const std::string name(op_name(op));
    CAPTURE(name);
    CHECK_FALSE(name.empty());
    CHECK(names.insert(name).second);
    CHECK(parse_plan_op(name) == op);
  }
  CHECK(names.size() == kPlanOpCount);
  CHECK(op_name(PlanOp::VcsCommit) == "vcs-commit");
  CHECK(op_name(PlanOp::FastForward) == "fast-forward");
  CHECK_FALSE(parse_plan_op("frobnicate").has_value());
  CHECK_FALSE(parse_plan_op("").has_value());
  CHECK_FALSE(parse_plan_op("Fork").has_value());
}

TEST_CASE("a saved plan spells each op by name and loads back to the same ops and digest") {
  const Plan p = plan_of(every_op());
  const Json j = p.to_json();
  REQUIRE(j["actions"].size() == kPlanOpCount);
  CHECK(j["actions"][0]["op"] == "pin");
  CHECK(j["actions"][static_cast<std::size_t>(PlanOp::ForgetWorkingRef)]["op"] == "forget-working-ref");
  const Plan loaded = plan_from_json(j, "commit", required_preconditions("commit"), "commit.json");
  REQUIRE(loaded.actions.size() == kPlanOpCount);
  for (std::size_t i = 0; i < kPlanOpCount; ++i) CHECK(loaded.actions[i].op == p.actions[i].op);
  CHECK(loaded.to_json() == j);
}

TEST_CASE("which ops write") {
  CHECK(Plan::is_write(PlanOp::Pin));
  CHECK(Plan::is_write(PlanOp::Fork));
  CHECK(Plan::is_write(PlanOp::DeleteBranch));
  CHECK_FALSE(Plan::is_write(PlanOp::DeferFork));
  CHECK_FALSE(Plan::is_write(PlanOp::Refuse));
  CHECK_FALSE(Plan::is_write(PlanOp::Irreversible));
  CHECK(plan_of({PlanOp::Trunk, PlanOp::Share, PlanOp::Fork, PlanOp::Hold}).writes() == 1);
}

TEST_CASE("a saved plan naming an unknown op is refused as stale, naming the op") {
  Json j = plan_of({PlanOp::Fork}).to_json();
  // The digest is recomputed, so only the op can be what is refused.
  REQUIRE_NOTHROW(plan_from_json(with_digest_recomputed(j), "commit", required_preconditions("commit"), "commit.json"));
  j["actions"][0]["op"] = "frobnicate";
  CHECK_THROWS_WITH_AS(
      plan_from_json(with_digest_recomputed(j), "commit", required_preconditions("commit"), "commit.json"),
      "unknown plan action 'frobnicate'; re-run the plan", tether::StalePlanError);
  // Left with its old digest, the same edit still names the op, not the digest.
  CHECK_THROWS_WITH_AS(plan_from_json(j, "commit", required_preconditions("commit"), "commit.json"),
                       "unknown plan action 'frobnicate'; re-run the plan", tether::StalePlanError);
}
