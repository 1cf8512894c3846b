// Unit tests of `ops` (ops.cpp): this checkout's operations newest first with the summary a
// user reads, and a commit removed from history behind tether's back shown as gone. Real git,
// the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/ops.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

TEST_CASE("ops lists operations newest first with their summaries") {
  Dataset ds;
  CHECK(tether::engine::ops(*ds.open(), 0).empty());
  ds.add_memory("m", "sys1");
  const auto committed = ds.commit("first");
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("native"));

  const auto all = tether::engine::ops(*ds.open(), 0);
  REQUIRE(all.size() == 4);
  CHECK(all[0].command == "set");
  CHECK(all[0].summary == "m: pin=record->native");
  CHECK(all[1].summary == "m: pin=native->record");
  CHECK(all[2].command == "commit");
  CHECK(all[2].summary == "pinned m; vcs " + committed.vcs_commit->substr(0, 12));
  CHECK(all[3].summary == "m");
  CHECK(tether::engine::ops(*ds.open(), 2).size() == 2);
  CHECK_FALSE(all[2].vcs_commit_gone);

  // A commit leaves history behind tether's back: ops says so, and vcs_drift names it.
  ds.advance("sys1");
  const auto c2 = ds.commit("second");
  ds.git({"reset", "-q", "--hard", "HEAD~1"});
  const auto after = tether::engine::ops(*ds.open(), 0);
  REQUIRE(after.size() == 5);
  CHECK(after[0].vcs_commit_gone);
  CHECK_FALSE(after[3].vcs_commit_gone);
  const auto drift = ds.open()->vcs_drift();
  REQUIRE(drift.size() == 1);
  CHECK(drift[0].commit == *c2.vcs_commit);
}
