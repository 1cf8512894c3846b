// Tests of the registry tables and the SQLite, CSV and JSONL writers over a hand-built
// bundle: the exact bytes of the text formats (quoting, escapes, nulls, bools, nested JSON),
// SQLite read back through its own API, a replacing export that leaves no temporary file,
// --append's rewrite of the Replaced tables, and the schema's invariants.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "tether/errors.hpp"
#include "tether/registry/registry.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::registry;
using tether::testing::TempDir;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One query's rows, cells joined by '|', NULL as "∅".
std::string query(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::string out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      if (c) out += '|';
      auto* t = sqlite3_column_text(st, c);
      out += t ? reinterpret_cast<const char*>(t) : "∅";
    }
    out += '\n';
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

void fill(Bundle& b, const std::string& head) {
  b.head = head;
  auto& meta = b["tether_meta"];
  meta.add_row({b.text("schema_version"), b.text("3")});
  meta.add_row({b.text("head"), b.text(head)});
  b["commits"].add_row({b.text(head), Cell::null(), b.text("A, \"B\""), b.text("a@x"), b.text("2026-01-02T03:04:05+00:00"),
                        b.text("2026-01-02T03:04:05+00:00"), b.text("line 1\nline 2\ttab café"), b.text("ab")});
  b["refs"].add_row({b.text("HEAD"), b.text("head"), b.text(head)});
  b["objects"].add_row({b.text(head), b.text("k"), b.text("memory"), Cell::null(), b.text(R"({"a":[1,2],"uri":"x"})"),
                        Cell::null(), Cell::null(), b.text("immutable"), b.text("native"), Cell::null(), Cell::null(),
                        Cell::null(), Cell::null(), Cell::boolean(false), Cell::null()});
  b["listing_entries"].add_row({b.text("l.jsonl"), b.text("dir/a,b.bin"), Cell::null(), Cell::integer(-5)});
}

}  // namespace

TEST_CASE("the schema: nine tables in order, keys are columns, views name tables") {
  std::vector<std::string> names;
  for (const auto& t : tables()) {
    names.push_back(t.name);
    std::set<std::string> cols;
    for (const auto& c : t.columns) CHECK(cols.insert(c.name).second);
    for (const auto& k : t.primary_key) CHECK(cols.count(k) == 1);
  }
  CHECK(names == std::vector<std::string>{"tether_meta", "commits", "commit_parents", "refs", "objects", "object_states",
                                          "listings", "listing_entries", "workspace"});
  CHECK(table_def("objects").columns.size() == 15);
  CHECK(views()[0].sql("tether.") ==
        "SELECT o.* FROM tether.objects o JOIN tether.refs r ON r.commit_id = o.commit_id WHERE r.kind = 'head'");
  CHECK(views()[1].sql("").find("COUNT(DISTINCT o.commit_id) AS commits FROM objects o") != std::string::npos);
  CHECK(sqlite_ddl().find("CREATE TABLE IF NOT EXISTS objects (commit_id TEXT, key TEXT, kind TEXT") != std::string::npos);
  CHECK(sqlite_ddl().find("recoverable INTEGER") != std::string::npos);
  CHECK(sqlite_ddl().find("CREATE VIEW IF NOT EXISTS object_pins AS ") != std::string::npos);
}

TEST_CASE("a bundle interns text and refuses a row of the wrong width") {
  Bundle b;
  std::string s = "same";
  auto v1 = b.intern(s);
  s[0] = 'x';  // the bundle holds its own copy
  auto v2 = b.intern("same");
  CHECK(v1 == "same");
  CHECK(v1.data() == v2.data());
  CHECK_THROWS_AS(b["refs"].add_row({b.text("x")}), std::invalid_argument);
  CHECK(b.row_counts().size() == 9);
  Bundle moved = std::move(b);  // views into the arena survive a move
  CHECK(v1 == "same");
}

TEST_CASE("a bundle interns many texts: across blocks, a table that grows, big and empty texts") {
  Bundle b;
  std::vector<std::string> texts;
  for (int i = 0; i < 20000; ++i) texts.push_back("text " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 97), 'x'));
  texts.push_back(std::string(100000, 'b'));  // more than a block
  texts.push_back(std::string(100000, 'c'));
  texts.push_back("");
  std::vector<std::string_view> first;
  for (const auto& t : texts) first.push_back(b.intern(t));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    CHECK(first[i] == texts[i]);
    CHECK(first[i].data() != texts[i].data());
    std::string again = texts[i];  // an equal text elsewhere finds the same copy
    CHECK(b.intern(again).data() == first[i].data());
  }
  CHECK(first[0].data() != b.intern("text 0 ").data());
  Bundle moved = std::move(b);
  CHECK(moved.intern(texts[123]).data() == first[123].data());
  CHECK(moved.intern(texts[20000]).data() == first[20000].data());
  CHECK(moved.intern("new after the move") == "new after the move");
}

TEST_CASE("CSV: header in table order, minimal quoting, True/False, nulls empty, CRLF") {
  TempDir d;
  Bundle b;
  fill(b, "c1");
  write_csv(b["commits"], d.path() / "commits.csv");
  CHECK(slurp(d.path() / "commits.csv") ==
        "commit_id,change_id,author_name,author_email,authored_at,committed_at,message,manifest_hash\r\n"
        "c1,,\"A, \"\"B\"\"\",a@x,2026-01-02T03:04:05+00:00,2026-01-02T03:04:05+00:00,\"line 1\nline 2\ttab café\",ab\r\n");
  write_csv(b["objects"], d.path() / "objects.csv");
  CHECK(slurp(d.path() / "objects.csv").find("\r\nc1,k,memory,,\"{\"\"a\"\":[1,2],\"\"uri\"\":\"\"x\"\"}\",,,immutable,native,,,,,False,\r\n") !=
        std::string::npos);
  write_csv(b["listing_entries"], d.path() / "le.csv");
  CHECK(slurp(d.path() / "le.csv") == "listing_name,path,token,size\r\nl.jsonl,\"dir/a,b.bin\",,-5\r\n");
}

TEST_CASE("JSONL: keys sorted, JSON columns nested, strings escaped, nulls null") {
  TempDir d;
  Bundle b;
  fill(b, "c1");
  write_jsonl(b["commits"], d.path() / "commits.jsonl");
  CHECK(slurp(d.path() / "commits.jsonl") ==
        R"({"author_email":"a@x","author_name":"A, \"B\"","authored_at":"2026-01-02T03:04:05+00:00","change_id":null,)"
        R"("commit_id":"c1","committed_at":"2026-01-02T03:04:05+00:00","manifest_hash":"ab","message":"line 1\nline 2\ttab café"})"
        "\n");
  write_jsonl(b["objects"], d.path() / "objects.jsonl");
  auto text = slurp(d.path() / "objects.jsonl");
  CHECK(text.find(R"("locator_json":{"a":[1,2],"uri":"x"})") != std::string::npos);
  CHECK(text.find(R"("recoverable":false)") != std::string::npos);
  write_jsonl(b["workspace"], d.path() / "ws.jsonl");
  CHECK(slurp(d.path() / "ws.jsonl").empty());
}

TEST_CASE("SQLite: a replacing export, then --append rewrites the Replaced tables and keeps commit rows") {
  TempDir d;
  auto db = d.path() / "sub" / "t.sqlite";
  {
    Bundle b;
    fill(b, "c1");
    write_sqlite(b, db, false);
  }
  CHECK(query(db, "SELECT commit_id, author_name, message FROM commits") == "c1|A, \"B\"|line 1\nline 2\ttab café\n");
  CHECK(query(db, "SELECT typeof(recoverable), recoverable, uri FROM objects") == "integer|0|∅\n");
  CHECK(query(db, "SELECT size FROM listing_entries") == "-5\n");
  CHECK(query(db, "SELECT key FROM objects_head") == "k\n");
  // nothing but the export is left in the directory
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(db.parent_path())) ++files;
  CHECK(files == 1);
  {
    Bundle b;
    fill(b, "c2");
    write_sqlite(b, db, true);
  }
  CHECK(query(db, "SELECT commit_id FROM commits ORDER BY commit_id") == "c1\nc2\n");
  CHECK(query(db, "SELECT name, commit_id FROM refs") == "HEAD|c2\n");
  CHECK(query(db, "SELECT value FROM tether_meta WHERE key = 'head'") == "c2\n");
  CHECK(query(db, "SELECT COUNT(*) FROM objects") == "2\n");
  {
    Bundle b;
    fill(b, "c3");
    write_sqlite(b, db, false);  // replaces
  }
  CHECK(query(db, "SELECT commit_id FROM commits") == "c3\n");
}

TEST_CASE("SQLite: rows across many INSERT statements keep their order and values; a repeated key replaces") {
  TempDir d;
  Bundle b;
  // objects has 15 columns (66 rows a statement): 200 rows are three full statements and 2 rows
  for (int i = 0; i < 200; ++i) {
    const std::string n = std::to_string(i);
    b["objects"].add_row({b.text("c" + std::to_string(i % 7)), b.text("k" + n), b.text("file"),
                          i % 3 ? b.text("s3://b/" + n) : Cell::null(), b.text("{\"i\":" + n + "}"), Cell::null(),
                          Cell::null(), b.text("versioned"), b.text("record"), Cell::null(), Cell::null(), Cell::null(),
                          Cell::null(), Cell::boolean(i % 2 == 1), b.text("t" + n)});
  }
  // commit_parents has 3 (333 a statement): 1,001 rows, a key repeated within the first
  // statement (c0 at row 2) and across statements (c5 again in the last row)
  std::string want;
  for (int i = 0; i < 1000; ++i) {
    b["commit_parents"].add_row({b.text(i == 2 ? "c0" : "c" + std::to_string(i)), b.text("p"), Cell::integer(i)});
    if (i != 0 && i != 5) want += std::to_string(i) + "\n";  // c0's row 0 and c5's row 5 are replaced
  }
  b["commit_parents"].add_row({b.text("c5"), b.text("p"), Cell::integer(-1)});
  want += "-1\n";
  write_sqlite(b, d.path() / "t.sqlite", false);
  const auto db = d.path() / "t.sqlite";
  CHECK(query(db, "SELECT COUNT(*), SUM(recoverable), COUNT(uri) FROM objects") == "200|100|133\n");
  std::string keys;
  for (int i = 0; i < 200; ++i) keys += "k" + std::to_string(i) + "\n";
  CHECK(query(db, "SELECT key FROM objects ORDER BY rowid") == keys);
  CHECK(query(db, "SELECT * FROM objects WHERE key IN ('k65', 'k66', 'k199') ORDER BY rowid") ==
        "c2|k65|file|s3://b/65|{\"i\":65}|∅|∅|versioned|record|∅|∅|∅|∅|1|t65\n"
        "c3|k66|file|∅|{\"i\":66}|∅|∅|versioned|record|∅|∅|∅|∅|0|t66\n"
        "c3|k199|file|s3://b/199|{\"i\":199}|∅|∅|versioned|record|∅|∅|∅|∅|1|t199\n");
  CHECK(query(db, "SELECT position FROM commit_parents ORDER BY rowid") == want);
  CHECK(query(db, "SELECT position FROM commit_parents WHERE commit_id IN ('c0', 'c5') ORDER BY commit_id") == "2\n-1\n");
  CHECK(query(db, "PRAGMA integrity_check") == "ok\n");
}

TEST_CASE("directory formats: schema.json and one file per table; unknown formats and files refused") {
  TempDir d;
  Bundle b;
  fill(b, "c1");
  CHECK(write_dir(b, d.path() / "out", "jsonl") == 10);
  CHECK(std::filesystem::exists(d.path() / "out" / "schema.json"));
  CHECK(std::filesystem::exists(d.path() / "out" / "listing_entries.jsonl"));
  CHECK(schema_json().find("\"schema_version\": 3") != std::string::npos);
  CHECK_THROWS_WITH_AS(write_dir(b, d.path() / "x", "xlsx"), "unknown export format 'xlsx'", tether::ConfigError);
  std::ofstream(d.path() / "f") << "";
  CHECK_THROWS_AS(write_dir(b, d.path() / "f", "csv"), tether::ConfigError);
}

TEST_CASE("export targets: tether's own exports are recognised; other files need --force; tether.toml and .tether/ never") {
  namespace fs = std::filesystem;
  TempDir d;
  const fs::path ds = d.path() / "ds";
  fs::create_directories(ds / ".tether" / "objects");
  std::ofstream(ds / "tether.toml") << "[tether]\nversion = 5\n";
  std::ofstream(ds / ".tether" / "ops.jsonl") << "{}\n";
  Bundle b;
  fill(b, "c1");

  // tether's own exports
  write_sqlite(b, d.path() / "t.sqlite", false);
  CHECK(is_tether_export(d.path() / "t.sqlite", "sqlite"));
  CHECK_NOTHROW(check_export_target(d.path() / "t.sqlite", "sqlite", false, ds));
  write_dir(b, d.path() / "dump", "csv");
  CHECK(is_tether_export(d.path() / "dump", "csv"));
  CHECK_NOTHROW(check_export_target(d.path() / "dump", "jsonl", false, ds));

  // nothing there, an empty file or an empty directory: nothing to lose
  CHECK_NOTHROW(check_export_target(d.path() / "new.sqlite", "sqlite", false, ds));
  std::ofstream(d.path() / "empty.sqlite") << "";
  CHECK_NOTHROW(check_export_target(d.path() / "empty.sqlite", "sqlite", false, ds));
  fs::create_directories(d.path() / "emptydir");
  CHECK_NOTHROW(check_export_target(d.path() / "emptydir", "parquet", false, ds));

  // someone else's: a text file, a SQLite database without tether_meta, a directory of files
  std::ofstream(d.path() / "notes.txt") << "mine\n";
  CHECK_THROWS_WITH_AS(check_export_target(d.path() / "notes.txt", "sqlite", false, ds),
                       doctest::Contains("exists and is not a tether SQLite export; pass --force"), tether::ConfigError);
  CHECK_NOTHROW(check_export_target(d.path() / "notes.txt", "sqlite", true, ds));
  {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open((d.path() / "app.db").c_str(), &h) == SQLITE_OK);
    REQUIRE(sqlite3_exec(h, "CREATE TABLE users (id INTEGER)", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(h);
  }
  CHECK_FALSE(is_tether_export(d.path() / "app.db", "sqlite"));
  CHECK_THROWS_AS(check_export_target(d.path() / "app.db", "sqlite", false, ds), tether::ConfigError);
  fs::create_directories(d.path() / "photos");
  std::ofstream(d.path() / "photos" / "a.jpg") << "jpg";
  CHECK_THROWS_WITH_AS(check_export_target(d.path() / "photos", "csv", false, ds),
                       doctest::Contains("holds no tether export"), tether::ConfigError);
  std::ofstream(d.path() / "photos" / "schema.json") << R"({"schema_version": 1, "tables": {"users": {}}})";
  CHECK_THROWS_AS(check_export_target(d.path() / "photos", "csv", false, ds), tether::ConfigError);

  // the dataset's own files, whatever --force says, through a symlink, `..` or a hard link
  for (bool force : {false, true}) {
    CHECK_THROWS_WITH_AS(check_export_target(ds / "tether.toml", "sqlite", force, ds),
                         doctest::Contains("it is the dataset's tether.toml"), tether::ConfigError);
    CHECK_THROWS_WITH_AS(check_export_target(ds / ".tether" / "ops.jsonl", "sqlite", force, ds),
                         doctest::Contains("inside the dataset's .tether/"), tether::ConfigError);
    CHECK_THROWS_AS(check_export_target(ds / ".tether" / "new.sqlite", "sqlite", force, ds), tether::ConfigError);
    CHECK_THROWS_AS(check_export_target(ds / ".tether", "csv", force, ds), tether::ConfigError);
    CHECK_THROWS_AS(check_export_target(ds / ".tether" / "objects" / ".." / "dump", "csv", force, ds), tether::ConfigError);
    CHECK_THROWS_AS(check_export_target(ds / "x" / ".." / "tether.toml", "sqlite", force, ds), tether::ConfigError);
  }
  fs::create_symlink(ds / "tether.toml", d.path() / "link.sqlite");
  CHECK_THROWS_AS(check_export_target(d.path() / "link.sqlite", "sqlite", true, ds), tether::ConfigError);
  fs::create_directory_symlink(ds / ".tether", d.path() / "tdir");
  CHECK_THROWS_AS(check_export_target(d.path() / "tdir" / "x.sqlite", "sqlite", true, ds), tether::ConfigError);
  fs::create_hard_link(ds / "tether.toml", d.path() / "hard.sqlite");
  CHECK_THROWS_AS(check_export_target(d.path() / "hard.sqlite", "sqlite", true, ds), tether::ConfigError);
  CHECK(slurp(ds / "tether.toml") == "[tether]\nversion = 5\n");
}
