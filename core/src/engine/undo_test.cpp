// Unit tests of `undo` (undo.cpp): undo of a commit uncommits it and keeps its pins, undo of
// `add` unregisters, an entry is undone once, a dry run changes nothing, and an undo whose VCS
// step fails leaves the entry not undone. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/testing/dataset.hpp"
#include "tether/errors.hpp"
#include "tether/engine/undo.hpp"
#include "engine/testing/faulty_vcs.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::engine::testing::FaultyVcs;
using tether::testing::contains;
using tether::testing::error_of;

namespace {

CommitResult commit(const Dataset& ds, const std::string& message) {
  return ds.commit(message);
}

UndoResult undo(const Dataset& ds, std::optional<std::string> op = std::nullopt, bool dry_run = false,
                Services services = {}) {
  UndoOptions o;
  o.op_id = std::move(op);
  o.dry_run = dry_run;
  return tether::engine::undo(*ds.open(std::move(services)), o);
}

}  // namespace

TEST_CASE("undo of a commit uncommits it, keeps its pin and is recorded once") {
  Dataset ds;
  CHECK(contains(error_of([&] { undo(ds); }), "nothing to undo"));
  ds.add_memory("m", "sys1");
  commit(ds, "first");
  const std::string c1 = ds.head();
  ds.advance("sys1");
  const auto second = commit(ds, "second");
  const std::string pin2 = *second.pinned.at("m");
  const std::string manifest = ds.read(".tether/objects/m.toml");
  const auto log = ds.op_log();

  const auto dry = undo(ds, std::nullopt, /*dry_run=*/true);
  CHECK_FALSE(dry.applied);
  REQUIRE(dry.plan.actions.size() == 1);
  CHECK(dry.plan.actions[0].op == PlanOp::Uncommit);
  CHECK(ds.op_log() == log);
  CHECK(ds.head() == *second.vcs_commit);

  const auto r = undo(ds);
  CHECK(r.applied);
  CHECK(r.command == "commit");
  CHECK(ds.head() == c1);
  CHECK(ds.read(".tether/objects/m.toml") == manifest);  // a working-tree change again
  CHECK(ds.tags("sys1").count(pin2) == 1);                // pins are kept

  CHECK(contains(error_of([&] { undo(ds, r.undone); }), "was already undone by " + r.undo_id));
  CHECK(contains(error_of([&] { undo(ds, r.undo_id); }), "cannot undo 'undo'"));
  CHECK(contains(error_of([&] { undo(ds, std::string("000000000000")); }), "no operation '000000000000'"));

  // Committing again lands the same manifests and reuses the pin.
  const auto again = commit(ds, "second again");
  CHECK(again.vcs_commit);
  CHECK(ds.tags("sys1").size() == 2);
}

TEST_CASE("undo of add unregisters the object") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  CHECK(ds.open()->manifests().count("m") == 1);
  const auto r = undo(ds);
  CHECK(r.command == "add");
  CHECK(ds.open()->manifests().count("m") == 0);
}

TEST_CASE("an undo whose VCS step fails leaves the commit and the entry as they were") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "first");
  const std::string head = ds.head();
  Services s;
  s.wrap_vcs = [](std::unique_ptr<tether::vcs::VcsAdapter> real) -> std::unique_ptr<tether::vcs::VcsAdapter> {
    return std::make_unique<FaultyVcs>(std::move(real), "uncommit");
  };
  CHECK(contains(error_of([&] { undo(ds, std::nullopt, false, std::move(s)); }), "injected failure at uncommit"));
  CHECK(ds.head() == head);
  // Not recorded as undone: a plain undo afterwards still takes it back.
  const auto r = undo(ds);
  CHECK(r.command == "commit");
  CHECK(ds.head() != head);
}

TEST_CASE("a saved undo plan whose context has a field of the wrong type is refused, naming the field") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  commit(ds, "first");
  const std::string head = ds.head();
  const Plan saved = plan_from_json(undo(ds, std::nullopt, /*dry_run=*/true).plan.to_json(), "undo",
                                    required_preconditions("undo"), "undo.json");
  auto apply = [&](const Plan& p) {
    UndoOptions o;
    o.saved = p;
    o.saved_from = "undo.json";
    return tether::engine::undo(*ds.open(), o);
  };
  const auto log = ds.op_log();

  Plan bad = saved;
  bad.context["target"] = 42;
  CHECK_THROWS_WITH_AS(apply(bad), "the undo plan's \"target\" is not a string; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context["discard"] = nullptr;
  CHECK_THROWS_WITH_AS(apply(bad), "the undo plan's \"discard\" is not true or false; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context.erase("command");
  CHECK_THROWS_WITH_AS(apply(bad), "the undo plan's \"command\" is missing; re-run the plan", tether::StalePlanError);
  CHECK(ds.head() == head);
  CHECK(ds.op_log() == log);

  const auto r = apply(saved);
  CHECK(r.applied);
  CHECK(r.command == "commit");
  CHECK(ds.head() != head);
}
