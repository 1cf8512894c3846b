// Unit tests of `add`, `remove` and `set` (objects.cpp): what a manifest records, the
// refusals a user meets (unsafe key, duplicate key, unknown kind, bad policy), and that
// nothing is contacted or recorded until commit. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;
using tether::testing::error_of;

namespace {

AddRequest memory_object(const Dataset& ds, const std::string& key, const std::string& system) {
  AddRequest r;
  r.key = key;
  r.kind = "memory";
  r.locator = {{"system", system}};
  r.cwd = ds.root();
  return r;
}

}  // namespace

TEST_CASE("add registers without contacting the store; remove unregisters") {
  Dataset ds;
  const auto added = tether::engine::add(*ds.open(), memory_object(ds, "raw/m", "sys1"));
  CHECK(added.key == "raw/m");
  CHECK(added.kind == "memory");
  CHECK(added.maturity == "stable");
  CHECK(ds.branches("sys1").empty());  // the store was not asked anything
  const std::string manifest = ds.read(".tether/objects/raw/m.toml");
  CHECK(contains(manifest, "kind = \"memory\""));
  CHECK(contains(manifest, "system = \"sys1\""));

  CHECK(contains(error_of([&] { tether::engine::add(*ds.open(), memory_object(ds, "raw/m", "sys2")); }), "raw/m"));
  tether::engine::remove(*ds.open(), "raw/m");
  CHECK(ds.open()->manifests().empty());
  CHECK(contains(error_of([&] { tether::engine::remove(*ds.open(), "raw/m"); }), "raw/m"));
}

TEST_CASE("add refuses unsafe keys and unknown kinds, writing nothing") {
  Dataset ds;
  for (const char* key : {"../x", "/abs", "a/../b", ""}) {
    CAPTURE(key);
    CHECK_FALSE(error_of([&] { tether::engine::add(*ds.open(), memory_object(ds, key, "sys1")); }).empty());
  }
  auto unknown = memory_object(ds, "k", "sys1");
  unknown.kind = "nosuchkind";
  CHECK(contains(error_of([&] { tether::engine::add(*ds.open(), unknown); }), "nosuchkind"));
  CHECK(ds.open()->manifests().empty());
}

TEST_CASE("set changes policies and says what changed") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const auto r = tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
  REQUIRE(r.changed.count("m") == 1);
  CHECK(r.changed.at("m").at("pin").second == "record");
  const auto again = tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
  CHECK(again.changed.empty());
  CHECK(again.unchanged == std::vector<std::string>{"m"});
  CHECK_FALSE(error_of([&] { tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("sideways")); }).empty());
  CHECK_FALSE(error_of([&] { tether::engine::set_policy(*ds.open(), {"nope"}, false, std::nullopt, std::string("record")); }).empty());
}
