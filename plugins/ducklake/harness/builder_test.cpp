// The catalog builder on its own: timestamp text, the fresh catalog, each operation's
// snapshot row, counters and changes_made token, and expiry (docs/backends.md#ducklake).
#include <doctest/doctest.h>

#include "builder.hpp"
#include "test_support.hpp"

using namespace tether::ducklake::harness;
using namespace tether::ducklake::harness::testing;

TEST_CASE("timestamps are written as DuckDB prints a TIMESTAMPTZ in UTC") {
  CHECK(duckdb_time_text(1777881602702055) == "2026-05-04 08:00:02.702055+00");
  CHECK(duckdb_time_text(1777881600500000) == "2026-05-04 08:00:00.5+00");
  CHECK(duckdb_time_text(1777881600000000) == "2026-05-04 08:00:00+00");
  CHECK(duckdb_time_text(1775639509644489) == "2026-04-08 09:11:49.644489+00");
  CHECK(duckdb_time_text(0) == "1970-01-01 00:00:00+00");
  CHECK(duckdb_time_text(-1) == "1969-12-31 23:59:59.999999+00");
  for (int64_t us : {int64_t{1777881602702055}, int64_t{0}, int64_t{-1}, int64_t{951782400000001}})
    CHECK(parse_duckdb_time(duckdb_time_text(us)) == us);
  CHECK(parse_duckdb_time("2026-05-04 13:30:02.702055+05:30") == 1777881602702055);
  CHECK(parse_duckdb_time("2026-05-04 04:00:02.702055-04") == 1777881602702055);
  CHECK(parse_duckdb_time("2026-05-04T08:00:00.5+00") == 1777881600500000);
  CHECK_THROWS(parse_duckdb_time("yesterday"));
}

TEST_CASE("the SQLite DDL maps types and quotes keywords as the sqlite extension does") {
  CHECK(sqlite_ddl("CREATE TABLE x(key VARCHAR NOT NULL, t TIMESTAMPTZ, u UUID, b BOOLEAN, i INTEGER PRIMARY KEY, d DOUBLE);") ==
        "CREATE TABLE x(\"key\" VARCHAR NOT NULL, t VARCHAR, u VARCHAR, b BIGINT, i BIGINT PRIMARY KEY, d DOUBLE);");
  CHECK(spec_ddl().size() == 28);
  CHECK(quote_ident("my \"odd\" table") == "\"my \"\"odd\"\" table\"");
}

TEST_CASE("a fresh catalog holds snapshot 0, schema main and the four metadata rows") {
  TempDir tmp;
  auto b = CatalogBuilder::create(tmp.path / "lake.sqlite", fixed_clock());
  fs::path db = b.path();
  CHECK(b.current_snapshot() == 0);
  CHECK(show(rows(db, "SELECT * FROM ducklake_snapshot")) == "0|2026-05-04 08:00:00+00|0|1|0\n");
  CHECK(show(rows(db, "SELECT * FROM ducklake_snapshot_changes")) == "0|created_schema:\"main\"|NULL|NULL|NULL\n");
  CHECK(show(rows(db, "SELECT key, value, scope, scope_id FROM ducklake_metadata")) ==
        "version|1.0|NULL|NULL\ncreated_by|DuckDB tether-catalog-builder|NULL|NULL\ndata_path|" + db.string() +
            ".files/|NULL|NULL\nencrypted|false|NULL|NULL\n");
  auto schema = rows(db, "SELECT schema_id, schema_uuid, begin_snapshot, end_snapshot, schema_name, path, path_is_relative FROM ducklake_schema");
  REQUIRE(schema.size() == 1);
  CHECK(schema[0][1].size() == 36);
  CHECK(schema[0][1][14] == '4');
  schema[0][1] = "uuid";
  CHECK(show(schema) == "0|uuid|0|NULL|main|main/|1\n");
  CHECK(value(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == "28");
  CHECK_THROWS_WITH(CatalogBuilder::create(db), doctest::Contains("already exists"));
  CHECK_THROWS_WITH(CatalogBuilder::open(tmp.path / "missing.sqlite"), doctest::Contains("no catalog"));
}

TEST_CASE("each operation commits one snapshot with its token and counters") {
  TempDir tmp;
  auto b = CatalogBuilder::create(tmp.path / "lake.sqlite", fixed_clock());
  fs::path db = b.path();

  CHECK(b.create_table("t", {{"a", "INTEGER"}}) == 1);
  int64_t t = b.table_id("t");
  CHECK(t == 1);
  CHECK(b.insert_inlined(t, 2) == 2);
  CHECK(b.insert_file(t, 5000) == 3);
  CHECK(b.delete_inlined(t, 1) == 4);
  CHECK(b.create_table("u", {{"b", "VARCHAR"}}) == 5);
  CHECK(b.create_table("my \"odd\" table", {{"key", "BIGINT"}, {"c d", "DOUBLE"}}) == 6);
  CHECK(b.insert_file(t, 10) == 7);
  CHECK(b.drop_table(b.table_id("my \"odd\" table")) == 8);

  CHECK(show(rows(db, "SELECT s.snapshot_id, snapshot_time, schema_version, next_catalog_id, next_file_id, changes_made "
                      "FROM ducklake_snapshot s JOIN ducklake_snapshot_changes USING (snapshot_id) ORDER BY 1")) ==
        "0|2026-05-04 08:00:00+00|0|1|0|created_schema:\"main\"\n"
        "1|2026-05-04 08:00:00.25+00|1|2|0|created_table:\"main\".\"t\"\n"
        "2|2026-05-04 08:00:00.5+00|1|2|0|inlined_insert:1\n"
        "3|2026-05-04 08:00:00.75+00|1|2|1|inserted_into_table:1\n"
        "4|2026-05-04 08:00:01+00|1|2|1|inlined_delete:1\n"
        "5|2026-05-04 08:00:01.25+00|2|3|1|created_table:\"main\".\"u\"\n"
        "6|2026-05-04 08:00:01.5+00|3|4|1|created_table:\"main\".\"my \"\"odd\"\" table\"\n"
        "7|2026-05-04 08:00:01.75+00|3|4|2|inserted_into_table:1\n"
        "8|2026-05-04 08:00:02+00|4|4|2|dropped_table:3\n");
  CHECK(show(rows(db, "SELECT * FROM ducklake_inlined_data_1_1")) == "0|2|4|0\n1|2|NULL|1\n");
  CHECK(show(rows(db, "SELECT data_file_id, table_id, begin_snapshot, end_snapshot, record_count, row_id_start, partial_max "
                      "FROM ducklake_data_file ORDER BY 1")) ==
        "0|1|3|NULL|5000|2|NULL\n1|1|7|NULL|10|5002|NULL\n");
  CHECK(show(rows(db, "SELECT table_id, record_count, next_row_id FROM ducklake_table_stats")) == "1|5012|5012\n");
  CHECK(show(rows(db, "SELECT table_id, min_value, max_value FROM ducklake_table_column_stats")) == "1|2|5011\n");
  CHECK(show(rows(db, "SELECT table_id, begin_snapshot, end_snapshot, table_name, path FROM ducklake_table ORDER BY 1")) ==
        "1|1|NULL|t|t/\n2|5|NULL|u|u/\n3|6|8|my \"odd\" table|my \"odd\" table/\n");
  CHECK(show(rows(db, "SELECT table_id, column_id, begin_snapshot, end_snapshot, column_name, column_type FROM ducklake_column ORDER BY 1, 2")) ==
        "1|1|1|NULL|a|int32\n2|1|5|NULL|b|varchar\n3|1|6|8|key|int64\n3|2|6|8|c d|float64\n");
  CHECK(show(rows(db, "SELECT * FROM ducklake_schema_versions")) == "1|1|1\n5|2|2\n6|3|3\n");
  CHECK(show(rows(db, "SELECT * FROM ducklake_inlined_data_tables")) ==
        "1|ducklake_inlined_data_1_1|1\n2|ducklake_inlined_data_2_2|2\n3|ducklake_inlined_data_3_3|3\n");
  CHECK(value(db, "SELECT sql FROM sqlite_master WHERE name = 'ducklake_inlined_data_3_3'") ==
        "CREATE TABLE ducklake_inlined_data_3_3(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, \"key\" BIGINT, \"c d\" VARCHAR)");

  // Refusals leave no snapshot behind.
  CHECK_THROWS_WITH(b.create_table("t", {{"a", "INTEGER"}}), doctest::Contains("exists"));
  CHECK_THROWS_WITH(b.delete_inlined(t, 2), doctest::Contains("1 live inlined rows"));
  CHECK_THROWS_WITH(b.insert_inlined(3, 1), doctest::Contains("no live table"));
  CHECK_THROWS_WITH(b.create_table("v", {{"x", "HUGEINT"}}), doctest::Contains("unsupported column type"));
  CHECK_THROWS(b.table_id("my \"odd\" table"));
  CHECK(b.current_snapshot() == 8);
}

TEST_CASE("another builder continues a catalog where the first stopped") {
  TempDir tmp;
  fs::path db = tmp.path / "lake.sqlite";
  {
    auto b = CatalogBuilder::create(db);
    b.create_table("t", {{"a", "INTEGER"}});
    b.insert_inlined(b.table_id("t"), 3);
  }
  auto b = CatalogBuilder::open(db);
  CHECK(b.insert_inlined(b.table_id("t"), 1) == 3);
  CHECK(show(rows(db, "SELECT row_id, begin_snapshot FROM ducklake_inlined_data_1_1")) == "0|2\n1|2\n2|2\n3|3\n");
  // The real clock, kept strictly increasing.
  auto times = rows(db, "SELECT snapshot_time FROM ducklake_snapshot ORDER BY snapshot_id");
  for (std::size_t i = 1; i < times.size(); ++i) CHECK(parse_duckdb_time(times[i][0]) > parse_duckdb_time(times[i - 1][0]));
}

TEST_CASE("a table without inlining takes no inlined rows") {
  TempDir tmp;
  BuilderOptions o;
  o.inlining_limit = 0;
  auto b = CatalogBuilder::create(tmp.path / "lake.sqlite", o);
  b.create_table("t", {{"a", "INTEGER"}});
  CHECK(value(b.path(), "SELECT count(*) FROM ducklake_inlined_data_tables") == "0");
  CHECK_THROWS_WITH(b.insert_inlined(1, 1), doctest::Contains("no inlined-data table"));
  CHECK(b.insert_file(1, 3) == 2);
}

TEST_CASE("expire deletes snapshots and collects what no surviving snapshot sees") {
  TempDir tmp;
  auto b = CatalogBuilder::create(tmp.path / "lake.sqlite", fixed_clock());
  fs::path db = b.path();
  b.create_table("t", {{"a", "INTEGER"}});  // 1
  b.insert_file(1, 100);                     // 2
  b.create_table("gone", {{"c", "INTEGER"}});  // 3
  b.insert_file(2, 5);                       // 4
  b.insert_inlined(2, 1);                    // 5
  b.drop_table(2);                           // 6
  b.insert_inlined(1, 1);                    // 7

  CHECK_THROWS_WITH(b.expire({7}), doctest::Contains("newest"));
  CHECK(value(db, "SELECT count(*) FROM ducklake_snapshot") == "8");

  // Snapshot 2 goes; `gone` ([3, 6)) is still seen by 3, 4, 5: nothing else moves.
  b.expire({2});
  CHECK(show(rows(db, "SELECT snapshot_id FROM ducklake_snapshot ORDER BY 1")) == "0\n1\n3\n4\n5\n6\n7\n");
  CHECK(value(db, "SELECT count(*) FROM ducklake_snapshot_changes WHERE snapshot_id = 2") == "0");
  CHECK(value(db, "SELECT count(*) FROM ducklake_table") == "2");
  CHECK(value(db, "SELECT count(*) FROM ducklake_files_scheduled_for_deletion") == "0");

  // Without 3, 4, 5 no snapshot sees `gone`: its rows, file, stats and inlined table go, and
  // its file is scheduled for deletion under its data-path-relative path.
  b.expire({3, 4, 5});
  CHECK(show(rows(db, "SELECT snapshot_id FROM ducklake_snapshot ORDER BY 1")) == "0\n1\n6\n7\n");
  CHECK(show(rows(db, "SELECT table_id, table_name FROM ducklake_table")) == "1|t\n");
  CHECK(value(db, "SELECT count(*) FROM ducklake_column WHERE table_id = 2") == "0");
  CHECK(value(db, "SELECT count(*) FROM ducklake_schema_versions WHERE table_id = 2") == "0");
  CHECK(value(db, "SELECT count(*) FROM ducklake_inlined_data_tables WHERE table_id = 2") == "0");
  CHECK(value(db, "SELECT count(*) FROM ducklake_table_stats WHERE table_id = 2") == "0");
  CHECK(value(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ducklake_inlined_data_2_2'") == "0");
  CHECK(show(rows(db, "SELECT data_file_id, table_id FROM ducklake_data_file")) == "0|1\n");
  CHECK(value(db, "SELECT count(*) FROM ducklake_file_column_stats WHERE data_file_id = 1") == "0");
  auto scheduled = rows(db, "SELECT data_file_id, path, path_is_relative, schedule_start FROM ducklake_files_scheduled_for_deletion");
  REQUIRE(scheduled.size() == 1);
  CHECK(scheduled[0][0] == "1");
  CHECK(scheduled[0][1].rfind("main/gone/ducklake-", 0) == 0);
  CHECK(scheduled[0][2] == "1");
  CHECK_NOTHROW(parse_duckdb_time(scheduled[0][3]));
  // Table t lives on, with everything it had.
  CHECK(show(rows(db, "SELECT row_id, begin_snapshot FROM ducklake_inlined_data_1_1")) == "100|7\n");

  // Snapshot 0 can expire too; schema main lives on (it never ended).
  b.expire({0});
  CHECK(value(db, "SELECT count(*) FROM ducklake_schema") == "1");
  CHECK(b.insert_inlined(1, 1) == 8);
}
