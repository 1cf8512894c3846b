// The catalog builder against the fixtures (TETHER_DUCKLAKE_FIXTURES; skipped, exit 77,
// without them): its DDL is the DDL of the converted genuine 0.4 catalog (= 1.0 apart from the
// version string), the session of that catalog replayed through the builder gives its rows,
// and the synthetic diff scenario replayed gives the synthetic catalog's rows.
#include <doctest/doctest.h>

#include <map>

#include "builder.hpp"
#include "test_support.hpp"

using namespace tether::ducklake::harness;
using namespace tether::ducklake::harness::testing;

namespace {

std::map<std::string, std::string> table_ddl(const fs::path& db) {
  std::map<std::string, std::string> out;
  for (const auto& r : rows(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'")) out[r[0]] = r[1];
  return out;
}

bool is_inlined(const std::string& table) { return table.rfind("ducklake_inlined_data_", 0) == 0 && table != "ducklake_inlined_data_tables"; }

// The rows of `sql` on both catalogs must be equal.
void same_rows(const fs::path& built, const fs::path& fixture, const std::string& sql) {
  INFO(sql);
  CHECK(show(rows(built, sql)) == show(rows(fixture, sql)));
}

// What a session's DDL leaves: snapshots and their counters and tokens, schemas, tables and
// their columns, schema versions, inlined-data tables (UUIDs and times aside).
void same_catalog_rows(const fs::path& built, const fs::path& fixture) {
  for (const char* sql : {
           "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot ORDER BY 1",
           "SELECT * FROM ducklake_snapshot_changes ORDER BY 1",
           "SELECT schema_id, begin_snapshot, end_snapshot, schema_name, path, path_is_relative FROM ducklake_schema ORDER BY 1",
           "SELECT table_id, begin_snapshot, end_snapshot, schema_id, table_name, path, path_is_relative FROM ducklake_table ORDER BY 1",
           "SELECT * FROM ducklake_column ORDER BY table_id, column_id",
           "SELECT * FROM ducklake_schema_versions ORDER BY 1",
           "SELECT * FROM ducklake_inlined_data_tables ORDER BY 1",
       })
    same_rows(built, fixture, sql);
}

}  // namespace

TEST_CASE("the builder's DDL is the DDL of the converted v04 catalog, apart from its inlined table") {
  const fs::path& fx = fixtures();  // before TempDir: a skip exits without unwinding
  TempDir tmp;
  fs::path v04 = load_dump(fx / "sqlite" / "v04.sql", tmp.path / "v04.sqlite");
  auto b = CatalogBuilder::create(tmp.path / "built.sqlite");
  auto want = table_ddl(v04);
  auto have = table_ddl(b.path());
  for (auto it = want.begin(); it != want.end();) it = is_inlined(it->first) ? want.erase(it) : std::next(it);
  CHECK(have.size() == 28);
  for (const auto& name_sql : want) {
    const auto name = name_sql.first;
    const auto& sql = name_sql.second;
    INFO(name);
    REQUIRE(have.count(name) == 1);
    CHECK(have[name] == sql);
  }
  for (const auto& name_sql : have) {
    const auto name = name_sql.first;
    INFO(name);
    CHECK(want.count(name) == 1);
  }
  // The version string is the one difference in the rows of a fresh catalog's metadata keys.
  CHECK(value(v04, "SELECT value FROM ducklake_metadata WHERE key = 'version'") == "0.4");
  CHECK(value(b.path(), "SELECT value FROM ducklake_metadata WHERE key = 'version'") == "1.0");
  same_rows(b.path(), v04, "SELECT key, scope, scope_id FROM ducklake_metadata ORDER BY rowid");
}

TEST_CASE("replaying the v04 session (CREATE TABLE test (i INTEGER)) gives the v04 rows") {
  const fs::path& fx = fixtures();  // before TempDir: a skip exits without unwinding
  TempDir tmp;
  fs::path v04 = load_dump(fx / "sqlite" / "v04.sql", tmp.path / "v04.sqlite");
  auto b = CatalogBuilder::create(tmp.path / "built.sqlite");
  CHECK(b.create_table("test", {{"i", "INTEGER"}}) == 1);
  fs::path built = b.path();
  same_catalog_rows(built, v04);
  CHECK(table_ddl(built)["ducklake_inlined_data_1_1"] == table_ddl(v04)["ducklake_inlined_data_1_1"]);
  // The table UUID is time-ordered (v7) like the extension's.
  CHECK(value(built, "SELECT substr(table_uuid, 15, 1) FROM ducklake_table") == "7");
}

TEST_CASE("replaying the synthetic diff scenario gives the synthetic catalog's rows") {
  const fs::path& fx = fixtures();
  TempDir tmp;
  fs::path synth = load_dump(fx / "synthetic" / "tether_diff_scenario.sql", tmp.path / "synthetic.sqlite");
  auto b = CatalogBuilder::create(tmp.path / "built.sqlite");
  CHECK(b.create_table("t", {{"a", "INTEGER"}}) == 1);
  int64_t t = b.table_id("t");
  CHECK(b.insert_inlined(t, 2) == 2);
  CHECK(b.insert_file(t, 5000) == 3);
  // s4 also deletes one Parquet row through ducklake_inlined_delete_1, which the builder does
  // not do; the token is the same.
  CHECK(b.delete_inlined(t, 1) == 4);
  CHECK(b.create_table("u", {{"b", "TEXT"}}) == 5);
  int64_t u = b.table_id("u");
  CHECK(b.create_table("gone", {{"c", "INTEGER"}}) == 6);
  int64_t gone = b.table_id("gone");
  CHECK(b.drop_table(gone) == 7);
  CHECK(u == 2);
  fs::path built = b.path();

  same_catalog_rows(built, synth);
  // The builder's rows hold their row id as value (the session inserted 1, 2 and 0..4999):
  // lifetimes, row ids and counts are compared, the values and their min/max are not.
  same_rows(built, synth, "SELECT row_id, begin_snapshot, end_snapshot FROM ducklake_inlined_data_1_1 ORDER BY row_id");
  same_rows(built, synth, "SELECT data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path_is_relative, file_format, "
                          "record_count, row_id_start, partition_id, encryption_key, mapping_id, partial_max FROM ducklake_data_file");
  same_rows(built, synth, "SELECT table_id, record_count, next_row_id FROM ducklake_table_stats");
  same_rows(built, synth, "SELECT table_id, column_id, contains_null, contains_nan FROM ducklake_table_column_stats");
  same_rows(built, synth, "SELECT data_file_id, table_id, column_id, value_count, null_count, contains_nan FROM ducklake_file_column_stats");
  auto want = table_ddl(synth);
  auto have = table_ddl(built);
  want.erase("ducklake_inlined_delete_1");
  CHECK(have == want);
}
