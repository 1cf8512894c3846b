// fan_out: every item runs once, results come back in item order, and one item's exception
// is kept with its texts without hiding the others' results.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>

#include "tether/engine/fanout.hpp"
#include "tether/errors.hpp"

using tether::BackendError;
using tether::engine::fan_out;

TEST_CASE("results come back in item order, each item run once") {
  std::atomic<int> calls{0};
  std::size_t last_done = 0;
  auto out = fan_out<int>(
      40,
      [&](std::size_t i) {
        ++calls;
        return static_cast<int>(i * i);
      },
      [&](std::size_t done, std::size_t total) {
        CHECK(total == 40);
        last_done = std::max(last_done, done);
      });
  CHECK(calls == 40);
  CHECK(last_done == 40);
  REQUIRE(out.size() == 40);
  for (std::size_t i = 0; i < out.size(); ++i) {
    REQUIRE(out[i].ok());
    CHECK(*out[i].value == static_cast<int>(i * i));
  }
}

TEST_CASE("a failed item keeps its exception and its texts; the others still return") {
  auto out = fan_out<int>(4, [](std::size_t i) -> int {
    if (i == 1) throw BackendError("no such branch 'x'", "lake", "ducklake");
    if (i == 2) throw std::runtime_error("disk full");
    if (i == 3) throw 42;
    return 7;
  });
  REQUIRE(out[0].ok());
  CHECK(*out[0].value == 7);

  REQUIRE_FALSE(out[1].ok());
  CHECK_FALSE(out[1].value.has_value());
  CHECK(out[1].message() == "no such branch 'x'");
  CHECK(out[1].what().rfind("[lake] ", 0) == 0);
  CHECK(out[1].keyed("lake") == out[1].what());  // the prefix is not doubled
  CHECK_THROWS_AS(std::rethrow_exception(out[1].error), BackendError);

  REQUIRE_FALSE(out[2].ok());
  CHECK(out[2].message() == "disk full");
  CHECK(out[2].keyed("raw") == "[raw] disk full");

  REQUIRE_FALSE(out[3].ok());
  CHECK(out[3].message() == "unknown error");
}

TEST_CASE("no items: nothing runs") {
  auto out = fan_out<int>(0, [](std::size_t) -> int { throw std::logic_error("called"); });
  CHECK(out.empty());
}
