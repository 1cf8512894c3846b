// Unit tests of `diff` (diff.cpp): HEAD against the working tree, a revision against it, two
// revisions either way; objects added, removed or changed, and --content asking the backend
// for its own diff. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/diff.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

namespace {

void commit(const Dataset& ds, const std::string& message) {
  ds.commit(message);
}

// "change key" per entry that is not unchanged, in the order diff gives them.
std::vector<std::string> changes(const DiffResult& result) {
  std::vector<std::string> out;
  for (const auto& e : result.entries)
    if (e.change != "unchanged") out.push_back(e.change + " " + e.key);
  return out;
}

}  // namespace

TEST_CASE("diff between revisions and the working tree") {
  Dataset ds;
  ds.add_memory("keep", "sys1");
  ds.add_memory("drop", "sys2");
  commit(ds, "c1");
  CHECK(changes(tether::engine::diff(*ds.open(), {}, false)).empty());

  ds.advance("sys1");
  tether::engine::remove(*ds.open(), "drop");
  ds.add_memory("fresh", "sys3");
  // HEAD -> working tree: keep's new state is in no manifest yet.
  CHECK(changes(tether::engine::diff(*ds.open(), {}, false)) == std::vector<std::string>{"removed drop", "added fresh"});
  commit(ds, "c2");
  CHECK(changes(tether::engine::diff(*ds.open(), {}, false)).empty());
  const auto two = changes(tether::engine::diff(*ds.open(), {"HEAD~1", "HEAD"}, false));
  CHECK(two == std::vector<std::string>{"removed drop", "added fresh", "changed keep"});
  const auto back = changes(tether::engine::diff(*ds.open(), {"HEAD", "HEAD~1"}, false));
  CHECK(back == std::vector<std::string>{"added drop", "removed fresh", "changed keep"});
}

TEST_CASE("diff --content asks the store what changed between the two states") {
  Dataset ds;
  ds.add_memory("keep", "sys1");
  commit(ds, "c1");
  ds.advance("sys1", "main", "added-key");
  commit(ds, "c2");
  const auto entries = tether::engine::diff(*ds.open(), {"HEAD~1", "HEAD"}, /*content=*/true).entries;
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].change == "changed");
  CHECK_FALSE(entries[0].detail_error);
  REQUIRE(entries[0].detail);
}
