// Unit tests of `verify` (verify.cpp): every pin of the working tree (or of a revision, or of
// all history) must resolve to the state recorded; a deleted pin is `missing` and verify is
// not ok. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/verify.hpp"
#include "tether/host/proxy.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

namespace {

std::string commit(const Dataset& ds, const std::string& message) {
  return *ds.commit(message).pinned.at("m");
}

VerifyResult verify(const Dataset& ds, std::optional<std::string> rev = std::nullopt, bool all = false) {
  VerifyOptions o;
  o.rev = std::move(rev);
  o.all_history = all;
  return tether::engine::verify(*ds.open(), o);
}

}  // namespace

TEST_CASE("verify finds a deleted pin only in the commits that name it") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const std::string ref1 = commit(ds, "first");
  ds.advance("sys1");
  commit(ds, "second");
  const auto ok = verify(ds);
  CHECK(ok.ok());
  REQUIRE(ok.size() == 1);
  CHECK(ok.status(0) == "ok");

  ds.untag("sys1", ref1);
  CHECK(verify(ds).ok());                      // the working tree names the second pin
  CHECK(verify(ds, std::string("HEAD")).ok());
  const auto old = verify(ds, std::string("HEAD~1"));
  CHECK_FALSE(old.ok());
  REQUIRE(old.size() == 1);
  CHECK(old.status(0) == "missing");
  CHECK(old.message(0).find(ref1) != std::string::npos);
  CHECK_FALSE(verify(ds, std::nullopt, /*all=*/true).ok());

  CHECK_FALSE(tether::testing::error_of([&] { verify(ds, std::string("no-such-rev")); }).empty());
}

TEST_CASE("a backend with its own verify_many says batch_verify: verify sends it one batch per core") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  auto repo = ds.open();
  CHECK(repo->backend("memory").description().batch_verify);
}
