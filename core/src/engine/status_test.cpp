// Unit tests of `status` and `snapshot` (status.cpp): the labels a user reads (new before the
// first commit, clean, modified once the store moves, behind/error), and that a fingerprint
// is cached for the next status without one. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/status.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

namespace {

std::string label_of(const StatusReport& r, const std::string& key) {
  for (const auto& o : r.objects)
    if (o.key == key) return o.label;
  return "(absent)";
}

}  // namespace

TEST_CASE("status labels: new, clean after commit, modified when the store moves") {
  Dataset ds;
  CHECK(tether::engine::status(*ds.open(), false).objects.empty());
  ds.add_memory("m", "sys1");
  const auto fresh = tether::engine::status(*ds.open(), true);
  CHECK(label_of(fresh, "m") == "new");
  CHECK(fresh.trunk == "main");
  REQUIRE(fresh.bookmark);
  CHECK(*fresh.bookmark == "main");

  ds.commit("first");
  CHECK(label_of(tether::engine::status(*ds.open(), true), "m") == "clean");
  ds.advance("sys1");
  const auto moved = tether::engine::status(*ds.open(), true);
  CHECK(label_of(moved, "m") == "modified");
  CHECK_FALSE(moved.has_error());
  // Without a new fingerprint, status shows the cached one.
  CHECK(label_of(tether::engine::status(*ds.open(), false), "m") == "modified");
}

TEST_CASE("a store that cannot be read is an error label for its object, not a failed status") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  ds.add_memory("gone", "sys2");
  ds.commit("first");
  ds.delete_system("sys2");  // behind tether's back: every later read of it fails

  const auto snap = tether::engine::snapshot(*ds.open());
  CHECK(snap.states.count("m") == 1);
  REQUIRE(snap.errors.count("gone") == 1);
  CHECK(snap.errors.at("gone").find("sys2") != std::string::npos);

  const auto r = tether::engine::status(*ds.open(), true);
  CHECK(r.has_error());
  CHECK(label_of(r, "gone") == "error");
  CHECK(label_of(r, "m") == "clean");
}
