// Which credentials a Postgres catalog named by a manifest gets (pg_credentials.hpp): the
// decision alone, without a server (tests/security/creds-ducklake-pg.sh connects for real).
#include <doctest/doctest.h>

#include <map>

#include "pg_credentials.hpp"
#include "tether/sdk/error.hpp"

using namespace tether::ducklake;
using tether::sdk::Json;

namespace {

std::map<std::string, std::string> params(const PgConnectPlan& p) { return {p.params.begin(), p.params.end()}; }

PgEnvironment env_with(std::string pghost = "", std::string pgpass = "") {
  PgEnvironment e;
  e.pghost = std::move(pghost);
  e.login = "me";
  e.pgpass = std::move(pgpass);
  return e;
}

}  // namespace

TEST_CASE("a host nobody named gets no environment credentials") {
  auto plan = plan_connection("host=evil.example port=5433 dbname=lake", Json::object(), env_with("db.internal"));
  auto p = params(plan);
  CHECK_FALSE(plan.host_named);
  CHECK(plan.placeholder_password);
  CHECK(p["password"] == kPlaceholderPassword);  // so libpq never falls back to $PGPASSWORD
  CHECK(p["sslcert"].starts_with("/dev/null/"));
  CHECK(p["sslkey"].starts_with("/dev/null/"));
  CHECK(p["host"] == "evil.example");
  CHECK(p["port"] == "5433");
  CHECK(plan.hosts == "evil.example");
}

TEST_CASE("hosts the user named get the environment") {
  SUBCASE("no host: libpq's default ($PGHOST or the local socket)") {
    auto plan = plan_connection("dbname=lake", Json::object(), env_with());
    CHECK(plan.host_named);
    CHECK_FALSE(params(plan).count("password"));
  }
  SUBCASE("$PGHOST") {
    auto plan = plan_connection("host=db.internal dbname=lake", Json::object(), env_with("db.internal,db2"));
    CHECK(plan.host_named);
    CHECK_FALSE(params(plan).count("password"));
    CHECK_FALSE(params(plan).count("sslcert"));
  }
  SUBCASE("every host of a list must be named") {
    CHECK_FALSE(plan_connection("host=db.internal,evil dbname=lake", Json::object(), env_with("db.internal")).host_named);
  }
  SUBCASE("secrets: hosts") {
    auto plan = plan_connection("host=db.internal dbname=lake", Json{{"hosts", {"db.internal"}}}, env_with());
    CHECK(plan.host_named);
  }
  SUBCASE("secrets choose the host themselves") {
    auto plan = plan_connection("host=evil dbname=lake", Json{{"host", "db.internal"}}, env_with());
    CHECK(plan.host_named);
    CHECK(params(plan)["host"] == "db.internal");
  }
}

TEST_CASE("secrets' libpq keywords apply; other secrets are not libpq's") {
  auto plan = plan_connection("host=evil dbname=lake", Json{{"password", "s3"}, {"api_key_env", "X"}, {"port", 6000}},
                              env_with());
  auto p = params(plan);
  CHECK(p["password"] == "s3");
  CHECK(p["port"] == "6000");
  CHECK_FALSE(p.count("api_key_env"));
  CHECK_FALSE(plan.placeholder_password);
}

TEST_CASE("~/.pgpass lines count when they name the host literally") {
  const std::string pgpass = "# comment\n*:*:*:*:wildcard\nevil:5432:lake:me:for-evil\nother:*:*:*:x\n";
  auto plan = plan_connection("host=evil dbname=lake", Json::object(), env_with("", pgpass));
  CHECK(params(plan)["password"] == "for-evil");
  CHECK_FALSE(plan.placeholder_password);
  auto wild = plan_connection("host=elsewhere dbname=lake", Json::object(), env_with("", pgpass));
  CHECK(params(wild)["password"] == kPlaceholderPassword);  // a `*` host names no host
  auto escaped = plan_connection("host=h dbname=d user=u", Json::object(), env_with("", "h:*:d:u:a\\:b\\\\c\n"));
  CHECK(params(escaped)["password"] == "a:b\\c");
}

TEST_CASE("a manifest may not choose credentials or files on this machine") {
  for (const char* bad : {"host=h password=x", "host=h passfile=/tmp/p", "host=h service=prod", "host=h sslkey=/k",
                          "host=h sslcert=/c", "host=h sslrootcert=/r", "host=h options=-csearch_path=x",
                          "postgresql://u:pw@h/db", "postgresql://h/db?service=prod"})
    CHECK_THROWS_WITH_AS(plan_connection(bad, Json::object(), env_with()), doctest::Contains("chooses credentials"),
                         tether::sdk::BackendError);
  CHECK_THROWS_WITH_AS(plan_connection("host='unterminated", Json::object(), env_with()),
                       doctest::Contains("not one libpq reads"), tether::sdk::BackendError);
}

TEST_CASE("a URI's parts become separate keywords, never parsed again") {
  auto p = params(plan_connection("postgresql://evil:5433/lake?sslmode=require", Json::object(), env_with()));
  CHECK(p["host"] == "evil");
  CHECK(p["port"] == "5433");
  CHECK(p["dbname"] == "lake");
  CHECK(p["sslmode"] == "require");
  // a dbname that looks like a conninfo stays a name (expand_dbname = 0)
  auto q = params(plan_connection("host=h dbname='x host=evil'", Json::object(), env_with()));
  CHECK(q["dbname"] == "x host=evil");
  CHECK(q["host"] == "h");
}
