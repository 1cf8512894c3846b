// Tests of the import sources without a server: CSV parsing (RFC 4180 quoting, CRLF, blank
// lines, a byte order mark, malformed input), JSONL, the SQL-source rules (table names,
// exactly one of table/query) and SQLite read read-only, one statement, nothing written.
#include <doctest/doctest.h>

#include <sqlite3.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "tether/errors.hpp"
#include "tether/registry/import_source.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::registry;
using tether::testing::TempDir;
using Json = nlohmann::json;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tether::TetherError& e) {
    return e.what();
  }
  return "(no error)";
}

void exec(const std::filesystem::path& db, const char* sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  REQUIRE(sqlite3_exec(h, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(h);
}

}  // namespace

TEST_CASE("csv: quoted fields, doubled quotes, embedded newlines and CRLF") {
  auto rows = parse_csv("\xEF\xBB\xBFkey,note\r\na,\"x, \"\"y\"\"\r\nz\"\r\n\r\nb,\r\n\"\",plain\"quote\n", "t.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == Json{{"key", "a"}, {"note", "x, \"y\"\r\nz"}});
  CHECK(rows[1] == Json{{"key", "b"}, {"note", ""}});
  CHECK(rows[2] == Json{{"key", ""}, {"note", "plain\"quote"}});
}

TEST_CASE("csv: short rows are padded, long rows and broken quotes refused") {
  CHECK(parse_csv("a,b,c\n1", "t.csv") == std::vector<Json>{Json{{"a", "1"}, {"b", ""}, {"c", ""}}});
  CHECK(parse_csv("", "t.csv").empty());
  CHECK(parse_csv("a,b\n", "t.csv").empty());
  CHECK(message_of([] { parse_csv("a\n1,2\n", "t.csv"); }) == "t.csv: record 1 has 2 fields; the header has 1");
  CHECK(message_of([] { parse_csv("a\n\"open\n", "t.csv"); }) == "t.csv:2: a quoted field is not closed");
  CHECK(message_of([] { parse_csv("a\n\"x\"y\n", "t.csv"); }).find("t.csv:2: text after a closing quote") == 0);
}

TEST_CASE("csv: text that is not UTF-8 is refused with its line (fuzz/corpus/import_csv)") {
  CHECK(parse_csv("key,uri\na,/x\xc3\xa9\n", "t.csv") == std::vector<Json>{Json{{"key", "a"}, {"uri", "/x\xc3\xa9"}}});
  CHECK(message_of([] { parse_csv("key,uri\na,/x\n\"b\nc\",/x\xa4y\n", "t.csv"); }) ==
        "t.csv:4: not UTF-8 text (byte 0xA4); save the file as UTF-8");
  CHECK(message_of([] { parse_csv("\xEF\xBB\xBFk\n\xed\xa0\x80\n", "t.csv"); }).find("t.csv:2: not UTF-8") == 0);
}

TEST_CASE("sql sources: the suffix decides, table names are identifiers") {
  CHECK(is_sql_source("postgresql://u@h/db"));
  CHECK(is_sql_source("postgres://h/db.csv"));
  // key=value DSNs are DSNs (connected to, never echoed as a missing file)
  CHECK(is_postgres_dsn("host=h password=p dbname=x"));
  CHECK(is_postgres_dsn("dbname = 'a b' port=5"));
  CHECK_FALSE(is_postgres_dsn("nothere password=p"));  // no keyword libpq knows first
  CHECK_FALSE(is_postgres_dsn("snap.sqlite"));
  CHECK_FALSE(is_postgres_dsn("bogus=1"));
  CHECK(is_sql_source("snap.sqlite"));
  CHECK(is_sql_source("registry"));
  CHECK_FALSE(is_sql_source("a/registry.CSV"));
  CHECK_FALSE(is_sql_source("r.jsonl"));
  CHECK_FALSE(is_sql_source("r.ndjson"));
  TempDir tmp("tether-import-source");
  auto db = tmp.path() / "r.db";
  exec(db, "CREATE TABLE t (key TEXT, n INTEGER, x REAL, b BLOB, z TEXT); INSERT INTO t VALUES ('k', 3, 1.5, 'ab', NULL);");
  CHECK(read_source(db.string(), "t", std::nullopt) ==
        std::vector<Json>{Json{{"key", "k"}, {"n", 3}, {"x", 1.5}, {"b", "ab"}, {"z", nullptr}}});
  CHECK(read_source(db.string(), "main.t", std::nullopt).size() == 1);
  CHECK(message_of([&] { read_source(db.string(), "t;", std::nullopt); }) == "invalid table name: 't;'");
  CHECK(message_of([&] { read_source(db.string(), std::nullopt, std::nullopt); }) ==
        "give exactly one of --table or --query for a SQL source");
  CHECK(message_of([&] { read_source(db.string(), "t", "SELECT 1"); }) ==
        "give exactly one of --table or --query for a SQL source");
  CHECK(message_of([&] { read_source((tmp.path() / "nope.db").string(), "t", std::nullopt); }) ==
        "import source not found: " + (tmp.path() / "nope.db").string());
}

TEST_CASE("sqlite: one read-only statement; nothing is written") {
  TempDir tmp("tether-import-source");
  auto db = tmp.path() / "r.db";
  exec(db, "CREATE TABLE t (key TEXT); INSERT INTO t VALUES ('a'), ('b');");
  CHECK(read_source(db.string(), std::nullopt, "SELECT key FROM t ORDER BY key; -- done\n").size() == 2);
  CHECK(message_of([&] { read_source(db.string(), std::nullopt, "SELECT key FROM t; DELETE FROM t"); })
            .find("the import query failed: cannot run multiple commands") == 0);
  CHECK(message_of([&] { read_source(db.string(), std::nullopt, "DELETE FROM t RETURNING key"); })
            .find("the import query failed: the statement would write") == 0);
  CHECK(message_of([&] { read_source(db.string(), std::nullopt, "ATTACH 'other.db' AS o"); })
            .find("the import query failed:") == 0);
  CHECK(message_of([&] { read_source(db.string(), std::nullopt, "SELEC 1"); }).find("the import query failed: near") == 0);
  CHECK(read_source(db.string(), "t", std::nullopt).size() == 2);
}

TEST_CASE("csv and jsonl files are read whole; --table/--query are refused for them") {
  TempDir tmp("tether-import-source");
  auto jl = tmp.file("r.jsonl", "{\"key\": \"a\", \"n\": 1, \"loc\": {\"uri\": \"x\"}}\n\n  \n{\"key\": \"b\"}");
  auto rows = read_source(jl.string(), std::nullopt, std::nullopt);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["loc"] == Json{{"uri", "x"}});
  CHECK(rows[0]["n"] == 1);
  auto bad = tmp.file("bad.jsonl", "{\"key\": \"a\"}\n[1]\n");
  CHECK(message_of([&] { read_source(bad.string(), std::nullopt, std::nullopt); }) ==
        bad.string() + ":2: each line must be a JSON object");
  auto csv = tmp.file("r.csv", "key,kind\na,memory\n");
  CHECK(read_source(csv.string(), std::nullopt, std::nullopt) == std::vector<Json>{Json{{"key", "a"}, {"kind", "memory"}}});
  CHECK(message_of([&] { read_source(csv.string(), "t", std::nullopt); }).find("--table and --query are for SQL sources") == 0);
}

TEST_CASE("jsonl rows and whole sources are bounded: deep rows refused by line, at the limit read") {
  TempDir tmp("tether-import-source");
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  auto jl = tmp.file("deep.jsonl", "{\"key\": \"a\"}\n{\"key\": \"b\", \"locator_json\": " + deep + "}\n");
  CHECK(message_of([&] { read_source(jl.string(), std::nullopt, std::nullopt); }) ==
        jl.string() + ":2: nesting deeper than 128 levels; fix or remove it");
  // The row object and 127 arrays: 128 levels.
  auto at = tmp.file("at.jsonl", "{\"key\": \"a\", \"x\": " + std::string(127, '[') + std::string(127, ']') + "}\n");
  CHECK(read_source(at.string(), std::nullopt, std::nullopt).size() == 1);
  // A row over 1 MiB.
  auto big = tmp.file("big.jsonl", "{\"key\": \"" + std::string(std::size_t{1} << 20, 'k') + "\"}\n");
  CHECK(message_of([&] { read_source(big.string(), std::nullopt, std::nullopt); }) ==
        big.string() + ":1: 1048587 bytes, more than the 1048576-byte limit; fix or remove it");
}
