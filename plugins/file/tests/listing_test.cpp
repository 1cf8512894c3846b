// Listing text and diffs. Expected listing lines are Python's json.dumps({"p": p, "k": k,
// "s": s}, separators=(",", ":")) + "\n" (ensure_ascii on); the escaper itself is tested in
// support/src/json_escape_test.cpp.
#include <doctest/doctest.h>

#include <limits>

#include "listing.hpp"
#include "support.hpp"
#include "tether/sdk/error.hpp"

namespace tether::file::test {

TEST_CASE("listing lines are byte-identical to Python's json.dumps") {
  Rows rows{{"\xc3\xa9/a b", "x", 1}};
  CHECK(render_listing(rows) == "{\"p\":\"\\u00e9/a b\",\"k\":\"x\",\"s\":1}\n");
  // json.dumps({"p": "\U0001F600\x7f\x01\"\\/\t", "k": "x", "s": 1}, separators=(",", ":"))
  Rows hard{{"\xf0\x9f\x98\x80\x7f\x01\"\\/\t", "x", 1}};
  CHECK(render_listing(hard) == "{\"p\":\"\\ud83d\\ude00\\u007f\\u0001\\\"\\\\/\\t\",\"k\":\"x\",\"s\":1}\n");
  CHECK(render_listing(Rows{}) == "");
  Rows two{{"a", "k1", 0}, {"b", "k2", 12345678901}};
  CHECK(render_listing(two) == "{\"p\":\"a\",\"k\":\"k1\",\"s\":0}\n{\"p\":\"b\",\"k\":\"k2\",\"s\":12345678901}\n");
}

TEST_CASE("human sizes follow the reference's _human") {
  // Values printed by the reference formula in Python.
  CHECK(human_size(0) == "+0 B");
  CHECK(human_size(5) == "+5 B");
  CHECK(human_size(-5) == "-5 B");
  CHECK(human_size(1023) == "+1023 B");
  CHECK(human_size(1024) == "+1.0 KiB");
  CHECK(human_size(1100) == "+1.1 KiB");
  CHECK(human_size(1536) == "+1.5 KiB");
  CHECK(human_size(-2048) == "-2.0 KiB");
  CHECK(human_size(3145729) == "+3.0 MiB");
  CHECK(human_size(5497558138880) == "+5.0 TiB");
  CHECK(human_size(3377699720527872) == "+3072.0 TiB");
}

TEST_CASE("parse_listing reads rows, skips blank lines, names a corrupt side") {
  auto rows = parse_listing("{\"p\":\"b\",\"k\":\"2\",\"s\":3}\n\n{\"p\":\"a\",\"k\":\"1\",\"s\":1}\n", "a");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].first == "a");
  CHECK(rows[1].second.size == 3);
  CHECK_THROWS_WITH_AS(parse_listing("{\"p\":\"a\"}\nnot json\n", "b"),
                       doctest::Contains("corrupt listing for side b at line 1"), sdk::BackendError);
}

namespace {
Json dir_state(const char* digest, int count, int size) {
  return Json{{"type", "dir"}, {"count", count}, {"size", size}, {"digest", digest}};
}
}  // namespace

TEST_CASE("diff of two directory listings") {
  std::string a = "{\"p\":\"keep\",\"k\":\"k\",\"s\":1}\n{\"p\":\"mod\",\"k\":\"m1\",\"s\":10}\n"
                  "{\"p\":\"gone\",\"k\":\"g\",\"s\":2048}\n";
  std::string b = "{\"p\":\"keep\",\"k\":\"k\",\"s\":1}\n{\"p\":\"mod\",\"k\":\"m2\",\"s\":16}\n"
                  "{\"p\":\"new\",\"k\":\"n\",\"s\":5}\n";
  auto d = diff_states("/data", dir_state("d1", 3, 2059), dir_state("d2", 3, 22), a, b);
  CHECK(d.unit == "files");
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
  CHECK(d.modified == 1);
  REQUIRE(d.entries.size() == 3);
  // Union of paths in sorted order.
  CHECK(d.entries[0].path == "gone");
  CHECK(d.entries[0].change == "removed");
  CHECK(d.entries[0].detail == "-2.0 KiB");
  CHECK(d.entries[1].path == "mod");
  CHECK(d.entries[1].change == "modified");
  CHECK(d.entries[1].detail == "+6 B");
  CHECK(d.entries[2].path == "new");
  CHECK(d.entries[2].change == "added");
  CHECK(d.entries[2].detail == "+5 B");
  CHECK(d.summary() == "+1 -1 ~1 files");

  // Equal digests: nothing, even without listings.
  CHECK(diff_states("/data", dir_state("d1", 3, 1), dir_state("d1", 3, 1), std::nullopt, std::nullopt).empty());
}

TEST_CASE("diff degrades to a summary entry when a listing is missing") {
  auto d = diff_states("/data", dir_state("d1", 3, 100), dir_state("d2", 5, 50), std::nullopt, std::string("x"));
  CHECK(d.note == "no stored listing for side a");
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].path == "(summary)");
  CHECK(d.entries[0].change == "modified");
  CHECK(d.entries[0].detail == "3 -> 5 files, -50 B");
  CHECK(d.summary() == "+0 -0 ~1 files; no stored listing for side a");
  auto both = diff_states("/data", dir_state("d1", 0, 0), dir_state("d2", 1, 1), std::nullopt, std::nullopt);
  CHECK(both.note == "no stored listing for side a and b");
  auto side_b = diff_states("/data", dir_state("d1", 0, 0), dir_state("d2", 1, 1), std::string(), std::nullopt);
  CHECK(side_b.note == "no stored listing for side b");
}

TEST_CASE("single-file states diff as one modified entry") {
  Json a{{"type", "file"}, {"size", 6}, {"sha256", "aaaaaaaaaaaaaaaaaaaa"}};
  Json b{{"type", "file"}, {"size", 12}, {"sha256", "bbbbbbbbbbbbbbbbbbbb"}};
  auto d = diff_states("/data/x.csv", a, b, std::nullopt, std::nullopt);
  CHECK(d.unit == "objects");
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].path == "/data/x.csv");
  CHECK(d.entries[0].change == "modified");
  CHECK(d.entries[0].detail == "size +6 B, sha256 aaaaaaaaaaaa -> bbbbbbbbbbbb");
  CHECK(diff_states("/data/x.csv", a, a, std::nullopt, std::nullopt).empty());
  Json o1{{"type", "object"}, {"size", 1}, {"etag", "a"}, {"version_id", "v1"}};
  Json o2{{"type", "object"}, {"size", 1}, {"etag", "b"}, {"version_id", "v2"}};
  CHECK(diff_states("s3://b/k", o1, o2, std::nullopt, std::nullopt).entries[0].detail == "etag a -> b, version v1 -> v2");
  // Absent values print as Python's None.
  Json old_format{{"type", "file"}, {"size", 6}, {"mtime_ns", 5}};
  CHECK(diff_states("/x", old_format, a, std::nullopt, std::nullopt).entries[0].detail == "sha256 None -> aaaaaaaaaaaa");
}

TEST_CASE("sizes from a clone's states and listings cannot overflow (fuzz/corpus/listing/states)") {
  // A float size beyond int64 is refused, not converted (undefined behaviour before).
  Json huge{{"type", "file"}, {"size", 1e300}, {"sha256", "a"}};
  Json small{{"type", "file"}, {"size", 1}, {"sha256", "b"}};
  CHECK_THROWS_AS(diff_states("/x", huge, small, std::nullopt, std::nullopt), sdk::BackendError);
  CHECK(state_int(Json{{"s", -2.5}}, "s") == -2);
  // Differences of extreme sizes saturate.
  Json lowest{{"type", "file"}, {"size", std::numeric_limits<int64_t>::min()}, {"sha256", "c"}};
  Json highest{{"type", "file"}, {"size", std::numeric_limits<int64_t>::max()}, {"sha256", "d"}};
  CHECK(diff_states("/x", lowest, highest, std::nullopt, std::nullopt).entries[0].detail.find("size +8388608.0 TiB") == 0);
  std::string la = "{\"p\":\"a\",\"k\":\"x\",\"s\":-9223372036854775808}\n";
  std::string lb = "{\"p\":\"a\",\"k\":\"y\",\"s\":9223372036854775807}\n";
  auto d = diff_states("/d", dir_state("d1", 1, 0), dir_state("d2", 1, 0), la, lb);
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].detail == "+8388608.0 TiB");
  auto removed = diff_states("/d", dir_state("d1", 1, 0), dir_state("d2", 0, 0), la, std::string());
  CHECK(removed.entries[0].detail == "+8388608.0 TiB");
}

TEST_CASE("a listing line nested past the JSON limit is a corrupt listing (fuzz/corpus/listing)") {
  std::string deep = "{\"p\":\"a\",\"k\":" + std::string(200000, '[') + std::string(200000, ']') + ",\"s\":1}\n";
  try {
    parse_listing(deep, "a");
    FAIL("no error");
  } catch (const sdk::BackendError& e) {
    CHECK(std::string(e.what()) == "corrupt listing for side a at line 1: nesting deeper than 128 levels");
  }
}

}  // namespace tether::file::test
