// Tests of model/hash and model/names. The expected hex strings were computed independently
// with Python 3.11's hashlib.blake2b and json.dumps, implementing docs/FORMAT.md directly:
//   cb = lambda x: json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
//   def B(*parts, size):
//       h = hashlib.blake2b(digest_size=size)
//       for p in parts: h.update(len(p).to_bytes(8, "big")); h.update(p)
//       return h.hexdigest()
//   pin_id = ds[:8] + "." + B(cb(kind), cb(identity), cb(content_state), size=16)[:16]
//   listing = B(cb(kind), cb(identity), cb(content_state), size=16)[:20] + ".jsonl"
//   slug = re.sub(r"[^0-9A-Za-z_-]+", "-", b).strip("-"); if slug != b: (slug or "bm") + "-" + B(cb(b), size=8)[:6]
#include <doctest/doctest.h>

#include <set>

#include "tether/model/framed_hash.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"

using namespace tether::model;

TEST_CASE("blake2b_hex vectors (hashlib.blake2b(data, digest_size=16))") {
  CHECK(blake2b_hex("", 16) == "cae66941d9efbd404e4d88758ea67670");  // the empty directory's digest
  CHECK(blake2b_hex(std::string("a.txt\0abc\0", 10), 16) == "31f834106cf5ca179ed0d5c7b158658a");
  CHECK_THROWS(blake2b_hex("x", 0));
}

TEST_CASE("framed_blake2b vectors") {
  CHECK(framed_blake2b({}, 32) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  CHECK(framed_blake2b({"abc"}, 16) == "8805143fe8adeb645b130ac6e0e66acd");
  CHECK(framed_blake2b({"", "x"}, 8) == "f7e17ce9d6f1f6da");
  CHECK(framed_blake2b({"abc", "def"}, 64) ==
        "293bf4fee0bd98b473c92baa20b8dafcaf7f2341635c73bf3d77efdefdc3d4ec3a5d8aa79195e4342113a8d07f2a3324cc157a7abdad09c059ac1cbdcbb3c06d");
  // Framing: the split between parts matters.
  CHECK(framed_blake2b({"ab", "c"}, 16) != framed_blake2b({"a", "bc"}, 16));
  CHECK_THROWS(framed_blake2b({"x"}, 0));
  CHECK_THROWS(framed_blake2b({"x"}, 65));
}

TEST_CASE("FramedBlake2b: part by part, the same digests; a copied state continues on its own") {
  FramedBlake2b empty(32);
  CHECK(empty.hex() == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  FramedBlake2b h(64);
  h.add("abc");
  FramedBlake2b fork = h;  // the state after "abc"
  CHECK(h.hex() == framed_blake2b({"abc"}, 64));
  CHECK(h.hex() == h.hex());  // hex() does not consume the state
  h.add("def");
  CHECK(h.hex() ==
        "293bf4fee0bd98b473c92baa20b8dafcaf7f2341635c73bf3d77efdefdc3d4ec3a5d8aa79195e4342113a8d07f2a3324cc157a7abdad09c059ac1cbdcbb3c06d");
  fork.add("xyz");
  CHECK(fork.hex() == framed_blake2b({"abc", "xyz"}, 64));
  CHECK(fork.hex() != h.hex());
  FramedBlake2b split(16);
  split.add("");
  split.add("x");
  CHECK(split.hex() == framed_blake2b({"", "x"}, 16));
  CHECK_THROWS(FramedBlake2b(0));
  CHECK_THROWS(FramedBlake2b(65));
}

TEST_CASE("pin ids and listing names") {
  const Json file_state = {{"type", "dir"}, {"count", 3}, {"size", 1234}, {"digest", "abababababababababababababababab"}};
  CHECK(pin_id("0a1b2c3d", "file", Json{{"uri", "/data/raw"}}, file_state) == "0a1b2c3d.8c1bceeb110a87b4");
  CHECK(listing_name("file", Json{{"uri", "/data/raw"}}, file_state) == "8c1bceeb110a87b4e3c4.jsonl");
  CHECK(pin_id("0a1b2c3d", "icechunk", Json{{"uri", "s3://b/r.icechunk"}}, Json{{"snapshot_id", "1CECHNKREP0F1RSTCMT0"}}) ==
        "0a1b2c3d.9eeb937cc7682417");
  // Non-ASCII identity, nested state, floats, nulls and escapes all go through cb().
  const Json identity = {{"path", "/tmp/d\xc3\xa4t\xc3\xa4/\xe6\x97\xa5\xe6\x9c\xac"}};
  const Json state = Json::parse(R"({"sha":"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee","n":1.5,
      "nested":{"b":[1,null,true],"a":"x\"y\\z\n\u0001/"}})");
  CHECK(pin_id("deadbeef", "git", identity, state) == "deadbeef.8fd2c2b41461646f");
  CHECK(pin_ref("0a1b2c3d.8c1bceeb110a87b4") == "tether.0a1b2c3d.8c1bceeb110a87b4");
}

TEST_CASE("pin_dataset and pin_id_of_ref") {
  CHECK(pin_dataset("0a1b2c3d.deb4861eb388e5f6") == "0a1b2c3d");
  CHECK_FALSE(pin_dataset("0A1B2C3D.deb4861eb388e5f6"));
  CHECK_FALSE(pin_dataset("0a1b2c3d."));
  CHECK_FALSE(pin_dataset("0a1b2c3d.ab.cd"));
  CHECK_FALSE(pin_dataset("deb4861eb388"));  // legacy pre-a8 id
  CHECK(pin_id_of_ref("tether.0a1b2c3d.deb4861eb388e5f6") == "0a1b2c3d.deb4861eb388e5f6");
  CHECK(pin_id_of_ref("tether.0a1b2c3d.deb4861eb388e5f6.2") == "0a1b2c3d.deb4861eb388e5f6");
  CHECK(pin_id_of_ref("tether.0a1b2c3d.deb4861eb388e5f6.17") == "0a1b2c3d.deb4861eb388e5f6");
  CHECK_FALSE(pin_id_of_ref("tether.0a1b2c3d.deb4861eb388e5f6.x"));
  CHECK_FALSE(pin_id_of_ref("tether.deb4861eb388"));
  CHECK_FALSE(pin_id_of_ref("tether.ws.0a1b2c3d.main"));
  CHECK_FALSE(pin_id_of_ref("refs/tags/0a1b2c3d.deb4861eb388e5f6"));
}

TEST_CASE("bookmark slugs and working-ref names (the examples of docs/FORMAT.md)") {
  CHECK(bookmark_slug("relabel-v3") == "relabel-v3");
  CHECK(working_ref_name("0a1b2c3d", "relabel-v3") == "tether.ws.0a1b2c3d.relabel-v3");
  CHECK(bookmark_slug("feat/x") == "feat-x-cdd300");
  CHECK(working_ref_name("0a1b2c3d", "feat/x") == "tether.ws.0a1b2c3d.feat-x-cdd300");
  CHECK(bookmark_slug("main") == "main");
  CHECK(bookmark_slug("feat_Y") == "feat_Y");
  CHECK(bookmark_slug("--") == "bm-fc6cc0");
  CHECK(bookmark_slug("\xe6\x97\xa5\xe6\x9c\xac") == "bm-8cc3d3");
  CHECK(bookmark_slug("a b  c") == "a-b-c-2a80f0");
  CHECK(bookmark_slug("-x-") == "x-e46f52");
}

TEST_CASE("parse_working_ref") {
  auto p = parse_working_ref("tether.ws.0a1b2c3d.relabel-v3");
  REQUIRE(p);
  CHECK(p->dataset_id == "0a1b2c3d");
  CHECK(p->tail == "relabel-v3");
  CHECK_FALSE(p->workspace);
  CHECK_FALSE(p->generation);

  p = parse_working_ref("tether.ws.0a1b2c3d.relabel-v3.2");
  REQUIRE(p);
  CHECK(p->tail == "relabel-v3");
  CHECK(p->generation == 2);

  p = parse_working_ref("tether.ws.0a1b2c3d.1234abcd.zarr-imaging-4aafff");
  REQUIRE(p);
  CHECK(p->legacy());
  CHECK(p->workspace == "1234abcd");
  CHECK(p->tail == "zarr-imaging-4aafff");

  CHECK_FALSE(parse_working_ref("tether.ws.0a1b2c3d."));
  CHECK_FALSE(parse_working_ref("tether.ws.0a1b2c3d"));
  CHECK_FALSE(parse_working_ref("tether.ws.XYZ.main"));
  CHECK_FALSE(parse_working_ref("tether.0a1b2c3d.main"));
}

TEST_CASE("legacy key slugs and digests") {
  CHECK(slugify_key("zarr/imaging") == "zarr-imaging");
  CHECK(key_digest6("zarr/imaging") == "4aafff");
  CHECK(slugify_key("Raw Data!") == "raw-data");
  CHECK(key_digest6("Raw Data!") == "19088b");
  CHECK(slugify_key("///") == "obj");
  CHECK(slugify_key("\xc3\x9cn\xc3\xaf" "code") == "n-code");
  CHECK(key_digest6("\xc3\x9cn\xc3\xaf" "code") == "88f380");
}

TEST_CASE("owner marker") {
  CHECK(owner_ref("0a1b2c3d") == "tether.owner.0a1b2c3d");
  CHECK(owner_from_ref("tether.owner.0a1b2c3d") == "0a1b2c3d");
  CHECK_FALSE(owner_from_ref("tether.0a1b2c3d"));
}

TEST_CASE("random ids have the right shape and differ") {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    const auto ds = new_dataset_id();
    const auto ws = new_workspace_id();
    const auto op = new_op_id();
    CHECK(is_dataset_id(ds));
    CHECK(is_lower_hex(ws, 32));
    CHECK(ws[12] == '4');
    CHECK(std::string("89ab").find(ws[16]) != std::string::npos);
    CHECK(is_lower_hex(op, 12));
    seen.insert(ws);
  }
  CHECK(seen.size() == 50);
  CHECK_FALSE(is_dataset_id("0a1b2c3"));
  CHECK_FALSE(is_dataset_id("0a1b2c3g"));
}
