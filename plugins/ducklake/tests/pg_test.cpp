// The Postgres code path: the synthetic scenario and every converted genuine catalog loaded
// into a schema of the database TETHER_TEST_PG_CONNINFO names (skipped, exit 77, without it),
// read through `ducklake:postgres:<conninfo>` with `metadata_schema`. snapshot_time becomes a
// real timestamptz column, as the extension creates it on Postgres.
#include <doctest/doctest.h>

#include <libpq-fe.h>
#include <unistd.h>

#include "scenario.hpp"
#include "support.hpp"

using namespace tether::ducklake::testing;

namespace {

const std::string& conninfo() {
  static std::string c = [] {
    const char* env = std::getenv("TETHER_TEST_PG_CONNINFO");
    if (!env || !*env) {
      std::fprintf(stderr, "TETHER_TEST_PG_CONNINFO is not set: the Postgres cases are skipped\n");
      std::exit(77);
    }
    return std::string(env);
  }();
  return c;
}

// One schema of the test database, dropped again at scope exit.
class PgSchema {
 public:
  explicit PgSchema(const std::string& name) : name_(name + "_" + std::to_string(::getpid())) {
    conn_ = PQconnectdb(conninfo().c_str());
    REQUIRE_MESSAGE(PQstatus(conn_) == CONNECTION_OK, PQerrorMessage(conn_));
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    exec("DROP SCHEMA IF EXISTS " + name_ + " CASCADE; CREATE SCHEMA " + name_);
  }
  ~PgSchema() {
    PQclear(PQexec(conn_, ("DROP SCHEMA IF EXISTS " + name_ + " CASCADE").c_str()));
    PQfinish(conn_);
  }
  PgSchema(const PgSchema&) = delete;
  PgSchema& operator=(const PgSchema&) = delete;

  const std::string& name() const { return name_; }
  void exec(const std::string& sql) {
    std::string full = "SET search_path TO " + name_ + "; " + sql;
    PGresult* r = PQexec(conn_, full.c_str());
    INFO(PQresultErrorMessage(r));
    CHECK(PQresultStatus(r) == PGRES_COMMAND_OK);
    PQclear(r);
  }
  // A fixture dump in SQLite's .dump form; PRAGMA lines are SQLite's own.
  void load(const fs::path& dump) {
    std::string sql, line;
    std::istringstream in(read_text(dump));
    while (std::getline(in, line))
      if (line.rfind("PRAGMA", 0) != 0) sql += line + "\n";
    exec(sql);
    exec("ALTER TABLE ducklake_snapshot ALTER COLUMN snapshot_time TYPE timestamptz USING snapshot_time::timestamptz");
  }
  Json locator() const { return Json{{"metadata", "ducklake:postgres:" + conninfo()}, {"metadata_schema", name_}}; }

 private:
  std::string name_;
  PGconn* conn_ = nullptr;
};

}  // namespace

TEST_CASE("Postgres: the synthetic catalog gives the same results as in SQLite") {
  Plugin be;
  PgSchema pg("tether_dl_synthetic");
  pg.load(fixtures() / "synthetic" / "tether_diff_scenario.sql");
  check_synthetic(be, pg.locator(), [&](const std::string& sql) { pg.exec(sql); });
  Json h = be->open(pg.locator());
  CHECK(contains(h["attach_sql"].get<std::string>(), "(METADATA_SCHEMA '" + pg.name() + "', READ_ONLY)"));
  CHECK(be->identity(pg.locator())["metadata_schema"] == pg.name());
}

TEST_CASE("Postgres: every converted genuine catalog fingerprints and has a history") {
  Plugin be;
  for (const auto& entry : fs::directory_iterator(fixtures() / "sqlite")) {
    if (entry.path().extension() != ".sql") continue;
    std::string name = entry.path().stem().string();
    CAPTURE(name);
    for (char& c : name)
      if (c == '-') c = '_';
    PgSchema pg("tether_dl_" + name);
    pg.load(entry.path());
    auto fp = be->fingerprint(pg.locator());
    auto h = be->history(pg.locator(), std::nullopt, 1000);
    REQUIRE_FALSE(h.empty());
    CHECK(h.front().id == std::to_string(fp["snapshot_id"].get<int64_t>()));
    CHECK(h.back().message == "schema created: main");
    CHECK(be->verify(pg.locator(), fp, std::nullopt).status == tether::sdk::VerifyStatus::Ok);
  }
}

TEST_CASE("Postgres: a schema without a catalog, and a missing schema") {
  Plugin be;
  PgSchema pg("tether_dl_empty");
  CHECK(contains(error_of([&] { be->fingerprint(pg.locator()); }), "is not a DuckLake catalog"));
  Json nowhere = pg.locator();
  nowhere["metadata_schema"] = pg.name() + "_missing";
  CHECK(contains(error_of([&] { be->fingerprint(nowhere); }), "is not a DuckLake catalog"));
}
