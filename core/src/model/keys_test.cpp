// Tests of model/keys: key validation (spec §2.3) and the key <-> path mapping.
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
