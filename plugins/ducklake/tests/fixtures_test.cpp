// The ducklake plugin as the engine sees it (loaded through the host) against the catalogs of
// ../shared/fixtures/ducklake: the synthetic 1.0 catalog with its expected results, every
// genuine catalog converted to SQLite, a genuine DuckDB-file catalog (refused), and catalogs
// edited into other versions, expiries and recreations.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include "lake.hpp"
#include "locator.hpp"
#include "row_counts.hpp"
#include "scenario.hpp"
#include "support.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::ducklake;
using namespace tether::ducklake::testing;
using tether::testing::TempDir;

namespace {

Json sqlite_locator(const fs::path& db) { return Json{{"metadata", "ducklake:sqlite:" + db.string()}}; }

fs::path synthetic(const TempDir& tmp, const std::string& name = "cat.sqlite") {
  return load_sqlite(fixtures() / "synthetic" / "tether_diff_scenario.sql", tmp.path() / name);
}

// Row counts over (lo, hi] for one table, straight from the library.
RowCounts counts(const fs::path& db, int64_t table, int64_t lo, int64_t hi) {
  auto cat = open_catalog(parse_locator(sqlite_locator(db)));
  Lake lake(*cat);
  return count_rows(lake, lake.range(lo, hi), lo, hi, {table})[table];
}

int64_t max_snapshot(const fs::path& db) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT max(snapshot_id) FROM ducklake_snapshot", -1, &st, nullptr);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

}  // namespace

TEST_CASE("describe: experimental, Addressable, the locator keys of the spec, nothing committed") {
  Plugin be;
  const auto& d = be->description();
  CHECK(be->kind() == "ducklake");
  CHECK(d.maturity == "experimental");
  CHECK(std::string(be->tier()) == "addressable");
  using namespace tether::sdk;
  CHECK(d.capabilities == (kFingerprint | kAddressable | kCheapFingerprint | kRetentionBound | kDiff | kHistory));
  CHECK(d.uri_keys == std::vector<std::string>{"metadata", "uri"});
  CHECK(d.local_path_keys == std::vector<std::string>{"metadata", "uri", "data_path"});
  CHECK(d.local_path_prefixes == std::vector<std::string>{"ducklake:sqlite:", "ducklake:duckdb:", "ducklake:"});
  CHECK(d.safe_config_keys.empty());
  CHECK(d.promote_hint.empty());
  CHECK(d.volatile_keys.empty());
  CHECK_FALSE(be->has_op(tether::host::Op::Pin));
  CHECK_FALSE(be->has_op(tether::host::Op::Fork));
  CHECK(contains(error_of([&] { be->pin(Json{{"metadata", "/x.db"}}, state(1, 1), "abcd1234.0123456789abcdef"); }),
                 "cannot"));
}

TEST_CASE("the synthetic catalog (SQLite): the reference's diff scenario end to end") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  check_synthetic(be, sqlite_locator(db), [&](const std::string& sql) { sqlite_exec(db, sql); });
}

TEST_CASE("identity, validate_locator and the handle") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  std::string metadata = "ducklake:sqlite:" + db.string();
  Json loc{{"metadata", metadata}, {"data_path", "/lake/files/"}, {"table", "t"}, {"at", "4"}};
  CHECK(be->identity(loc) == Json{{"metadata", metadata}, {"data_path", "/lake/files/"}});
  be->validate_locator(loc);
  Json h = be->open(loc);
  std::string alias = alias_of(metadata);
  CHECK(h["alias"] == alias);
  CHECK(h["metadata"] == metadata);
  CHECK(h["snapshot_id"] == 4);
  CHECK(h["attach_sql"] == "ATTACH '" + metadata + "' AS " + alias + " (DATA_PATH '/lake/files/', SNAPSHOT_VERSION 4, READ_ONLY)");
  CHECK(h["address"] == metadata + "#snapshot=4");
  CHECK(h["data_path"] == "/lake/files/");
  CHECK(h["table"] == "t");
  CHECK(h["table_ref"] == alias + ".t");
  CHECK(h["read_only"] == true);
  Json latest = be->open(sqlite_locator(db));
  CHECK(latest["attach_sql"] == "ATTACH '" + metadata + "' AS " + alias + " (READ_ONLY)");
  CHECK(latest["address"] == metadata + "#snapshot=7");
  CHECK(latest["data_path"].is_null());
  CHECK(latest["table"].is_null());
  CHECK(be->open(sqlite_locator(db), tether::sdk::Source::of_ref("3"))["snapshot_id"] == 3);
  CHECK(contains(error_of([&] { be->open(sqlite_locator(db), tether::sdk::Source::of_ref("main")); }), "no refs"));
  CHECK(contains(error_of([&] { be->open(sqlite_locator(db), tether::sdk::Source::of_pin({"a.b", "tether.a.b", true})); }),
                 "ducklake has no tags"));
  // `ducklake:<path>` reads a SQLite file as well (its header decides); the bare path too.
  CHECK(be->fingerprint(Json{{"metadata", "ducklake:" + db.string()}}) == state(7, kS7));
  CHECK(be->fingerprint(Json{{"metadata", db.string()}}) == state(7, kS7));
  CHECK(be->fingerprint(Json{{"uri", db.string()}}) == state(7, kS7));
  CHECK(be->state_addressable(sqlite_locator(db), state(2, kS2)));
  CHECK_FALSE(be->state_addressable(sqlite_locator(db), Json::object()));
  CHECK(contains(error_of([&] { be->validate_locator(Json{{"metadata", metadata}, {"at", "x"}}); }), "'at' must be a snapshot id"));
  CHECK(contains(error_of([&] { be->validate_locator(Json{{"metadata", metadata}, {"at", "12"}}); }), "snapshot '12' is not in the catalog"));
  CHECK(contains(error_of([&] { be->validate_locator(Json::object()); }), "ducklake locator needs 'metadata'"));
  std::string pw = error_of([&] { be->validate_locator(Json{{"metadata", "ducklake:postgres:dbname=x password=s3cret"}}); });
  CHECK(contains(pw, "carries a Postgres password"));
  CHECK_FALSE(contains(pw, "s3cret"));
  CHECK(contains(error_of([&] { be->history(sqlite_locator(db), std::string("main"), 5); }), "snapshot id"));
}

TEST_CASE("tether never writes the catalog, and never creates one") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  std::string before = read_text(db);
  auto mtime = fs::last_write_time(db);
  Json loc = sqlite_locator(db);
  be->validate_locator(loc);
  be->fingerprint(loc);
  be->history(loc, std::nullopt, 100);
  be->diff(loc, state(0, 0), state(7, kS7));
  be->verify(loc, state(7, kS7), std::nullopt, true);
  be->open(loc);
  CHECK(read_text(db) == before);
  CHECK(fs::last_write_time(db) == mtime);
  CHECK_FALSE(fs::exists(tmp.path() / "cat.sqlite-journal"));

  fs::path missing = tmp.path() / "nothing.sqlite";
  CHECK(contains(error_of([&] { be->fingerprint(sqlite_locator(missing)); }), "does not exist"));
  CHECK(contains(error_of([&] { be->validate_locator(sqlite_locator(missing)); }), "does not exist"));
  auto v = be->verify(sqlite_locator(missing), state(7, kS7), std::nullopt);
  CHECK(v.status == tether::sdk::VerifyStatus::Missing);
  CHECK(contains(v.message, "does not exist"));
  CHECK_FALSE(fs::exists(missing));

  fs::path other = tmp.path() / "other.sqlite";
  sqlite_exec(other, "CREATE TABLE t(a); INSERT INTO t VALUES (1);");
  CHECK(contains(error_of([&] { be->fingerprint(sqlite_locator(other)); }), "is not a DuckLake catalog"));
  auto replaced = be->verify(sqlite_locator(other), state(7, kS7), std::nullopt);
  CHECK(replaced.status == tether::sdk::VerifyStatus::Missing);
  CHECK(contains(replaced.message, "is not a DuckLake catalog"));
  fs::path text = tmp.file("notes.txt", "hello, this is not a database at all");
  CHECK(contains(error_of([&] { be->fingerprint(sqlite_locator(text)); }), "is not a SQLite database"));
  fs::path empty = tmp.file("empty.db", "");
  CHECK(contains(error_of([&] { be->fingerprint(sqlite_locator(empty)); }), "empty file"));
}

TEST_CASE("a genuine DuckDB-file catalog is refused, naming what to do") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = tmp.path() / "v04.db";
  std::string cmd = "gzip -dc '" + (fixtures() / "duckdb" / "v04.db.gz").string() + "' > '" + db.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(sniff_file(db.string()) == FileKind::DuckDb);
  for (const std::string& m : {"ducklake:" + db.string(), "ducklake:sqlite:" + db.string(), db.string()}) {
    CAPTURE(m);
    std::string e = error_of([&] { be->fingerprint(Json{{"metadata", m}}); });
    CHECK(contains(e, "is a DuckDB database file"));
    CHECK(contains(e, "ducklake:sqlite:<path>"));
    CHECK(contains(error_of([&] { be->validate_locator(Json{{"metadata", m}}); }), "is a DuckDB database file"));
  }
  CHECK(contains(error_of([&] { be->fingerprint(Json{{"metadata", "ducklake:duckdb:" + db.string()}}); }),
                 "DuckDB-file DuckLake catalogs"));
}

TEST_CASE("spec versions: 1.1-dev1 read by probing, newer ones refused naming the version") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  Json loc = sqlite_locator(db);
  // 1.1-dev1 renames the inlined tables' bookkeeping columns and adds row_group_count.
  sqlite_exec(db,
              "UPDATE ducklake_metadata SET value = '1.1-dev1' WHERE key = 'version';"
              "ALTER TABLE ducklake_data_file ADD COLUMN row_group_count BIGINT;"
              "ALTER TABLE ducklake_delete_file ADD COLUMN row_group_count BIGINT;"
              "ALTER TABLE ducklake_inlined_data_1_1 RENAME COLUMN row_id TO _ducklake_row_id;"
              "ALTER TABLE ducklake_inlined_data_1_1 RENAME COLUMN begin_snapshot TO _ducklake_begin_snapshot;"
              "ALTER TABLE ducklake_inlined_data_1_1 RENAME COLUMN end_snapshot TO _ducklake_end_snapshot;");
  CHECK(be->fingerprint(loc) == state(7, kS7));
  auto d = be->diff(loc, state(1, 0), state(7, kS7));
  CHECK(d.entries.at(1).detail == "+5002 rows, -2 rows");

  for (const char* v : {"9.9", "1.1", "1.1-dev2", "2.0"}) {
    CAPTURE(v);
    sqlite_exec(db, std::string("UPDATE ducklake_metadata SET value = '") + v + "' WHERE key = 'version';");
    std::string e = error_of([&] { be->fingerprint(loc); });
    CHECK(contains(e, std::string("is at spec version ") + v + ", newer than this tether reads (0.1 to 1.1-dev1)"));
    CHECK(be->verify(loc, state(7, kS7), std::nullopt).status == tether::sdk::VerifyStatus::Unknown);
  }
  sqlite_exec(db, "UPDATE ducklake_metadata SET value = 'next' WHERE key = 'version';");
  CHECK(contains(error_of([&] { be->fingerprint(loc); }), "spec version 'next', which this tether does not know"));
  sqlite_exec(db, "DELETE FROM ducklake_metadata WHERE key = 'version';");
  CHECK(contains(error_of([&] { be->fingerprint(loc); }), "has no version"));
}

TEST_CASE("every converted genuine catalog: fingerprint, history of every snapshot, diffs") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  int n = 0;
  for (const auto& entry : fs::directory_iterator(fixtures() / "sqlite")) {
    if (entry.path().extension() != ".sql") continue;
    ++n;
    std::string name = entry.path().stem().string();
    CAPTURE(name);
    fs::path db = load_sqlite(entry.path(), tmp.path() / (name + ".sqlite"));
    Json loc = sqlite_locator(db);
    be->validate_locator(loc);
    auto fp = be->fingerprint(loc);
    CHECK(fp["snapshot_id"] == max_snapshot(db));
    CHECK(fp["snapshot_time_us"].get<int64_t>() > 1700000000000000);
    auto h = be->history(loc, std::nullopt, 1000);
    CHECK(static_cast<int64_t>(h.size()) == max_snapshot(db) + 1);
    for (const auto& e : h) {
      CAPTURE(e.id);
      CHECK(e.when.has_value());
      // Only a compaction-only snapshot says nothing; no token is left unknown.
      if (!(name == "compacted_files" && e.id == "8")) CHECK_FALSE(e.message.empty());
    }
    auto cat = open_catalog(parse_locator(loc));
    Lake lake(*cat);
    for (const auto& s : lake.snapshots(std::nullopt, 0))
      for (const auto& c : s.changes) {
        CAPTURE(c.kind);
        CHECK(key_of(c.kind).order <= key_of("rewrite_delete").order);  // a token of some spec version
      }
    CHECK(h.back().message == "schema created: main");
    auto d = be->diff(loc, state(0, 0), fp);
    CHECK_FALSE(d.empty());
    CHECK(be->verify(loc, fp, std::nullopt).status == tether::sdk::VerifyStatus::Ok);
    CHECK(contains(be->open(loc)["address"].get<std::string>(), "#snapshot="));
  }
  CHECK(n == 12);
}

TEST_CASE("genuine catalogs: names, legacy tokens and the counts the README gives") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  auto load = [&](const char* name) { return load_sqlite(fixtures() / "sqlite" / (std::string(name) + ".sql"), tmp.path() / (std::string(name) + ".sqlite")); };

  // delete_ignore_extra_columns: 100 rows inserted at s1 (one Parquet file), 9 deleted at s2.
  fs::path dec = load("delete_ignore_extra_columns");
  RowCounts s1 = counts(dec, 1, 0, 1), s2 = counts(dec, 1, 1, 2), both = counts(dec, 1, 0, 2);
  CHECK(s1.inserted == 100);
  CHECK(s1.deleted == 0);
  CHECK_FALSE(s1.ambiguous);
  CHECK(s2.inserted == 0);
  CHECK(s2.deleted == 9);
  CHECK_FALSE(s2.ambiguous);
  CHECK(both.inserted - both.deleted == 91);
  auto h = be->history(sqlite_locator(dec), std::nullopt, 10);
  CHECK(h[0].message == "rows deleted: main.test");
  CHECK(h[1].message == "created: main.test; rows inserted: main.test");
  auto d = be->diff(sqlite_locator(dec), state(0, 0), state(2, 0));
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].detail == "+100 rows, -9 rows, created");
  // Deep verify finds the two Parquet files where the fixture keeps them...
  Json with_files = sqlite_locator(dec);
  with_files["data_path"] = (fixtures() / "duckdb" / "delete_ignore_extra_columns").string() + "/";
  auto fp = be->fingerprint(with_files);
  CHECK(be->verify(with_files, fp, std::nullopt, true).status == tether::sdk::VerifyStatus::Ok);
  // ...and misses the delete file once it is gone; a relative data path is not checked.
  fs::copy(fixtures() / "duckdb" / "delete_ignore_extra_columns", tmp.path() / "files", fs::copy_options::recursive);
  for (const auto& f : fs::recursive_directory_iterator(tmp.path() / "files"))
    if (contains(f.path().filename().string(), "-delete.parquet")) fs::remove(f.path());
  with_files["data_path"] = (tmp.path() / "files").string();
  auto deep = be->verify(with_files, fp, std::nullopt, true);
  CHECK(deep.status == tether::sdk::VerifyStatus::Missing);
  CHECK(contains(deep.message, "1 of 2 files visible at snapshot 2 are gone"));
  auto relative = be->verify(sqlite_locator(dec), fp, std::nullopt, true);
  CHECK(relative.status == tether::sdk::VerifyStatus::Ok);
  CHECK(contains(relative.message, "relative"));
  with_files["data_path"] = (tmp.path() / "elsewhere").string();
  auto elsewhere = be->verify(with_files, fp, std::nullopt, true);
  CHECK(elsewhere.status == tether::sdk::VerifyStatus::Ok);
  CHECK(contains(elsewhere.message, "is not a directory here"));

  // compacted_files: legacy flushed_inlined / compacted_table tokens, partial_file_info.
  fs::path cf = load("compacted_files");
  auto ch = be->history(sqlite_locator(cf), std::nullopt, 20);
  CHECK(ch[0].message == "flushed inlined: main.t1");
  CHECK(ch[2].message.empty());  // s8: compacted_table only
  CHECK(ch[1].message == "rows inserted: main.t1");
  auto all = be->diff(sqlite_locator(cf), state(1, 0), state(10, 0));
  REQUIRE(all.entries.size() == 1);
  CHECK(all.entries[0].detail == "+8 rows, flushed inlined");
  // (2, 10] cuts through the merged file (rows of s2..s6): not countable, so words.
  auto cut = be->diff(sqlite_locator(cf), state(2, 0), state(10, 0));
  REQUIRE(cut.entries.size() == 1);
  CHECK(cut.entries[0].detail == "flushed inlined, rows inserted");

  // per_table_schema: upper-case names, labelled unquoted as the reference labels ids.
  fs::path pts = load("per_table_schema");
  auto ph = be->history(sqlite_locator(pts), std::nullopt, 20);
  CHECK(ph[0].message == "schema altered: main.T_1");
  CHECK(ph[3].message == "created: main.T_2");
  auto pd = be->diff(sqlite_locator(pts), state(0, 0), state(6, 0));
  REQUIRE(pd.entries.size() == 3);
  CHECK(pd.entries[0].path == "main.T");
  CHECK(pd.entries[1].detail == "created, schema altered");

  // v01: the oldest layout (no scope column, no author/commit columns, no paths).
  fs::path v01 = load("v01_partitioned");
  CHECK(be->history(sqlite_locator(v01), std::nullopt, 1)[0].message == "schema altered: main.other_partitioned_tbl");
}

TEST_CASE("row counting: cumulative and partial delete files, whole-file deletes, rewrites, merges") {
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  auto snap = [](int id, const std::string& changes) {
    return "INSERT INTO ducklake_snapshot VALUES(" + std::to_string(id) + ",'2026-05-04 09:00:" +
           (id < 10 ? "0" : "") + std::to_string(id) + "+00',4,4,30);INSERT INTO ducklake_snapshot_changes VALUES(" +
           std::to_string(id) + ",'" + changes + "',NULL,NULL,NULL);";
  };
  auto data = [](int id, int begin, const char* end, int records, const char* pm) {
    return "INSERT INTO ducklake_data_file VALUES(" + std::to_string(id) + ",1," + std::to_string(begin) + "," + end +
           ",NULL,'f" + std::to_string(id) + ".parquet',1,'parquet'," + std::to_string(records) + ",1,1,0,NULL,NULL,NULL," +
           pm + ");";
  };
  auto del = [](int id, int file, int begin, const char* end, int count, const char* pm) {
    return "INSERT INTO ducklake_delete_file VALUES(" + std::to_string(id) + ",1," + std::to_string(begin) + "," + end +
           "," + std::to_string(file) + ",'d" + std::to_string(id) + ".parquet',1,'parquet'," + std::to_string(count) +
           ",1,1,NULL," + pm + ");";
  };
  sqlite_exec(db,
              // s8, s9: <= 0.3 cumulative delete files on data file 0 (10, then 25 in all)
              snap(8, "deleted_from_table:1") + del(10, 0, 8, "9", 10, "NULL") + snap(9, "deleted_from_table:1") +
                  del(11, 0, 9, "NULL", 25, "NULL") +
                  // s10: every remaining row of data file 0 deleted: the file ends
                  snap(10, "deleted_from_table:1") + "UPDATE ducklake_data_file SET end_snapshot = 10 WHERE data_file_id = 0;" +
                  // s11 insert; s12 rewrite (file 12 ends, file 13 holds the same rows)
                  snap(11, "inserted_into_table:1") + data(12, 11, "12", 100, "NULL") + snap(12, "rewrite_delete:1") +
                  data(13, 12, "NULL", 100, "NULL") +
                  // s13, s14 inserts; s15 merges them into file 16 (back-dated to 13, partial_max 14)
                  snap(13, "inserted_into_table:1") + snap(14, "inserted_into_table:1") + snap(15, "merge_adjacent:1") +
                  data(16, 13, "NULL", 80, "14") +
                  // s16, s17 deletes from file 13, the 0.4 way: one partial delete file replaces the first
                  snap(16, "deleted_from_table:1") + snap(17, "deleted_from_table:1") + del(18, 13, 16, "NULL", 12, "17"));
  auto check = [&](int64_t lo, int64_t hi, int64_t ins, int64_t dels, bool ambiguous) {
    CAPTURE(lo);
    CAPTURE(hi);
    RowCounts c = counts(db, 1, lo, hi);
    CHECK(c.ambiguous == ambiguous);
    if (!ambiguous) {
      CHECK(c.inserted == ins);
      CHECK(c.deleted == dels);
    }
  };
  check(7, 8, 0, 10, false);
  check(8, 9, 0, 15, false);
  check(7, 9, 0, 25, false);
  check(9, 10, 0, 4974, false);     // 5000 - 25 in delete files - 1 inlined deletion at s4
  check(7, 10, 0, 4999, false);     // every row live at 7
  check(2, 10, 5000, 5001, false);  // in and out again, and one inlined row
  check(10, 11, 100, 0, false);
  check(10, 12, 100, 0, false);     // the rewrite's output is no insert, its sources no delete
  check(12, 14, 80, 0, false);
  check(13, 14, 0, 0, true);        // the merged file straddles 13
  check(12, 15, 80, 0, false);
  check(15, 17, 0, 12, false);
  check(16, 17, 0, 0, true);        // the partial delete file holds deletes of 16 and 17
  check(15, 16, 0, 0, true);

  Plugin be;
  Json loc = sqlite_locator(db);
  auto d = be->diff(loc, state(10, 0), state(15, 0));
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].detail == "+180 rows, merge adjacent, rewrite delete");
  CHECK(be->diff(loc, state(13, 0), state(14, 0)).entries.at(0).detail == "rows inserted");
  CHECK(be->diff(loc, state(11, 0), state(12, 0)).entries.at(0).detail == "rewrite delete");

  // s18 merges the rewrite's output (begin 12) with file 16: that file now mixes rows of the
  // rewrite with inserts of 13 and 14, and metadata cannot split them.
  sqlite_exec(db, snap(18, "merge_adjacent:1") +
                      "DELETE FROM ducklake_data_file WHERE data_file_id IN (13, 16);"
                      "DELETE FROM ducklake_delete_file WHERE delete_file_id = 18;" +
                      data(19, 12, "NULL", 168, "17"));
  check(11, 18, 0, 0, true);
  check(10, 11, 100, 0, false);
}

TEST_CASE("renames are the same table id under a new name; schemas and views by name") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  fs::path db = synthetic(tmp);
  // s8: ALTER TABLE u RENAME TO v; s9: CREATE SCHEMA s2; s10: DROP SCHEMA s2.
  sqlite_exec(db,
              "UPDATE ducklake_table SET end_snapshot = 8 WHERE table_id = 2;"
              "INSERT INTO ducklake_table VALUES(2,'019df1a2-0005-7000-8000-000000000005',8,NULL,0,'v','v/',1);"
              "INSERT INTO ducklake_snapshot VALUES(8,'2026-05-04 08:00:03+00',5,4,1);"
              "INSERT INTO ducklake_snapshot_changes VALUES(8,'created_table:\"main\".\"v\"',NULL,NULL,NULL);"
              "INSERT INTO ducklake_schema VALUES(4,'6f0c5a8e-3d41-4c56-9a5e-2b9d7c1e0a12',9,10,'s2','s2/',1);"
              "INSERT INTO ducklake_snapshot VALUES(9,'2026-05-04 08:00:04+00',6,5,1);"
              "INSERT INTO ducklake_snapshot_changes VALUES(9,'created_schema:\"s2\"','me','make s2',NULL);"
              "INSERT INTO ducklake_snapshot VALUES(10,'2026-05-04 08:00:05+00',7,5,1);"
              "INSERT INTO ducklake_snapshot_changes VALUES(10,'dropped_schema:4',NULL,NULL,NULL);");
  Json loc = sqlite_locator(db);
  auto d = be->diff(loc, state(7, kS7), state(10, 0));
  REQUIRE(d.entries.size() == 3);
  CHECK(d.entries[0].path == "main.u -> main.v");
  CHECK(d.entries[0].change == "renamed");
  CHECK(d.entries[1].path == "schemas_created");
  CHECK(d.entries[1].detail == "s2");
  CHECK(d.entries[2].path == "schemas_dropped");
  CHECK(d.entries[2].detail == "s2");
  auto h = be->history(loc, std::nullopt, 3);
  CHECK(h[0].message == "schema dropped: s2");
  CHECK(h[1].message == "make s2 (schema created: s2)");
  CHECK(h[2].message == "created: main.v");
  // Created before the range and renamed inside it: still added, under its new name.
  auto whole = be->diff(loc, state(4, 0), state(8, 0));
  CHECK(whole.entries.at(1).path == "main.v");
  CHECK(whole.entries.at(1).change == "added");
}

TEST_CASE("Postgres connection failures keep the password out of every message") {
  Plugin be;
  TempDir tmp("tether-ducklake");
  Json loc{{"metadata", "ducklake:postgres:host=" + (tmp.path() / "no-server").string() +
                            " dbname=lake user=me password=s3cret connect_timeout=2"}};
  // A committed conninfo may not carry a password (pg_credentials.hpp): refused before
  // connecting, naming the keyword, not its value.
  std::string e = error_of([&] { be->fingerprint(loc); });
  CHECK(contains(e, "sets 'password'"));
  CHECK_FALSE(contains(e, "s3cret"));
  Json no_password{{"metadata", "ducklake:postgres:host=" + (tmp.path() / "no-server").string() +
                                    " dbname=lake user=me connect_timeout=2"}};
  CHECK(contains(error_of([&] { be->fingerprint(no_password); }), "cannot connect to the DuckLake catalog"));
  auto v = be->verify(loc, state(1, 1), std::nullopt);
  CHECK(v.status == tether::sdk::VerifyStatus::Unknown);
  CHECK_FALSE(contains(v.message, "s3cret"));
}
