// Unit tests of `log` (log.cpp): an object's native history from its backend, newest first, as
// `tether log --json` prints it. The memory backend (which has HISTORY) in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/log.hpp"
#include "tether/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

TEST_CASE("log lists the backend's history newest first, the pin among the refs") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const auto s1 = ds.advance("sys1");
  const auto s2 = ds.advance("sys1");
  const auto committed = ds.commit("first");
  const std::string pin = committed.pinned.at("m").value();

  const auto all = tether::engine::log(*ds.open(), "m", std::nullopt, -1);
  CHECK(all.key == "m");
  REQUIRE(all.entries.size() == 3);
  CHECK(all.entries[0].id == s2);
  CHECK(all.entries[1].id == s1);
  CHECK(all.entries[0].refs == std::vector<std::string>{"main", pin});

  Json j = all.to_json();
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 3);
  CHECK(j[0] == Json{{"id", s2}, {"when", nullptr}, {"message", "snapshot " + s2}, {"refs", {"main", pin}}});
  CHECK(j[1]["id"] == s1);
  CHECK(j[2]["refs"] == Json::array());

  const auto one = tether::engine::log(*ds.open(), "m", std::nullopt, 1);
  REQUIRE(one.entries.size() == 1);
  CHECK(one.to_json().size() == 1);
  // From an older ref: its history only.
  CHECK(tether::engine::log(*ds.open(), "m", s1, -1).entries.size() == 2);
  CHECK_THROWS_WITH_AS(tether::engine::log(*ds.open(), "nothere", std::nullopt, -1), "no such object: nothere",
                       tether::ConfigError);
}
