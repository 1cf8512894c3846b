// Locators, identity, redaction, the alias and the ATTACH statement
// (docs/backends.md#ducklake); the expected strings are the reference backend's.
#include <doctest/doctest.h>

#include "lake.hpp"
#include "locator.hpp"
#include "tether/sdk/error.hpp"

using namespace tether::ducklake;
using tether::sdk::Json;

namespace {

std::string refusal(const Json& locator) {
  try {
    parse_locator(locator);
  } catch (const tether::sdk::BackendError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("the reference's ATTACH strings") {
  CHECK(attach_sql("ducklake:a'b.db", "x") == "ATTACH 'ducklake:a''b.db' AS x (READ_ONLY)");
  AttachOptions o;
  o.data_path = "s3://b/p/";
  o.snapshot_id = 7;
  CHECK(attach_sql("ducklake:m", "x", o) == "ATTACH 'ducklake:m' AS x (DATA_PATH 's3://b/p/', SNAPSHOT_VERSION 7, READ_ONLY)");
  AttachOptions rw;
  rw.read_only = false;
  CHECK(attach_sql("ducklake:m", "x", rw) == "ATTACH 'ducklake:m' AS x");
  AttachOptions schema;
  schema.metadata_schema = "lake's";
  schema.snapshot_id = 0;
  CHECK(attach_sql("ducklake:postgres:dbname=lake", "y", schema) ==
        "ATTACH 'ducklake:postgres:dbname=lake' AS y (METADATA_SCHEMA 'lake''s', SNAPSHOT_VERSION 0, READ_ONLY)");
}

TEST_CASE("aliases: BLAKE2b with a 4-byte output over the metadata string") {
  CHECK(alias_of("ducklake:sqlite:/tmp/lake/cat.db") == "tether_2a8b930a");
  CHECK(alias_of("ducklake:postgres:dbname=lake host=db") == "tether_2757ce11");
  CHECK(alias_of("ducklake:/abs/cat.ducklake") == "tether_c05232c4");
  CHECK(alias_of("") == "tether_1271cf25");
}

TEST_CASE("metadata: the ducklake: prefix added, flavours told apart") {
  CHECK(normalise_metadata("/data/cat.sqlite") == "ducklake:/data/cat.sqlite");
  CHECK(normalise_metadata("ducklake:sqlite:/data/cat.db") == "ducklake:sqlite:/data/cat.db");
  CHECK(normalise_metadata("sqlite:/data/cat.db") == "ducklake:sqlite:/data/cat.db");

  Target s = parse_locator(Json{{"metadata", "ducklake:sqlite:/data/cat.db"}, {"table", "t"}, {"at", "3"}});
  CHECK(s.flavour == Flavour::Sqlite);
  CHECK(s.where == "/data/cat.db");
  CHECK(s.table == "t");
  CHECK(s.at == 3);
  Target u = parse_locator(Json{{"uri", "/data/cat.sqlite"}});
  CHECK(u.flavour == Flavour::Path);
  CHECK(u.metadata == "ducklake:/data/cat.sqlite");
  CHECK(u.where == "/data/cat.sqlite");
  Target p = parse_locator(Json{{"metadata", "ducklake:postgres:dbname=lake host=db"}, {"metadata_schema", "lake"}});
  CHECK(p.flavour == Flavour::Postgres);
  CHECK(p.where == "dbname=lake host=db");
  CHECK(p.metadata_schema == "lake");
  CHECK(parse_locator(Json{{"metadata", "ducklake:postgres:"}}).where.empty());  // libpq's defaults
  CHECK(parse_locator(Json{{"metadata", "ducklake:sqlite:/c.db"}, {"at", 5}}).at == 5);
  CHECK_FALSE(parse_locator(Json{{"metadata", "ducklake:sqlite:/c.db"}, {"at", ""}}).at);
}

TEST_CASE("identity: metadata, then data_path and metadata_schema when set; table and at are not part") {
  CHECK(identity_of(parse_locator(Json{{"metadata", "/d/c.sqlite"}, {"table", "t"}, {"at", "2"}})) ==
        Json{{"metadata", "ducklake:/d/c.sqlite"}});
  CHECK(identity_of(parse_locator(Json{{"metadata", "ducklake:sqlite:/d/c.db"}, {"data_path", "s3://b/p/"}})) ==
        Json{{"metadata", "ducklake:sqlite:/d/c.db"}, {"data_path", "s3://b/p/"}});
  CHECK(identity_of(parse_locator(Json{{"metadata", "ducklake:postgres:dbname=x"}, {"metadata_schema", "s"}})) ==
        Json{{"metadata", "ducklake:postgres:dbname=x"}, {"metadata_schema", "s"}});
}

TEST_CASE("refused locators say why and what to write instead") {
  CHECK(refusal(Json::object()).find("needs 'metadata'") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:duckdb:/d/cat.ducklake"}}).find("DuckDB-file") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:md:my_lake"}}).find("MotherDuck") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:mysql:db=lake"}}).find("MySQL") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:my_lake"}}).find("DuckDB secret") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:sqlite:cat.db"}}).find("is relative; write it absolute") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:cat.sqlite"}}).find("or as ducklake:sqlite:cat.sqlite") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:sqlite:/c.db"}, {"at", "latest"}}).find("'at' must be a snapshot id") !=
        std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:sqlite:/c.db"}, {"at", "-1"}}) != "(accepted)");
  CHECK(refusal(Json{{"metadata", 5}}).find("must be a string") != std::string::npos);
  CHECK(refusal(Json{{"metadata", "ducklake:sqlite:/c.db"}, {"metadata_schema", "s"}}).find("Postgres") !=
        std::string::npos);
  for (const char* m : {"ducklake:duckdb:/d/c", "ducklake:md:x", "ducklake:x", "ducklake:mysql:x"}) {
    CAPTURE(m);
    CHECK(refusal(Json{{"metadata", m}}).find("ducklake:sqlite:<path> or ducklake:postgres:<conninfo>") !=
          std::string::npos);
  }
}

TEST_CASE("passwords never reach a message or an address") {
  CHECK(redact("ducklake:postgres:dbname=lake password=s3cret host=db") ==
        "ducklake:postgres:dbname=lake password=**** host=db");
  CHECK(redact("ducklake:postgres:password = 'a b\\'c' dbname=x") == "ducklake:postgres:password = **** dbname=x");
  CHECK(redact("ducklake:postgres:postgresql://me:s3cret@db:5432/lake") ==
        "ducklake:postgres:postgresql://me:****@db:5432/lake");
  CHECK(redact("ducklake:postgres:postgresql://db/lake?user=me&password=s3cret&sslmode=require") ==
        "ducklake:postgres:postgresql://db/lake?user=me&password=****&sslmode=require");
  CHECK(redact("ducklake:postgres:postgres://me@db/lake") == "ducklake:postgres:postgres://me@db/lake");
  CHECK(redact("ducklake:postgres:dbname=passwords") == "ducklake:postgres:dbname=passwords");
  CHECK(redact("ducklake:sqlite:/d/password=x.db") == "ducklake:sqlite:/d/password=x.db");
}

TEST_CASE("spec versions: 0.1 to 1.1-dev1 in order") {
  auto v = [](const char* s) { return *parse_spec_version(s); };
  CHECK(v("0.1") < v("0.2"));
  CHECK(v("0.3-dev1") < v("0.3"));
  CHECK(v("0.3") < v("0.4-dev1"));
  CHECK(v("0.4") < v("1.0"));
  CHECK(v("1.0") < v("1.1-dev1"));
  CHECK(v("1.1-dev1") < v("1.1"));
  CHECK(v("1.1-dev1") < v("1.1-dev2"));
  CHECK(v("1.1") < v("9.9"));
  CHECK_FALSE(parse_spec_version("1"));
  CHECK_FALSE(parse_spec_version("1.0-rc1"));
  CHECK_FALSE(parse_spec_version("v1.0"));
  CHECK_FALSE(parse_spec_version("1.0-dev0"));
}
