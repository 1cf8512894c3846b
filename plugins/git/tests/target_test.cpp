// Locator parsing of the git backend (docs/backends.md#git), without a repository.
#include <doctest/doctest.h>

#include "target.hpp"
#include "tether/sdk/error.hpp"

using tether::git::parse_target;
using tether::git::refuse_inside_checkout;
using tether::sdk::Json;

TEST_CASE("path comes from `path`, else the positional `uri`; ref from `ref`, else `branch`") {
  auto t = parse_target(Json{{"uri", "/srv/code/"}, {"branch", "dev"}});
  CHECK(t.path == "/srv/code");
  CHECK(t.ref == "dev");
  CHECK(t.read_ref() == "dev");
  t = parse_target(Json{{"path", "/srv/a"}, {"uri", "/srv/b"}, {"ref", "main"}, {"at", "v1"}});
  CHECK(t.path == "/srv/a");
  CHECK(t.read_ref() == "v1");
  CHECK(parse_target(Json{{"path", "/srv/a"}}).read_ref() == "HEAD");
}

TEST_CASE("allow_dirty accepts the usual spellings of true") {
  CHECK(parse_target(Json{{"path", "/a"}, {"allow_dirty", true}}).allow_dirty);
  CHECK(parse_target(Json{{"path", "/a"}, {"allow_dirty", "true"}}).allow_dirty);
  CHECK(parse_target(Json{{"path", "/a"}, {"allow_dirty", "1"}}).allow_dirty);
  CHECK_FALSE(parse_target(Json{{"path", "/a"}, {"allow_dirty", "no"}}).allow_dirty);
  CHECK_FALSE(parse_target(Json{{"path", "/a"}}).allow_dirty);
}

TEST_CASE("refusals: no path, a URL, a relative path, option-like values") {
  CHECK_THROWS_AS(parse_target(Json::object()), tether::sdk::BackendError);
  CHECK_THROWS_WITH(parse_target(Json{{"uri", "ssh://host/repo.git"}}), doctest::Contains("local 'path'"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "code"}}), doctest::Contains("not absolute"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "-C/x"}}), doctest::Contains("looks like an option"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "/a"}, {"ref", "--all"}}), doctest::Contains("git ref '--all' looks like an option"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "/a"}, {"at", "-1"}}), doctest::Contains("git at '-1'"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "/a"}, {"remote", "--mirror"}}), doctest::Contains("git remote"));
  CHECK_THROWS_WITH(parse_target(Json{{"path", "/a"}, {"ref", 3}}), doctest::Contains("must be a string"));
}

TEST_CASE("inside the checkout: the checkout itself and anything under it, not a sibling with a common prefix") {
  CHECK_THROWS(refuse_inside_checkout(parse_target(Json{{"path", "/data/ds"}}), "/data/ds"));
  CHECK_THROWS(refuse_inside_checkout(parse_target(Json{{"path", "/data/ds/sub/repo"}}), "/data/ds/"));
  CHECK_NOTHROW(refuse_inside_checkout(parse_target(Json{{"path", "/data/ds-code"}}), "/data/ds"));
  CHECK_NOTHROW(refuse_inside_checkout(parse_target(Json{{"path", "/data"}}), "/data/ds"));
  CHECK_NOTHROW(refuse_inside_checkout(parse_target(Json{{"path", "/data/ds/x"}}), ""));
}
