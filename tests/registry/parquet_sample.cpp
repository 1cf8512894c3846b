// tests/registry/parquet_sample.cpp: writes hand-built Tables with our Parquet writer for
// read-parquet.mjs to read back with real DuckDB.
//
//   parquet_sample OUTDIR
//
// For each case NAME: OUTDIR/NAME.parquet, OUTDIR/NAME.jsonl with the rows DuckDB must return
// (one JSON array per row, in column order: null, text and json as strings, int as a decimal
// string (int64 does not fit a JSON number), bool as true/false, timestamp as its epoch
// microseconds in a decimal string), and OUTDIR/cases.json listing the cases with their column
// names and logical types. The expected microseconds are written down here or computed from
// the generator, never by iso_to_micros, so a parser bug shows up as a mismatch.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/registry/registry.hpp"

namespace fs = std::filesystem;
using namespace tether::registry;
using nlohmann::json;

namespace {

// A cell plus what DuckDB must give back for it (JSON null for a null cell).
struct Value {
  Cell cell;
  json expect;
};

Value null() { return {Cell::null(), nullptr}; }
Value text(std::string_view s) { return {Cell::text(s), std::string(s)}; }
Value integer(std::int64_t i) { return {Cell::integer(i), std::to_string(i)}; }
Value boolean(bool b) { return {Cell::boolean(b), b}; }
Value stamp(std::string_view iso, std::int64_t micros) { return {Cell::text(iso), std::to_string(micros)}; }

struct Case {
  const TableDef* def;
  std::vector<std::vector<Value>> rows;
  std::deque<std::string> arena;  // owns generated cell text (a deque never moves its strings)
  std::string_view keep(std::string s) { return arena.emplace_back(std::move(s)); }
};

constexpr std::int64_t kSecond = 1'000'000;
constexpr std::int64_t k20260920 = 1789905600LL * kSecond;  // date -u -d 2026-09-20T12:00:00Z +%s

TableDef all_types_def(std::string name) {
  return {std::move(name), "", {{"t", Type::Text, ""}, {"i", Type::Int, ""}, {"b", Type::Bool, ""},
                                {"ts", Type::Timestamp, ""}, {"j", Type::Json, ""}}, {"t"}, Group::Replaced};
}

void small(Case& c) {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  c.rows = {
      {text("hello"), integer(0), boolean(true), stamp("2026-09-20T12:00:00+00:00", k20260920), text(R"({"a":1})")},
      {text(""), integer(-1), boolean(false), stamp("2026-09-20T12:00:00Z", k20260920), text("{}")},
      {text("é"), integer(lo), boolean(true), stamp("2026-09-20T14:00:00+02:00", k20260920), text(R"(["é"])")},
      {text("日本"), integer(hi), boolean(false), stamp("2026-09-20T12:00:00.123456Z", k20260920 + 123456),
       text(R"({"k":"日本","n":null})")},
      {text("emoji 😀🎉"), integer(9007199254740993), null(), stamp("2026-09-20T06:30:00.5-05:30", k20260920 + 500000),
       null()},
      {null(), null(), null(), null(), null()},
      {text("quote \" backslash \\ newline \n tab \t"), integer(-9007199254740993), boolean(true),
       stamp("1969-12-31T23:59:59.999999+00:00", -1), text(R"({"s":"a\"b"})")},
      {null(), integer(42), boolean(false), stamp("1970-01-01T00:00:00Z", 0), text("[]")},
      {text("x"), null(), boolean(true), stamp("2000-02-29T23:59:59+00:00", 951868799LL * kSecond), text("1")},
      {text("y"), integer(7), null(), stamp("1900-01-01T00:00:00Z", -2208988800LL * kSecond), text("\"s\"")},
      {text("z"), integer(8), boolean(false), null(), text("true")},
      {text(c.keep(std::string(70000, 'w') + "é")), integer(9), boolean(true), stamp("2026-09-20T12:00:00,25Z", k20260920 + 250000),
       null()},
  };
}

void only_nulls(Case& c) {
  for (int r = 0; r < 20; ++r) c.rows.push_back({null(), null(), null(), null(), null()});
}

// Hinnant's civil_from_days, to format the generated timestamps.
void civil(std::int64_t days, int& y, unsigned& m, unsigned& d) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int>(static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2));
}

// `utc` written in the local time of `offset_minutes`, with `digits` fractional digits.
std::string iso(std::int64_t utc, int offset_minutes, int digits) {
  const std::int64_t local = utc + offset_minutes * 60 * kSecond;
  std::int64_t secs = local / kSecond, frac = local % kSecond;
  if (frac < 0) secs -= 1, frac += kSecond;
  std::int64_t days = secs / 86400, tod = secs % 86400;
  if (tod < 0) days -= 1, tod += 86400;
  int y = 0;
  unsigned mo = 0, d = 0;
  civil(days, y, mo, d);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", y, mo, d, static_cast<int>(tod / 3600),
                        static_cast<int>(tod / 60 % 60), static_cast<int>(tod % 60));
  std::string out(buf, static_cast<std::size_t>(n));
  if (digits > 0) {
    std::snprintf(buf, sizeof buf, ".%06" PRId64, frac);
    out.append(buf, 1 + static_cast<std::size_t>(digits));
  }
  if (offset_minutes == 0 && digits % 2 == 0) return out + "Z";
  const int a = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', a / 60, a % 60);
  return out + buf;
}

// 200,000 rows: several pages per column (64k rows; the json column reaches 1 MiB sooner),
// nulls in every column in runs, at random and in alternation, so the definition levels use
// both RLE and bit-packed runs.
void big(Case& c) {
  const char* names[] = {"plain", "é-accent", "日本語", "emoji 😀", ""};
  constexpr int kRows = 200000;
  c.rows.reserve(kRows);
  std::uint64_t rng = 0x9e3779b97f4a7c15ULL;
  for (int r = 0; r < kRows; ++r) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    std::vector<Value> row;
    // t: null in long runs (RLE) and nowhere else
    if ((r / 5000) % 7 == 3) row.push_back(null());
    else row.push_back(text(c.keep(std::string(names[r % 5]) + "#" + std::to_string(r))));
    // i: null at random (1 in 8), values spread over the whole int64 range
    if (rng % 8 == 0) row.push_back(null());
    else row.push_back(integer(r % 2 ? ~static_cast<std::int64_t>(rng) : static_cast<std::int64_t>(rng) / (r % 3 + 1)));
    // b: null on every third row (bit-packed literal runs)
    if (r % 3 == 1) row.push_back(null());
    else row.push_back(boolean(rng >> 40 & 1));
    // ts: a short null run every 1000 rows, offsets from -05:30 to +09:00, 0/3/6 fraction digits
    if (r % 1000 < 10) {
      row.push_back(null());
    } else {
      const int digits = (r % 3) * 3;
      std::int64_t utc = k20260920 + (r - 100000) * 3637LL * kSecond;
      if (digits) utc += static_cast<std::int64_t>(rng % 1000000) / (digits == 3 ? 1000 : 1) * (digits == 3 ? 1000 : 1);
      const int offsets[] = {0, 120, -330, 540, 0, 60};
      row.push_back(stamp(c.keep(iso(utc, offsets[r % 6], digits)), utc));
    }
    // j: never null
    row.push_back(text(c.keep(R"({"n":)" + std::to_string(r) + R"(,"tag":"日本","x":[1,2,3]})")));
    c.rows.push_back(std::move(row));
  }
}

// A real registry table, so the column names and types are the ones export writes.
void commits(Case& c) {
  c.rows = {
      {text("c0ffee"), null(), text("Ann Author"), text("ann@example.com"), stamp("2026-09-20T14:00:00+02:00", k20260920),
       stamp("2026-09-20T12:00:01Z", k20260920 + kSecond), text("first\n\nbody"), text("mh1")},
      {text("beef"), text("zzkq"), text("Bö"), null(), stamp("2026-09-20T12:00:00.000001+00:00", k20260920 + 1), null(),
       text(""), null()},
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: parquet_sample OUTDIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out);
  const TableDef small_def = all_types_def("small"), nulls_def = all_types_def("only_nulls"),
                 empty_def = all_types_def("empty"), big_def = all_types_def("big");
  struct Spec {
    const TableDef* def;
    void (*fill)(Case&);
  };
  const Spec specs[] = {{&small_def, small},
                        {&nulls_def, only_nulls},
                        {&empty_def, [](Case&) {}},
                        {&big_def, big},
                        {&table_def("commits"), commits}};
  json manifest = json::array();
  try {
    for (const Spec& spec : specs) {
      Case c{spec.def, {}, {}};
      spec.fill(c);
      Table table(*spec.def);
      table.reserve(c.rows.size());
      std::ofstream expect(out / (spec.def->name + ".jsonl"), std::ios::binary);
      std::vector<Cell> cells;
      for (const auto& row : c.rows) {
        cells.clear();
        json line = json::array();
        for (const Value& v : row) {
          cells.push_back(v.cell);
          line.push_back(v.expect);
        }
        table.add_row(cells);
        expect << line.dump() << '\n';
      }
      if (!expect.flush()) throw std::runtime_error("cannot write " + (out / (spec.def->name + ".jsonl")).string());
      write_parquet(table, out / (spec.def->name + ".parquet"));
      json columns = json::array();
      for (const Column& col : spec.def->columns) columns.push_back({{"name", col.name}, {"type", type_name(col.type)}});
      manifest.push_back({{"name", spec.def->name}, {"rows", c.rows.size()}, {"columns", columns}});
    }
  } catch (const std::exception& e) {
    std::cerr << "parquet_sample: " << e.what() << '\n';
    return 1;
  }
  std::ofstream(out / "cases.json") << manifest.dump(2) << '\n';
  return 0;
}
