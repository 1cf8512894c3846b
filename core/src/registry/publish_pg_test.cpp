// publish against a live PostgreSQL (run by tests/pg/with-cluster, which sets
// TETHER_TEST_PG_CONNINFO): the COPY and INSERT paths write the same values, awkward text
// survives, known commits are skipped, a row left behind by hand falls back to the upsert, a
// dry run creates nothing and a failure rolls everything back.
#include <cstdlib>
#include <limits>
#include <memory>

#include <doctest/doctest.h>
#include <libpq-fe.h>

#include "tether/errors.hpp"
#include "tether/registry/publish.hpp"

using namespace tether::registry;

namespace {

constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

std::string conninfo() {
  const char* c = std::getenv("TETHER_TEST_PG_CONNINFO");
  REQUIRE_MESSAGE(c, "run through tests/pg/with-cluster");
  return c;
}

// The first value of the first row of `sql`, "<null>" for NULL, "<none>" without rows.
std::string q(const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(conninfo().c_str()), &PQfinish);
  REQUIRE(PQstatus(c.get()) == CONNECTION_OK);
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), sql.c_str()), &PQclear);
  auto st = PQresultStatus(r.get());
  REQUIRE_MESSAGE((st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK), PQresultErrorMessage(r.get()));
  if (st != PGRES_TUPLES_OK || PQntuples(r.get()) == 0) return "<none>";
  return PQgetisnull(r.get(), 0, 0) ? "<null>" : PQgetvalue(r.get(), 0, 0);
}

const char* kMessage = "tab\there\nnewline\r\\backslash \\N not null, \xc3\xa9t\xc3\xa9";

void add_commit(Bundle& b, const std::string& id, const std::string& parent, int n) {
  b["commits"].add_row({b.text(id), Cell::null(), b.text("A. Author"), b.text("a@example.invalid"),
                        b.text("2026-01-02T03:04:0" + std::to_string(n) + "+02:00"),
                        b.text("2026-01-02T03:04:0" + std::to_string(n) + "+02:00"), b.text(kMessage),
                        b.text(std::string(64, 'a' + static_cast<char>(n)))});
  if (!parent.empty()) b["commit_parents"].add_row({b.text(id), b.text(parent), Cell::integer(0)});
  for (const char* key : {"db", "raw/plate"})
    b["objects"].add_row({b.text(id), b.text(key), b.text(key[0] == 'd' ? "memory" : "file"),
                          key[0] == 'd' ? b.text("sys1") : Cell::null(), b.text("{\"uri\":\"sys1\",\"q\":\"a\\\"b\\\\c\\tt\"}"),
                          b.text("{\"system\":\"sys1\"}"), b.text(std::string(32, '1')), b.text("immutable"),
                          b.text("native"), b.text("{\"snapshot_id\":\"sys1:s" + std::to_string(n) + "\"}"),
                          b.text(std::string(32, '0' + static_cast<char>(n))), Cell::null(), Cell::null(),
                          Cell::boolean(key[0] == 'd'), b.text("2026-01-02T01:04:0" + std::to_string(n) + "Z")});
}

// Commits c1..cN in a line; HEAD and main at the last.
Bundle make_bundle(int commits) {
  Bundle b;
  std::string parent;
  for (int n = 1; n <= commits; ++n) {
    std::string id = std::string(39, '0') + std::to_string(n);
    add_commit(b, id, parent, n);
    parent = id;
  }
  b.head = parent;
  b["refs"].add_row({b.text("main"), b.text("branch"), b.text(parent)});
  b["refs"].add_row({b.text("HEAD"), b.text("head"), b.text(parent)});
  b["tether_meta"].add_row({b.text("head"), b.text(parent)});
  b["object_states"].add_row({b.text("memory"), b.text(std::string(32, '1')), b.text(std::string(32, '1')),
                              b.text("{\"system\":\"sys1\"}"), b.text("{\"snapshot_id\":\"sys1:s1\"}"), Cell::null(),
                              b.text(std::string(39, '0') + "1"), b.text("2026-01-02T03:04:01+02:00")});
  b["listing_entries"].add_row({b.text("abc.jsonl"), b.text("dir/a\tb.bin"), Cell::null(), Cell::integer(1LL << 40)});
  return b;
}

PublishReport publish_to(const Bundle& b, const std::string& schema, std::size_t copy_threshold, bool dry_run = false) {
  PublishOptions o;
  o.dsn = conninfo();
  o.schema = schema;
  o.copy_threshold = copy_threshold;
  o.dry_run = dry_run;
  return publish(b, o);
}

std::size_t upserted(const PublishReport& r, const std::string& table) {
  for (const auto& [t, n] : r.upserted)
    if (t == table) return n;
  FAIL("no table " << table);
  return 0;
}

}  // namespace

TEST_CASE("COPY and multi-row INSERT write the same values; awkward text survives") {
  Bundle b = make_bundle(3);
  auto by_copy = publish_to(b, "p_copy", 0);
  auto by_insert = publish_to(b, "p_insert", kNever);
  CHECK(by_copy.upserted == by_insert.upserted);
  CHECK(upserted(by_copy, "objects") == 6);
  CHECK(by_copy.total() == 3 + 2 + 2 + 6 + 1 + 1 + 1);
  for (const auto& t : tables()) {
    CHECK(q("SELECT count(*) FROM p_copy." + t.name) == std::to_string(b[t.name].rows()));
    CHECK(q("SELECT count(*) FROM (SELECT * FROM p_copy." + t.name + " EXCEPT SELECT * FROM p_insert." + t.name +
            ") d") == "0");
  }
  CHECK(q("SELECT message FROM p_copy.commits LIMIT 1") == kMessage);
  CHECK(q("SELECT change_id FROM p_copy.commits LIMIT 1") == "<null>");
  CHECK(q("SELECT locator_json->>'q' FROM p_copy.objects LIMIT 1") == "a\"b\\c\tt");
  CHECK(q("SELECT count(*) FROM p_copy.objects WHERE uri IS NULL") == "3");
  CHECK(q("SELECT bool_and(recoverable = (key = 'db')) FROM p_copy.objects") == "t");
  CHECK(q("SELECT committed_at = '2026-01-02T01:04:01Z' FROM p_copy.commits ORDER BY commit_id LIMIT 1") == "t");
  CHECK(q("SELECT size FROM p_copy.listing_entries") == "1099511627776");
  CHECK(q("SELECT path FROM p_copy.listing_entries") == "dir/a\tb.bin");
  CHECK(q("SELECT string_agg(key, ',' ORDER BY key) FROM p_copy.objects_head") == "db,raw/plate");
}

TEST_CASE("a second publish skips known commits; a new commit writes only its rows") {
  for (std::size_t threshold : {std::size_t{0}, kNever}) {
    const std::string schema = threshold == 0 ? "p_again_copy" : "p_again_insert";
    CAPTURE(schema);
    publish_to(make_bundle(2), schema, threshold);
    auto again = publish_to(make_bundle(2), schema, threshold);
    CHECK(again.skipped_commits == 2);
    CHECK(upserted(again, "commits") == 0);
    CHECK(upserted(again, "objects") == 0);
    CHECK(upserted(again, "refs") == 2);
    auto next = publish_to(make_bundle(3), schema, threshold);
    CHECK(next.skipped_commits == 2);
    CHECK(upserted(next, "commits") == 1);
    CHECK(upserted(next, "commit_parents") == 1);
    CHECK(upserted(next, "objects") == 2);
    CHECK(q("SELECT count(*) FROM " + schema + ".objects") == "6");
    CHECK(q("SELECT count(*) FROM " + schema + ".refs") == "2");
    CHECK(q("SELECT commit_id FROM " + schema + ".refs WHERE kind = 'head'") == std::string(39, '0') + "3");
  }
}

TEST_CASE("rows of an unknown commit already present fall back to the upsert") {
  publish_to(make_bundle(3), "p_left", 0);
  q("DELETE FROM p_left.commits WHERE commit_id = '" + std::string(39, '0') + "2'");
  q("UPDATE p_left.objects SET kind = 'stale' WHERE commit_id = '" + std::string(39, '0') + "2'");
  auto r = publish_to(make_bundle(3), "p_left", 0);
  CHECK(r.skipped_commits == 2);
  CHECK(upserted(r, "objects") == 2);
  CHECK(q("SELECT count(*) FROM p_left.commits") == "3");
  CHECK(q("SELECT count(*) FROM p_left.objects") == "6");
  CHECK(q("SELECT count(*) FROM p_left.objects WHERE kind = 'stale'") == "0");
}

TEST_CASE("a dry run creates nothing and counts what it would write") {
  auto r = publish_to(make_bundle(3), "p_dry", 0, true);
  CHECK(r.dry_run);
  CHECK(r.skipped_commits == 0);
  CHECK(upserted(r, "objects") == 6);
  CHECK(q("SELECT count(*) FROM pg_namespace WHERE nspname = 'p_dry'") == "0");
  publish_to(make_bundle(2), "p_dry", 0);
  r = publish_to(make_bundle(3), "p_dry", 0, true);
  CHECK(r.skipped_commits == 2);
  CHECK(upserted(r, "objects") == 2);
  CHECK(q("SELECT count(*) FROM p_dry.commits") == "2");
}

TEST_CASE("a failure part-way rolls every table back") {
  for (std::size_t threshold : {std::size_t{0}, kNever}) {
    const std::string schema = threshold == 0 ? "p_bad_copy" : "p_bad_insert";
    CAPTURE(schema);
    q("CREATE SCHEMA " + schema + "; CREATE TABLE " + schema +
      ".listing_entries (listing_name TEXT, path TEXT, token TEXT, size INTEGER, PRIMARY KEY (listing_name, path))");
    CHECK_THROWS_WITH_AS(publish_to(make_bundle(2), schema, threshold),
                         doctest::Contains("failed at table listing_entries"), tether::TetherError);
    CHECK(q("SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = '" + schema + "'") == "listing_entries");
  }
}

TEST_CASE("a refused connection names host and port, never the password") {
  PublishOptions o;
  o.dsn = "host=127.0.0.1 port=1 user=u dbname=d password=hunter2 connect_timeout=5";
  try {
    publish(make_bundle(1), o);
    FAIL("connected to a closed port");
  } catch (const tether::TetherError& e) {
    std::string m = e.what();
    CHECK(m.starts_with("cannot connect to PostgreSQL (host 127.0.0.1 port 1): "));
    CHECK(m.find("hunter2") == std::string::npos);
  }
  o.dsn = "host=127.0.0.1 port=1 password=hunter2 bogus_option=1";
  try {
    publish(make_bundle(1), o);
    FAIL("accepted an unknown option");
  } catch (const tether::ConfigError& e) {
    CHECK(std::string(e.what()).find("hunter2") == std::string::npos);
    CHECK(std::string(e.what()).starts_with("invalid PostgreSQL DSN: "));
  }
}
