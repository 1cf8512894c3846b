// The PostgreSQL statement texts of publish (docs/registry.md#publish), the COPY text
// encoding (the DSN redaction is support/src/redact_test.cpp). The live behaviour is tests/cli/publish-postgres.sh.
#include "tether/registry/publish.hpp"

#include <doctest/doctest.h>

#include "tether/errors.hpp"

using namespace tether::registry;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string ddl_of(const std::vector<std::string>& ddl, const std::string& prefix) {
  for (const auto& s : ddl)
    if (s.starts_with(prefix)) return s;
  return "";
}

}  // namespace

TEST_CASE("postgres DDL: schema first, typed tables, views") {
  auto ddl = postgres_ddl("tether");
  REQUIRE(ddl.size() == 1 + tables().size() + views().size());
  CHECK(ddl[0] == "CREATE SCHEMA IF NOT EXISTS tether");
  std::string objects = ddl_of(ddl, "CREATE TABLE IF NOT EXISTS tether.objects ");
  CHECK(has(objects, "locator_json JSONB"));
  CHECK(has(objects, "captured_at TIMESTAMPTZ"));
  CHECK(has(objects, "recoverable BOOLEAN"));
  CHECK(has(objects, "PRIMARY KEY (commit_id, key)"));
  CHECK(has(ddl_of(ddl, "CREATE TABLE IF NOT EXISTS tether.listing_entries "), "size BIGINT"));
  CHECK(ddl_of(ddl, "CREATE OR REPLACE VIEW tether.objects_head") ==
        "CREATE OR REPLACE VIEW tether.objects_head AS SELECT o.* FROM tether.objects o JOIN tether.refs r "
        "ON r.commit_id = o.commit_id WHERE r.kind = 'head'");
  CHECK_FALSE(ddl_of(ddl, "CREATE OR REPLACE VIEW tether.object_pins AS ").empty());
}

TEST_CASE("postgres upserts: placeholders with casts, ON CONFLICT over the non-key columns") {
  std::string commits = postgres_upsert(table_def("commits"), "tether");
  CHECK(commits.starts_with("INSERT INTO tether.commits (commit_id, change_id"));
  CHECK(has(commits, "$5::timestamptz"));
  CHECK(has(commits, "ON CONFLICT (commit_id) DO UPDATE SET"));
  CHECK(has(commits, "message = EXCLUDED.message"));
  CHECK_FALSE(has(commits, "commit_id = EXCLUDED"));
  CHECK(postgres_upsert(table_def("commit_parents"), "tether")
            .ends_with("ON CONFLICT (commit_id, parent_id) DO UPDATE SET position = EXCLUDED.position"));
  std::string objects = postgres_upsert(table_def("objects"), "tether");
  CHECK(has(objects, "$5::jsonb"));
  CHECK(has(objects, "$14::boolean"));
  CHECK(has(objects, "VALUES ($1, $2, $3, $4, $5::jsonb,"));

  std::string two = postgres_upsert(table_def("refs"), "tether", 2);
  CHECK(has(two, "VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT (name, kind) DO UPDATE SET commit_id = EXCLUDED.commit_id"));
  CHECK(postgres_upsert_from(table_def("refs"), "reg", "pg_temp.t") ==
        "INSERT INTO reg.refs (name, kind, commit_id) SELECT name, kind, commit_id FROM pg_temp.t "
        "ON CONFLICT (name, kind) DO UPDATE SET commit_id = EXCLUDED.commit_id");
}

TEST_CASE("schema names: validated, quoted when PostgreSQL would fold or reserve them") {
  CHECK_THROWS_WITH_AS(postgres_ddl("bad-name"), "invalid SQL identifier: 'bad-name'", tether::ConfigError);
  CHECK_THROWS_AS(validate_identifier(""), tether::ConfigError);
  CHECK_THROWS_AS(validate_identifier("1st"), tether::ConfigError);
  CHECK_THROWS_AS(validate_identifier("a b"), tether::ConfigError);
  CHECK_THROWS_AS(validate_identifier("x\"; DROP"), tether::ConfigError);
  CHECK_NOTHROW(validate_identifier("_reg_2"));
  CHECK(quote_identifier("reg_2") == "reg_2");
  CHECK(quote_identifier("Reg") == "\"Reg\"");
  CHECK(quote_identifier("select") == "\"select\"");
  CHECK(quote_identifier("a\"b") == "\"a\"\"b\"");
  CHECK(postgres_ddl("User")[0] == "CREATE SCHEMA IF NOT EXISTS \"User\"");
}

TEST_CASE("COPY text rows: escapes, \\N, t/f") {
  std::string out;
  std::vector<Cell> row{Cell::text("a\\b\tc\nd\re"), Cell::null(), Cell::integer(-42), Cell::boolean(true),
                        Cell::boolean(false), Cell::text("")};
  append_copy_row(out, row);
  CHECK(out == "a\\\\b\\tc\\nd\\re\t\\N\t-42\tt\tf\t\n");
}

TEST_CASE("publish refuses a bad schema or no DSN before connecting") {
  Bundle b;
  PublishOptions o;
  o.dsn = "host=/nonexistent";
  o.schema = "bad-name";
  CHECK_THROWS_WITH_AS(publish(b, o), "invalid SQL identifier: 'bad-name'", tether::ConfigError);
  o.schema = "tether";
  o.dsn = "";
  CHECK_THROWS_AS(publish(b, o), tether::ConfigError);
}
