// Tests of registry/parquet: the ISO-8601 parser, the Thrift compact encoder (bytes worked out
// by hand from the compact-protocol spec) and the file framing. That real readers accept the
// files is checked with DuckDB by tests/registry/read-parquet.mjs.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "registry/thrift_compact.hpp"
#include "tether/errors.hpp"
#include "tether/registry/registry.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::registry;
using tether::testing::TempDir;

namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint32_t le32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
  return v;
}

const TableDef& sample_def() {
  static const TableDef def{"sample", "", {{"name", Type::Text, ""}, {"n", Type::Int, ""}, {"ok", Type::Bool, ""},
                                           {"at", Type::Timestamp, ""}, {"meta", Type::Json, ""}},
                            {"name"}, Group::Replaced};
  return def;
}

}  // namespace

TEST_CASE("iso_to_micros: the epoch, offsets and fractions") {
  CHECK(iso_to_micros("1970-01-01T00:00:00+00:00") == 0);
  CHECK(iso_to_micros("1970-01-01T00:00:00Z") == 0);
  CHECK(iso_to_micros("1970-01-01 00:00:00z") == 0);
  // date -u -d 2026-09-20T12:00:00Z +%s
  CHECK(iso_to_micros("2026-09-20T12:00:00+00:00") == 1789905600LL * 1000000);
  CHECK(iso_to_micros("2026-09-20T14:00:00+02:00") == 1789905600LL * 1000000);
  CHECK(iso_to_micros("2026-09-20T14:00:00+0200") == 1789905600LL * 1000000);
  CHECK(iso_to_micros("2026-09-20T06:30:00-05:30") == 1789905600LL * 1000000);
  CHECK(iso_to_micros("2026-09-20T12:00:00.5Z") == 1789905600LL * 1000000 + 500000);
  CHECK(iso_to_micros("2026-09-20T12:00:00.000001+00:00") == 1789905600LL * 1000000 + 1);
  CHECK(iso_to_micros("2026-09-20T12:00:00.123456789Z") == 1789905600LL * 1000000 + 123456);  // truncated
  CHECK(iso_to_micros("1969-12-31T23:59:59.999999Z") == -1);
  CHECK(iso_to_micros("1900-01-01T00:00:00Z") == -2208988800LL * 1000000);
  CHECK(iso_to_micros("2000-02-29T23:59:59Z") == 951868799LL * 1000000);
}

TEST_CASE("iso_to_micros: what does not parse") {
  for (const char* bad : {"", "garbage", "2026-09-20", "2026-09-20T12:00:00", "2026-09-20T12:00:00+",
                          "2026-09-20T12:00:00+2", "2026-09-20T12:00:00.Z", "2026-09-20T12:00:00Zx",
                          "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2001-02-29T00:00:00Z",
                          "2026-04-31T00:00:00Z", "2026-09-20T24:00:00Z", "2026-09-20T12:60:00Z",
                          "2026-09-20T12:00:60Z", "2026-09-20T12:00:00+24:00", "26-09-20T12:00:00Z",
                          "2026-09-20X12:00:00Z", "2026-09-20T12:00Z"})
    CHECK_MESSAGE(!iso_to_micros(bad).has_value(), bad);
}

TEST_CASE("thrift compact: zigzag and varints") {
  using thrift::CompactWriter;
  CHECK(CompactWriter::zigzag(0) == 0);
  CHECK(CompactWriter::zigzag(-1) == 1);
  CHECK(CompactWriter::zigzag(1) == 2);
  CHECK(CompactWriter::zigzag(-2) == 3);
  CHECK(CompactWriter::zigzag(std::numeric_limits<std::int64_t>::max()) == std::numeric_limits<std::uint64_t>::max() - 1);
  CHECK(CompactWriter::zigzag(std::numeric_limits<std::int64_t>::min()) == std::numeric_limits<std::uint64_t>::max());
  std::string out;
  CompactWriter w(out);
  w.varint(0);
  w.varint(127);
  w.varint(128);
  w.varint(300);
  CHECK(out == bytes({0x00, 0x7f, 0x80, 0x01, 0xac, 0x02}));
}

TEST_CASE("thrift compact: field headers, nested structs and lists") {
  using thrift::CType;
  std::string out;
  thrift::CompactWriter w(out);
  w.field_i32(1, 1);           // delta 1, i32: 0x15, zigzag(1) = 2
  w.field_i64(3, 300);         // delta 2, i64: 0x26, zigzag(300) = 600 = d8 04
  w.field_binary(20, "ab");    // delta 17 > 15: long form 0x08, zigzag(20) = 40, len 2
  w.field_bool(2, true);       // delta negative: long form 0x01, zigzag(2) = 4
  w.begin_struct_field(5);     // delta 3, struct: 0x3c
  w.field_bool(1, false);      // ids restart inside the struct: 0x12
  w.field_i8(2, 64);           // 0x13 0x40
  w.end_struct();              // 0x00
  w.begin_list_field(6, CType::I32, 2);  // back to the outer id 5: delta 1, 0x19; list 0x25
  w.elem_i32(0);
  w.elem_i32(-3);
  w.begin_list_field(7, CType::Binary, 15);  // 15 elements: long list header 0xf8, 15
  for (int i = 0; i < 15; ++i) w.elem_binary("");
  w.begin_list_field(8, CType::Struct, 1);
  w.begin_struct();
  w.end_struct();
  w.end_struct();
  std::string want = bytes({0x15, 0x02, 0x26, 0xd8, 0x04, 0x08, 0x28, 0x02, 'a', 'b', 0x01, 0x04, 0x3c, 0x12, 0x13, 0x40,
                            0x00, 0x19, 0x25, 0x00, 0x05, 0x19, 0xf8, 0x0f});
  want += std::string(15, '\0');
  want += bytes({0x19, 0x1c, 0x00, 0x00});
  CHECK(out == want);
}

TEST_CASE("parquet: framing of a small file") {
  TempDir tmp;
  Table t(sample_def());
  t.add_row({Cell::text("a"), Cell::integer(-1), Cell::boolean(true), Cell::text("2026-09-20T12:00:00Z"),
             Cell::text("{}")});
  t.add_row({Cell::null(), Cell::null(), Cell::null(), Cell::null(), Cell::null()});
  const auto path = tmp.path() / "sample.parquet";
  write_parquet(t, path);
  const std::string f = slurp(path);
  REQUIRE(f.size() > 12);
  CHECK(f.substr(0, 4) == "PAR1");
  CHECK(f.substr(f.size() - 4) == "PAR1");
  const std::uint32_t footer = le32(f, f.size() - 8);
  REQUIRE(footer + 12 < f.size());
  const std::size_t start = f.size() - 8 - footer;
  // FileMetaData: version 1, then a list of 6 schema elements (root + 5 columns) ...
  CHECK(f.substr(start, 4) == bytes({0x15, 0x02, 0x19, 0x6c}));
  // ... and last created_by (field 6, after row_groups 4: delta 2, binary) and the stop byte.
  const std::string created = "tether " TETHER_VERSION;
  CHECK(f.substr(f.size() - 8 - created.size() - 3) == bytes({0x28, static_cast<int>(created.size())}) + created +
                                                         bytes({0x00}) + f.substr(f.size() - 8));
  // The first page header follows the magic: DATA_PAGE (0), uncompressed size, ...
  CHECK(f.substr(4, 2) == bytes({0x15, 0x00}));
  // Nothing but the file is left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(tmp.path()), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("parquet: an empty table is magic, footer, length, magic") {
  TempDir tmp;
  Table t(sample_def());
  const auto path = tmp.path() / "empty.parquet";
  write_parquet(t, path);
  const std::string f = slurp(path);
  CHECK(f.substr(0, 4) == "PAR1");
  CHECK(f.substr(f.size() - 4) == "PAR1");
  CHECK(le32(f, f.size() - 8) + 12 == f.size());
  // num_rows 0 (field 3, i64) and an empty row_groups list (field 4, list of struct).
  CHECK(f.find(bytes({0x16, 0x00, 0x19, 0x0c})) != std::string::npos);
}

TEST_CASE("parquet: refusals name the table, the column, the value and the path") {
  TempDir tmp;
  const auto path = tmp.path() / "bad.parquet";
  Table t(sample_def());
  t.add_row({Cell::text("a"), Cell::integer(1), Cell::boolean(false), Cell::text("yesterday"), Cell::null()});
  CHECK_THROWS_WITH_AS(write_parquet(t, path),
                       doctest::Contains("table sample, column at (timestamp), row 0: 'yesterday' is not an ISO-8601"),
                       tether::TetherError);
  CHECK_THROWS_WITH_AS(write_parquet(t, path), doctest::Contains(path.c_str()), tether::TetherError);
  CHECK(!std::filesystem::exists(path));

  Table wrong(sample_def());
  wrong.add_row({Cell::text("a"), Cell::text("1"), Cell::null(), Cell::null(), Cell::null()});
  CHECK_THROWS_WITH_AS(write_parquet(wrong, path), doctest::Contains("column n (int), row 0: not an integer cell"),
                       tether::TetherError);

  Table ok(sample_def());
  CHECK_THROWS_WITH_AS(write_parquet(ok, tmp.path() / "missing" / "x.parquet"),
                       doctest::Contains((tmp.path() / "missing" / "x.parquet").c_str()), tether::TetherError);
}
