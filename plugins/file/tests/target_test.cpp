// Locator forms: bare paths, file:// URIs, object-store URLs, refused schemes.
#include <doctest/doctest.h>

#include "support.hpp"
#include "target.hpp"
#include "tether/sdk/error.hpp"

namespace tether::file::test {

TEST_CASE("local paths resolve: trailing slashes, dot segments, symlinked parents, file:// folded") {
  TempDir tmp;
  fs::create_directories(tmp.path / "real" / "data");
  fs::create_directory_symlink(tmp.path / "real", tmp.path / "via");
  std::string want = (tmp.path / "real" / "data").string();
  for (std::string uri : {want, want + "/", want + "//", (tmp.path / "via" / "data").string() + "/",
                          (tmp.path / "real" / "." / "x" / ".." / "data").string(), "file://" + want,
                          "file://localhost" + want + "/"}) {
    CAPTURE(uri);
    Target t = parse_target(Json{{"uri", uri}});
    CHECK_FALSE(t.remote);
    CHECK(t.path == want);
  }
  // A missing tail is normalised lexically behind the resolved part.
  CHECK(parse_target(Json{{"uri", (tmp.path / "via" / "new" / "").string()}}).path == (tmp.path / "real" / "new").string());
  // '#', '?' and ':' are ordinary characters of a bare path.
  CHECK(parse_target(Json{{"uri", "/a/b#c?d:e"}}).path == "/a/b#c?d:e");
  CHECK(parse_target(Json{{"uri", "rel/dir/"}}).path == "rel/dir");
  CHECK(parse_target(Json{{"uri", "file:///a%20b"}}).path == "/a b");
  // `path` is an alias; `uri` wins when both are set.
  CHECK(parse_target(Json{{"path", "/p"}}).path == "/p");
  CHECK(parse_target(Json{{"uri", "/u"}, {"path", "/p"}}).path == "/u");
}

TEST_CASE("remote URLs and refused schemes") {
  Target s3 = parse_target(Json{{"uri", "s3://bucket/some/key.csv"}});
  CHECK(s3.remote);
  CHECK(s3.scheme == "s3");
  CHECK(s3.path == "some/key.csv");
  CHECK(parse_target(Json{{"uri", "gs://bucket/prefix/"}}).path == "prefix/");
  CHECK(parse_target(Json{{"uri", "HTTPS://host"}}).remote);
  CHECK_THROWS_WITH_AS(local_target(Json{{"uri", "az://c/k"}}, "create"),
                       "file create: only a local directory can be created or removed by tether; a remote prefix is "
                       "managed by its bucket",
                       sdk::BackendError);
  CHECK_THROWS_WITH_AS(parse_target(Json{{"uri", "ftp://host/x"}}), "unsupported file URI scheme: 'ftp'",
                       sdk::BackendError);
  CHECK_THROWS_WITH_AS(parse_target(Json{{"branch", "main"}}), "file locator needs 'uri'", sdk::BackendError);
  CHECK_THROWS_WITH_AS(parse_target(Json{{"uri", ""}}), "file locator needs 'uri'", sdk::BackendError);
  CHECK_THROWS_WITH_AS(parse_target(Json{{"uri", "file://otherhost/x"}}), doctest::Contains("not this machine"),
                       sdk::BackendError);
}

TEST_CASE("`at` is refused with the reference's message") {
  CHECK_NOTHROW(refuse_at(Json{{"uri", "/p"}, {"at", ""}}));
  CHECK_THROWS_WITH_AS(refuse_at(Json{{"uri", "/p"}, {"at", "v1"}}),
                       "file objects have no history to detach from (`at`); use `--file versioned` on a versioned "
                       "bucket instead",
                       sdk::BackendError);
}

}  // namespace tether::file::test
