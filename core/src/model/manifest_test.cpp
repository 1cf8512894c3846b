// Tests of model/manifest: parse, write, round-trip, canonical form, loading and the manifest
// hash. The canonical strings and hashes were computed with Python 3.11:
//   canon = cb({"key","kind","locator","policy","state","pin","recoverable"}).decode()
//   manifest_hash = B(*[cb([k, canon_k]) for k in sorted(keys)], size=32)   (cb, B as in hash_test.cpp)
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "model/test_util.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"
#include "tether/model/manifest.hpp"

using namespace tether::model;
using tether::model::testing::TempDir;
using tether::model::testing::write_text;

namespace {

ObjectManifest raw_manifest() {
  ObjectManifest m;
  m.key = "raw";
  m.kind = "file";
  m.recoverable = false;
  m.captured_at = "2024-05-01T12:00:00.123456+00:00";
  m.locator = {{"uri", "/data/raw"}};
  m.state = Json{{"type", "dir"}, {"count", 3}, {"size", 1234}, {"digest", "abababababababababababababababab"}};
  return m;
}

ObjectManifest zarr_manifest() {
  ObjectManifest m;
  m.key = "zarr/imaging";
  m.kind = "icechunk";
  m.origin = "created";
  m.locator = {{"uri", "s3://b/r.icechunk"}, {"branch", "main"}};
  m.state = Json{{"snapshot_id", "1CECHNKREP0F1RSTCMT0"}};
  m.pin = tether::sdk::Pin{"0a1b2c3d.9eeb937cc7682417", "tether.0a1b2c3d.9eeb937cc7682417", false};
  return m;
}

ObjectManifest new_manifest() {
  ObjectManifest m;
  m.key = "new";
  m.kind = "git";
  m.policy = {"versioned", "record"};
  return m;
}

}  // namespace

TEST_CASE("canonical form excludes captured_at and origin") {
  CHECK(raw_manifest().canonical() ==
        R"({"key":"raw","kind":"file","locator":{"uri":"/data/raw"},"pin":null,"policy":{"file":"immutable","pin":"native"},)"
        R"("recoverable":false,"state":{"count":3,"digest":"abababababababababababababababab","size":1234,"type":"dir"}})");
  CHECK(new_manifest().canonical() ==
        R"({"key":"new","kind":"git","locator":{},"pin":null,"policy":{"file":"versioned","pin":"record"},"recoverable":true,"state":null})");
  auto a = zarr_manifest();
  auto b = a;
  b.origin.reset();
  b.captured_at = "2030-01-01T00:00:00+00:00";
  CHECK(a.canonical() == b.canonical());
}

TEST_CASE("manifest hash vectors") {
  std::map<std::string, ObjectManifest> ms;
  ms["raw"] = raw_manifest();
  CHECK(manifest_hash(ms) == "6858eab9b2d839f6d2c25812e08cbb46645082918418560279f9a924532312f4");
  ms["zarr/imaging"] = zarr_manifest();
  ms["new"] = new_manifest();
  CHECK(manifest_hash(ms) == "a31df1b569f3b4b13512aeef77f0b4e3fd5e9dd14d761a4340af29d1517fdf5f");
  CHECK(manifest_hash({}) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
}

TEST_CASE("manifest TOML is written in the field order of docs/FORMAT.md and round-trips") {
  const auto m = zarr_manifest();
  const std::string text = manifest_to_toml(m);
  CHECK(text ==
        "key = \"zarr/imaging\"\n"
        "kind = \"icechunk\"\n"
        "recoverable = true\n"
        "origin = \"created\"\n"
        "\n[locator]\n"
        "branch = \"main\"\n"
        "uri = \"s3://b/r.icechunk\"\n"
        "\n[policy]\n"
        "file = \"immutable\"\n"
        "pin = \"native\"\n"
        "\n[state]\n"
        "snapshot_id = \"1CECHNKREP0F1RSTCMT0\"\n"
        "\n[pin]\n"
        "id = \"0a1b2c3d.9eeb937cc7682417\"\n"
        "ref = \"tether.0a1b2c3d.9eeb937cc7682417\"\n");
  CHECK(parse_manifest(text, "x.toml") == m);
  CHECK(parse_manifest(manifest_to_toml(raw_manifest()), "x.toml") == raw_manifest());
  CHECK(parse_manifest(manifest_to_toml(new_manifest()), "x.toml") == new_manifest());
}

TEST_CASE("states keep value types through TOML; nulls are dropped") {
  auto m = raw_manifest();
  m.state = Json::parse(R"({"size": 123, "big": 9007199254740993, "ratio": 0.5, "dirty": false,
      "name": "d\u00e4t\"a\\\n", "nested": {"a": {"b": [1, 2, {"c": "x"}]}, "gone": null},
      "list": ["x", null, 3], "empty": {}, "neg": -1, "weird key.with dot": 1})");
  m.locator = Json::parse(R"({"uri": "/x", "storage_options": {"region": "eu"}, "drop": null})");
  const auto back = parse_manifest(manifest_to_toml(m), "x.toml");
  REQUIRE(back.state);
  CHECK((*back.state)["size"].is_number_integer());
  CHECK((*back.state)["size"] == 123);
  CHECK((*back.state)["big"] == 9007199254740993LL);
  CHECK((*back.state)["ratio"] == 0.5);
  CHECK((*back.state)["dirty"] == false);
  CHECK((*back.state)["name"] == "d\xc3\xa4t\"a\\\n");
  CHECK((*back.state)["nested"] == Json::parse(R"({"a": {"b": [1, 2, {"c": "x"}]}})"));
  CHECK((*back.state)["list"] == Json::parse(R"(["x", 3])"));
  CHECK((*back.state)["empty"] == Json::object());
  CHECK((*back.state)["neg"] == -1);
  CHECK((*back.state)["weird key.with dot"] == 1);
  CHECK(back.locator == Json::parse(R"({"uri": "/x", "storage_options": {"region": "eu"}})"));
  // The canonical form already ignores the nulls that the file cannot hold.
  CHECK(back.canonical() == m.canonical());
}

TEST_CASE("manifest parse errors name the file") {
  CHECK_THROWS_WITH_AS(parse_manifest("kind = \"file\"\n", ".tether/objects/raw.toml"),
                       ".tether/objects/raw.toml: object manifest missing 'key'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"raw\"\n", ".tether/objects/raw.toml"),
                       ".tether/objects/raw.toml: object manifest missing 'kind'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"raw\"\nkind = \"file\"\n[policy]\nfile = \"x\"\n", "m.toml"),
                       "m.toml: invalid policy.file: 'x'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"raw\"\nkind = \"file\"\n[policy]\npin = 3\n", "m.toml"),
                       "m.toml: invalid policy.pin: 3", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"../x\"\nkind = \"file\"\n", "m.toml"),
                       "m.toml: unsafe object key: '../x'", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"a\"\nkind = \"file\"\n", "m.toml", std::string("b")),
                       "m.toml: manifest key 'a' does not match its path (expected 'b')", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_manifest("key = \"a\"\nkind = \"file\"\nrecoverable = \"yes\"\n", "m.toml"),
                       "m.toml: 'recoverable' must be a boolean, not a string", tether::ConfigError);
  try {
    parse_manifest("key = \"raw\"\nkind = \"file\"\nstate = [\n", ".tether/objects/raw.toml");
    FAIL("expected a ConfigError");
  } catch (const tether::ConfigError& e) {
    CHECK(std::string(e.what()).rfind(".tether/objects/raw.toml:3: ", 0) == 0);
  }
}

TEST_CASE("legacy and defaulted fields") {
  const auto m = parse_manifest(
      "key = \"raw\"\nkind = \"file\"\n[locator]\nuri = \"/x\"\n[policy]\nwrite = \"fork\"\n[pin]\nid = \"0a1b2c3d.0011223344556677\"\n",
      "m.toml");
  CHECK(m.recoverable);
  CHECK(m.policy == Policy{});
  CHECK_FALSE(m.state);
  REQUIRE(m.pin);
  CHECK(m.pin->ref == "tether.0a1b2c3d.0011223344556677");
}

TEST_CASE("with_pin stamps captured_at with the time it is given") {
  const auto m = new_manifest().with_pin(Json{{"sha", "abc"}}, tether::sdk::Pin{"i", "r", true}, false,
                                         "2026-12-02T05:00:00.000001+00:00");
  REQUIRE(m.captured_at);
  CHECK(*m.captured_at == "2026-12-02T05:00:00.000001+00:00");
  CHECK(m.state == Json{{"sha", "abc"}});
  CHECK_FALSE(m.recoverable);
  CHECK(m.pin->id == "i");
}

TEST_CASE("load, write and remove manifests on disk") {
  TempDir tmp;
  const auto objects_at = tether_path(tmp.path(), "objects");
  const auto objects = objects_at.full();
  CHECK(load_manifests(objects_at).empty());
  write_manifest(objects_at, raw_manifest());
  write_manifest(objects_at, zarr_manifest());
  write_manifest(objects_at, new_manifest());
  auto deep = new_manifest();
  deep.key = "a/b/c";
  write_manifest(objects_at, deep);
  write_text(objects / "notes.txt", "ignored");

  const auto all = load_manifests(objects_at);
  REQUIRE(all.size() == 4);
  CHECK(all.at("zarr/imaging") == zarr_manifest());
  CHECK(all.at("a/b/c").key == "a/b/c");
  // No temp files are left behind by atomic writes.
  for (auto& e : std::filesystem::recursive_directory_iterator(objects))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);

  CHECK(remove_manifest(objects_at, "a/b/c"));
  CHECK_FALSE(std::filesystem::exists(objects / "a"));
  CHECK(std::filesystem::exists(objects));
  CHECK_FALSE(remove_manifest(objects_at, "a/b/c"));
  CHECK(remove_manifest(objects_at, "zarr/imaging"));
  CHECK_FALSE(std::filesystem::exists(objects / "zarr"));
  CHECK(load_manifests(objects_at).size() == 2);

  // A manifest whose key does not match its path is refused, naming the file.
  write_text(objects / "moved.toml", manifest_to_toml(raw_manifest()));
  CHECK_THROWS_WITH_AS(load_manifests(objects_at),
                       ".tether/objects/moved.toml: manifest key 'raw' does not match its path (expected 'moved')",
                       tether::ConfigError);
}

TEST_CASE("the layout before version 4: a key's manifest at its legacy path") {
  CHECK(legacy_manifest_path("foo.bar") == "foo.toml");
  CHECK(legacy_manifest_path("a/b.c.d") == "a/b.c.toml");
  CHECK(legacy_manifest_path("raw") == "raw.toml");
  CHECK(legacy_manifest_path(".hidden") == ".hidden.toml");  // no stem before the dot: nothing replaced

  TempDir tmp;
  const auto objects_at = tether_path(tmp.path(), "objects");
  const auto objects = objects_at.full();
  auto dotted = raw_manifest();
  dotted.key = "imaging.v2";
  write_text(objects / "imaging.toml", manifest_to_toml(dotted));
  write_manifest(objects_at, zarr_manifest());
  // Refused in the current layout, read in the legacy one.
  CHECK_THROWS_AS(load_manifests(objects_at), tether::ConfigError);
  const auto all = load_manifests(objects_at, /*legacy_layout=*/true);
  REQUIRE(all.size() == 2);
  CHECK(all.at("imaging.v2").key == "imaging.v2");
  // A key at neither its path nor its legacy path is still refused; so are two files of one key.
  write_text(objects / "elsewhere.toml", manifest_to_toml(raw_manifest()));
  CHECK_THROWS_WITH_AS(load_manifests(objects_at, true),
                       ".tether/objects/elsewhere.toml: manifest key 'raw' does not match its path (expected 'elsewhere')",
                       tether::ConfigError);
  std::filesystem::remove(objects / "elsewhere.toml");
  write_text(objects / "imaging.v2.toml", manifest_to_toml(dotted));
  CHECK_THROWS_AS(load_manifests(objects_at, true), tether::ConfigError);

  // A commit's file (history made before version 4): its path, or its key's legacy path.
  const std::string text = manifest_to_toml(dotted);
  CHECK(parse_manifest_file(text, "c:imaging.toml", "imaging.toml").key == "imaging.v2");
  CHECK(parse_manifest_file(text, "c:imaging.v2.toml", "imaging.v2.toml").key == "imaging.v2");
  CHECK_THROWS_WITH_AS(parse_manifest_file(text, "c:other.toml", "other.toml"),
                       "c:other.toml: manifest key 'imaging.v2' does not match its path (expected 'other')",
                       tether::ConfigError);
}
