// Tests of model/keys: key validation (docs/FORMAT.md#object-keys-and-manifest-paths) and the
// key <-> path mapping.
#include <doctest/doctest.h>

#include "tether/errors.hpp"
#include "tether/model/keys.hpp"

using namespace tether::model;

TEST_CASE("safe keys") {
  for (const char* k : {"raw", "zarr/imaging", "foo.bar", "a b", "\xc3\xa9t\xc3\xa9/x", ".hidden", "a/..b", "1:x"})
    CHECK_MESSAGE(is_safe_key(k), k);
}

TEST_CASE("unsafe keys") {
  for (const char* k : {"", "/a", "a/", "a//b", "a\\b", ".", "..", "../x", "a/./b", "a/../b", "C:", "c:/x", "x/d:y",
                        "a\tb", "a\nb", "a\x01", "a\xc2\xa0"
                        "b",
                        "a\xe2\x80\x83"
                        "b",
                        "a\xe3\x80\x80"
                        "b"})
    CHECK_MESSAGE(!is_safe_key(k), k);
}

TEST_CASE("validate_key raises ConfigError with a Python-repr key") {
  CHECK_THROWS_WITH_AS(validate_key("../x"), "unsafe object key: '../x'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(validate_key("a//b"), "unsafe object key: 'a//b'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(validate_key("it's/"), "unsafe object key: \"it's/\"", tether::ConfigError);
  CHECK_THROWS_WITH_AS(validate_key("a\nb"), "unsafe object key: 'a\\nb'", tether::ConfigError);
  CHECK_NOTHROW(validate_key("zarr/imaging"));
}

TEST_CASE("manifest paths") {
  const std::filesystem::path objects = "/d/.tether/objects";
  CHECK(key_to_manifest_path(objects, "raw") == "/d/.tether/objects/raw.toml");
  CHECK(key_to_manifest_path(objects, "zarr/imaging") == "/d/.tether/objects/zarr/imaging.toml");
  CHECK(key_to_manifest_path(objects, "foo.bar") == "/d/.tether/objects/foo.bar.toml");
  CHECK_THROWS_AS(key_to_manifest_path(objects, "../escape"), tether::ConfigError);
  CHECK(manifest_path_to_key(objects, "/d/.tether/objects/zarr/imaging.toml") == "zarr/imaging");
  CHECK(manifest_path_to_key(objects, "/d/.tether/objects/foo.bar.toml") == "foo.bar");
  CHECK(manifest_path_to_key(objects, key_to_manifest_path(objects, "a/b.toml")) == "a/b.toml");
}

// Segments git refuses as a directory name (verify_path with core.protectNTFS, on by default,
// and core.protectHFS); tests/security/keys-git-reserved.sh checks each against real git.
TEST_CASE("git-reserved segments are unsafe in any position") {
  for (const char* seg : {".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", ".git::$INDEX_ALLOCATION", ".git:x",
                          "git~1", "GIT~1", "git~1.", "git~1:x",
                          ".g\xe2\x80\x8cit",              // U+200C ZERO WIDTH NON-JOINER inside
                          ".GIT\xef\xbb\xbf",              // U+FEFF after
                          "\xe2\x80\x8e.git",              // U+200E before
                          ".g\xe2\x81\xaai\xe2\x80\xaet"}) {  // U+206A, U+202E
    CHECK_MESSAGE(is_git_reserved_segment(seg), seg);
    for (const std::string& key : {std::string(seg), std::string(seg) + "/x", "a/" + std::string(seg) + "/b",
                                  "a/" + std::string(seg)})
      CHECK_MESSAGE(!is_safe_key(key), key);
  }
}

TEST_CASE("names near .git stay safe") {
  for (const char* seg : {".gitx", ".git.toml", ".gitignore", ".gitmodules", ".git-x", "git", "git~2", "git~1x", "xgit~1",
                          ".git.x", ".git x", "a.git", "..git", ".gi", ".g\xe2\x80\x8bit" /* U+200B is not ignorable */,
                          ".git\xe2\x80\x8c" "x"}) {
    CHECK_MESSAGE(!is_git_reserved_segment(seg), seg);
    CHECK_MESSAGE(is_safe_key(std::string("a/") + seg + "/b"), seg);
  }
}

TEST_CASE("validate_key names the git-reserved segment and the way out") {
  CHECK_THROWS_WITH_AS(validate_key("a/.GIT/b"),
                       "unsafe object key: 'a/.GIT/b' (git reserves the path segment '.GIT' and would not store the "
                       "manifest; choose another key)",
                       tether::ConfigError);
  CHECK_THROWS_WITH_AS(key_to_manifest_path("/d/.tether/objects", ".git/x"),
                       doctest::Contains("git reserves the path segment '.git'"), tether::ConfigError);
}
