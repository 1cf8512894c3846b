// Unit tests of `pull` (pull.cpp): on the trunk it commits what the upstream branches hold
// now, nothing moved means no commit, and on a bookmark it commits the working branches.
// Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/testing/errors.hpp"
#include "tether/engine/pull.hpp"
#include "tether/engine/new.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;

TEST_CASE("pull commits the heads that moved and nothing else") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  ds.commit("baseline");
  const std::string head0 = ds.head();

  const auto nothing = tether::engine::pull(*ds.open(), std::nullopt, std::nullopt);
  CHECK(nothing.committed.empty());
  CHECK(nothing.unchanged == std::vector<std::string>{"m"});
  CHECK_FALSE(nothing.vcs_commit);
  CHECK(ds.head() == head0);

  const std::string s1 = ds.advance("sys1");
  const auto r = tether::engine::pull(*ds.open(), std::nullopt, std::nullopt);
  REQUIRE(r.committed.count("m") == 1);
  CHECK(r.committed.at("m").second.dump() == R"({"snapshot_id":")" + s1 + R"("})");
  REQUIRE(r.vcs_commit);
  CHECK(ds.git({"rev-parse", "HEAD~1"}) == head0);
  CHECK(ds.git({"log", "-1", "--format=%s"}) == "pull main: 1 object");
  CHECK(contains(ds.read(".tether/objects/m.toml"), "snapshot_id = \"" + s1 + "\""));
  bool journaled = false;
  for (const auto& line : ds.op_log()) journaled |= contains(line, "\"command\":\"pull\"");
  CHECK(journaled);
}

TEST_CASE("pull on a bookmark commits its working branch") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  ds.commit("baseline");
  NewOptions n;
  n.bookmark = "side";
  n.eager = true;
  const std::string fork = tether::engine::new_workspace(*ds.open(), n).working_refs.at("m");
  const std::string w = ds.advance("sys1", fork);
  ds.advance("sys1");  // the upstream moves too: on a bookmark it is not what is pulled

  const auto r = tether::engine::pull(*ds.open(), std::nullopt, std::nullopt);
  CHECK(r.bookmark == "side");
  REQUIRE(r.committed.count("m") == 1);
  CHECK(contains(r.committed.at("m").second.dump(), w));
  CHECK(ds.git({"branch", "--show-current"}) == "side");
}
