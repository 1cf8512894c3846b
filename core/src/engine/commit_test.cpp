// Unit tests of `commit` (commit.cpp): what it pins, records and commits, what a dry run and an
// unchanged dataset leave alone, and what a failed VCS commit rolls back. A real git
// repository and the memory backend in process (engine/testing/dataset.hpp).
#include <doctest/doctest.h>

#include <chrono>
#include <regex>

#include <nlohmann/json.hpp>

#include "engine/testing/dataset.hpp"
#include "engine/testing/faulty_vcs.hpp"
#include "tether/errors.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::engine::testing::FaultyVcs;
using tether::testing::contains;

namespace {

CommitOptions message(const std::string& text) {
  CommitOptions o;
  o.message = text;
  return o;
}

Services failing_at(const std::string& step, FaultyVcs** out = nullptr) {
  Services s;
  s.wrap_vcs = [step, out](std::unique_ptr<tether::vcs::VcsAdapter> real) -> std::unique_ptr<tether::vcs::VcsAdapter> {
    auto faulty = std::make_unique<FaultyVcs>(std::move(real), step);
    if (out) *out = faulty.get();
    return faulty;
  };
  return s;
}

}  // namespace

TEST_CASE("commit pins a memory object, records the pin and makes one git commit") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string before = ds.head();
  auto repo = ds.open();
  const auto r = tether::engine::commit(*repo, message("first"));

  CHECK(r.applied);
  REQUIRE(r.vcs_commit);
  CHECK(*r.vcs_commit == ds.head());
  CHECK(ds.head() != before);
  REQUIRE(r.pinned.count("m") == 1);
  REQUIRE(r.pinned.at("m"));
  const std::string ref = *r.pinned.at("m");
  CHECK(std::regex_match(ref, std::regex("tether\\." + repo->dataset_id() + "\\.[0-9a-f]{16}")));
  // The store holds the pin at the state committed; the committed manifest names it.
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{ref, "sys1:s0"}});
  const std::string manifest = ds.git({"show", "HEAD:.tether/objects/m.toml"});
  CHECK(contains(manifest, "ref = \"" + ref + "\""));
  CHECK(contains(manifest, "snapshot_id = \"sys1:s0\""));
  // The journal tells it: the pin before the VCS commit, then the end.
  const auto log = ds.op_log();
  REQUIRE(log.size() >= 3);
  std::size_t pin = 0, vcs = 0;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (contains(log[i], "\"action\":\"pin\"") && !pin) pin = i + 1;
    if (contains(log[i], "\"action\":\"vcs-commit\"") && !vcs) vcs = i + 1;
  }
  CHECK(pin > 0);
  CHECK(vcs > pin);
}

TEST_CASE("commit of an unchanged dataset cuts no pin and makes no commit") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  tether::engine::commit(*ds.open(), message("first"));
  const std::string head = ds.head();
  const auto tags = ds.tags("sys1");

  const auto r = tether::engine::commit(*ds.open(), message("again"));
  CHECK_FALSE(r.vcs_commit);
  CHECK(r.pinned.empty());
  CHECK(r.unchanged == std::vector<std::string>{"m"});
  CHECK(ds.head() == head);
  CHECK(ds.tags("sys1") == tags);

  // A new state is a second pin; the first stays.
  const std::string s1 = ds.advance("sys1");
  const auto r2 = tether::engine::commit(*ds.open(), message("second"));
  REQUIRE(r2.pinned.count("m") == 1);
  const auto after = ds.tags("sys1");
  CHECK(after.size() == 2);
  CHECK(after.at(*r2.pinned.at("m")) == s1);
  CHECK(after.at(tags.begin()->first) == "sys1:s0");
}

TEST_CASE("commit --dry-run plans the pin and writes nothing") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string head = ds.head();
  const std::string manifest = ds.read(".tether/objects/m.toml");
  auto o = message("dry");
  o.dry_run = true;
  const auto r = tether::engine::commit(*ds.open(), o);
  CHECK_FALSE(r.applied);
  CHECK_FALSE(r.plan.actions.empty());
  CHECK(ds.head() == head);
  CHECK(ds.tags("sys1").empty());
  CHECK(ds.read(".tether/objects/m.toml") == manifest);
}

TEST_CASE("a commit the VCS refuses releases its pins and restores the manifests") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const auto first = tether::engine::commit(*ds.open(), message("first"));
  ds.advance("sys1");
  const std::string head = ds.head();
  const std::string manifest = ds.read(".tether/objects/m.toml");
  const auto tags = ds.tags("sys1");

  FaultyVcs* vcs = nullptr;
  auto repo = ds.open(failing_at("commit", &vcs));
  const std::string error = tether::testing::error_of([&] { tether::engine::commit(*repo, message("second")); });
  CHECK(contains(error, "injected failure at commit"));
  CHECK(vcs->reached() == 1);
  CHECK(ds.head() == head);
  CHECK(ds.tags("sys1") == tags);  // the second pin was cut, then released
  CHECK(ds.read(".tether/objects/m.toml") == manifest);
  const auto log = ds.op_log();
  const auto last = nlohmann::json::parse(log.back());
  CHECK(last["result"]["rolled_back"] == true);
  CHECK(contains(last["result"]["failed"].get<std::string>(), "injected failure at commit"));

  // Nothing is left half done: the same commit goes through once the VCS does.
  const auto r = tether::engine::commit(*ds.open(), message("second"));
  CHECK(r.vcs_commit);
  CHECK(ds.tags("sys1").size() == 2);
}

TEST_CASE("commit under pin=record records the state and cuts no pin") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
  const auto r = tether::engine::commit(*ds.open(), message("recorded"));
  REQUIRE(r.pinned.count("m") == 1);
  CHECK_FALSE(r.pinned.at("m"));  // recorded: no native ref
  CHECK(ds.tags("sys1").empty());
  const std::string manifest = ds.git({"show", "HEAD:.tether/objects/m.toml"});
  CHECK(contains(manifest, "snapshot_id = \"sys1:s0\""));
  CHECK_FALSE(contains(manifest, "[pin]"));

  // Back to pin=native: the same state now gets its pin.
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("native"));
  const auto r2 = tether::engine::commit(*ds.open(), message("pinned"));
  REQUIRE(r2.pinned.count("m") == 1);
  REQUIRE(r2.pinned.at("m"));
  CHECK(ds.tags("sys1") == std::map<std::string, std::string>{{*r2.pinned.at("m"), "sys1:s0"}});
}

TEST_CASE("every time a commit writes comes from the dataset's clock") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  Services fixed;
  // 2026-01-01T00:00:00.000250 UTC
  fixed.clock = [] {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1767225600)) + std::chrono::microseconds(250);
  };
  const auto r = tether::engine::commit(*ds.open(std::move(fixed)), message("first"));
  CHECK(r.plan.created_at == "2026-01-01T00:00:00+00:00");
  CHECK(contains(ds.read(".tether/objects/m.toml"), "captured_at = \"2026-01-01T00:00:00.000250+00:00\""));
  CHECK(contains(ds.read(".tether/workspace.toml"), "2026-01-01T00:00:00.000250+00:00"));
  const auto log = ds.op_log();
  std::size_t stamped = 0;
  for (const auto& line : log) {
    const auto entry = nlohmann::json::parse(line);
    if (entry.value("command", "") == "commit") {
      CHECK(entry["at"] == "2026-01-01T00:00:00+00:00");
      ++stamped;
    }
  }
  CHECK(stamped == 1);
}

// A saved plan is untrusted input (--from-plan): its context is read through CommitPayload,
// which refuses a field of the wrong type with one line naming it. The digest is skipped here
// (the plan is handed in as `saved` directly), so the type check is what stops each of these.
TEST_CASE("a saved commit plan whose context has a field of the wrong type is refused, naming the field") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  auto o = message("typed");
  o.dry_run = true;
  const Plan saved = plan_from_json(tether::engine::commit(*ds.open(), o).plan.to_json(), "commit",
                                    required_preconditions("commit"), "commit.json");
  const std::string head = ds.head();
  const auto log = ds.op_log();
  auto apply = [&](const Plan& p, const std::string& m = "") {
    CommitOptions a;
    a.saved = p;
    a.message = m;
    return tether::engine::commit(*ds.open(), a);
  };

  Plan bad = saved;
  bad.context["states"] = 42;
  CHECK_THROWS_WITH_AS(apply(bad), "the commit plan's \"states\" is not an object; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context["pull"] = "yes";
  CHECK_THROWS_WITH_AS(apply(bad), "the commit plan's \"pull\" is not true or false; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context["message"] = nlohmann::json::array();
  CHECK_THROWS_WITH_AS(apply(bad), "the commit plan's \"message\" is not a string; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context.erase("no_vcs");  // -m rewrites the message through the payload: refused there too
  CHECK_THROWS_WITH_AS(apply(bad, "other"), "the commit plan's \"no_vcs\" is missing; re-run the plan", tether::StalePlanError);
  bad = saved;
  bad.context = nlohmann::json::array();
  CHECK_THROWS_WITH_AS(apply(bad), "the commit plan's context is not an object; re-run the plan", tether::StalePlanError);
  CHECK(ds.head() == head);
  CHECK(ds.tags("sys1").empty());
  CHECK(ds.op_log() == log);

  // The plan as saved applies, with its message (or -m's).
  const auto r = apply(saved, "from -m");
  CHECK(r.applied);
  REQUIRE(r.vcs_commit);
  CHECK(ds.git({"log", "-1", "--format=%s"}) == "from -m");
  CHECK(ds.tags("sys1").size() == 1);
}
