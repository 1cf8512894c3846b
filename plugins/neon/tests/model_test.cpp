// The pure parts of the neon backend (docs/backends.md#neon): locator, identity, state,
// lineage, sibling names, blockers, retry decisions and password redaction.
#include <doctest/doctest.h>

#include "model.hpp"
#include "tether/sdk/error.hpp"

using namespace tether::neon;
using tether::sdk::Json;

namespace {
Json full() { return Json{{"project_id", "p1"}, {"database", "neondb"}, {"role", "app"}}; }
Branch br(std::string id, std::string name, std::optional<std::string> parent = std::nullopt) {
  Branch b;
  b.id = std::move(id);
  b.name = std::move(name);
  b.parent_id = std::move(parent);
  return b;
}
}  // namespace

TEST_CASE("locator: project_id, database and role are required; branch defaults to main") {
  Target t = parse_target(full());
  CHECK(t.project_id == "p1");
  CHECK(t.database == "neondb");
  CHECK(t.role == "app");
  CHECK(t.branch == "main");
  Json l = full();
  l["branch"] = "dev";
  CHECK(parse_target(l).branch == "dev");
  CHECK_THROWS_WITH(parse_target(Json{{"project_id", "p1"}}),
                    "neon locator needs 'database', 'role' (`--database`, `--role`)");
  CHECK_THROWS_WITH(parse_target(Json::object()), doctest::Contains("'project_id', 'database', 'role'"));
  Json empty = full();
  empty["role"] = "";
  CHECK_THROWS_WITH(parse_target(empty), doctest::Contains("needs 'role'"));
  Json bad = full();
  bad["database"] = 3;
  CHECK_THROWS_WITH(parse_target(bad), doctest::Contains("must be a string"));
}

TEST_CASE("locator: `at` is refused, pointing at pinning from a branch") {
  Json l = full();
  l["at"] = "0/16B3748";
  CHECK_THROWS_WITH(parse_target(l), doctest::Contains("pin from a branch"));
}

TEST_CASE("identity is {project_id, branch}; scope and namespace the project") {
  Json a = full(), b = full();
  b["database"] = "analytics";
  b["role"] = "other";
  CHECK(identity_of(parse_target(a)) == Json{{"project_id", "p1"}, {"branch", "main"}});
  CHECK(identity_of(parse_target(a)) == identity_of(parse_target(b)));  // one pin per commit per project
  CHECK(scope_of(parse_target(a)) == "neon:p1");
}

TEST_CASE("state: timeline only when it differs from the lineage; parse reads it back") {
  CHECK(make_state("0/16B3748", "742", "main", "main") ==
        Json{{"lsn", "0/16B3748"}, {"commit_xid", "742"}, {"branch", "main"}});
  Json s = make_state("0/2000000", "<1024", "main", "tether.ws.ab12cd34.x");
  CHECK(s["timeline"] == "tether.ws.ab12cd34.x");
  StateView v = parse_state(s);
  CHECK(v.lsn == "0/2000000");
  CHECK(v.commit_xid == "<1024");
  CHECK(v.timeline_branch() == "tether.ws.ab12cd34.x");
  CHECK(parse_state(Json{{"lsn", "0/1"}, {"branch", "main"}}).timeline_branch() == "main");
  CHECK_THROWS_WITH(parse_state(Json{{"sha", "abc"}}), doctest::Contains("not a neon state"));
  // A committed LSN is checked before it reaches a URI or an API request.
  for (const char* bad : {"0/A42B78&host=evil&port=5433", "0/", "/1", "0/1 ", "g/1", "0/123456789", "0/1?x", "01"})
    CHECK_THROWS_WITH(parse_state(Json{{"lsn", bad}, {"branch", "main"}}), doctest::Contains("is not a PostgreSQL LSN"));
  CHECK(is_lsn("0/16B3748"));
  CHECK(is_lsn("FFFFFFFF/ffffffff"));
}

TEST_CASE("lineage: the source name when the branch or an ancestor has it, else the branch's own") {
  std::vector<Branch> all{br("br-main", "main"), br("br-1", "tether.p", "br-main"), br("br-2", "tether.ws.a.x", "br-1"),
                          br("br-3", "other"), br("br-4", "child", "br-3"), br("br-5", "loop-a", "br-6"),
                          br("br-6", "loop-b", "br-5")};
  CHECK(lineage_of(all[0], all, "main") == "main");
  CHECK(lineage_of(all[2], all, "main") == "main");
  CHECK(lineage_of(all[4], all, "main") == "child");
  CHECK(lineage_of(all[5], all, "main") == "loop-a");  // a cycle ends the walk
  CHECK(lineage_of(all[4], all, "other") == "other");
}

TEST_CASE("sibling names: <name>.2, .3, ... the first free one") {
  CHECK(sibling_name("tether.ws.a.x", {"tether.ws.a.x"}) == "tether.ws.a.x.2");
  CHECK(sibling_name("w", {"w", "w.2", "w.3", "w.5"}) == "w.4");
}

TEST_CASE("blockers: null without children, else a count, three names and the way out") {
  CHECK_FALSE(blockers_text({}));
  CHECK(*blockers_text({"tether.b", "tether.a"}) ==
        "2 branch(es) hang off it (tether.a, tether.b); Neon deletes a branch only once its children are gone -- "
        "release those pins first");
  CHECK(blockers_text({"d", "c", "b", "a"})->find("(a, b, c, ...)") != std::string::npos);
}

TEST_CASE("retry policy: 423, 429 and 5xx on the schedule, Retry-After digits capped, then give up") {
  RetryPolicy p;
  CHECK(p.delay(503, 0, std::nullopt) == doctest::Approx(0.5));
  CHECK(p.delay(423, 1, std::nullopt) == doctest::Approx(1));
  CHECK(p.delay(429, 6, std::nullopt) == doctest::Approx(30));
  CHECK_FALSE(p.delay(503, 7, std::nullopt));  // after the last delay the answer stands
  CHECK(p.delay(500, 0, std::nullopt));
  CHECK(p.delay(502, 0, std::nullopt));
  for (long s : {200L, 201L, 400L, 401L, 403L, 404L, 409L, 422L}) CHECK_FALSE(p.delay(s, 0, std::nullopt));
  CHECK(p.delay(429, 0, std::string("3")) == doctest::Approx(3));
  CHECK(p.delay(429, 0, std::string("600")) == doctest::Approx(60));
  CHECK(p.delay(429, 2, std::string("Wed, 21 Oct 2015 07:28:00 GMT")) == doctest::Approx(2));  // not digits only
}

TEST_CASE("redaction: the userinfo password and a password= parameter become ****") {
  CHECK(redact_password("postgresql://app:s3cr%40t@ep-1.neon.tech/neondb?sslmode=require") ==
        "postgresql://app:****@ep-1.neon.tech/neondb?sslmode=require");
  CHECK(redact_password("postgresql://app:p@ss@127.0.0.1:5432/db") == "postgresql://app:****@127.0.0.1:5432/db");
  CHECK(redact_password("postgresql://app@h/db") == "postgresql://app@h/db");
  CHECK(redact_password("postgresql://h/db?user=u&password=x&sslmode=require") ==
        "postgresql://h/db?user=u&password=****&sslmode=require");
  CHECK(redact_password("postgresql://h/db?password2=x") == "postgresql://h/db?password2=x");
  CHECK(has_password("postgresql://a:b@h/db"));
  CHECK_FALSE(has_password("postgresql://a@h/db"));
  CHECK_FALSE(has_password("postgresql://h/db"));
}

TEST_CASE("URIs: a password goes into the userinfo encoded; query parameters join with ? or &") {
  CHECK(with_password("postgresql://app@h:5/db", "a b/c") == "postgresql://app:a%20b%2Fc@h:5/db");
  CHECK(with_password("postgresql://app:old@h/db", "new") == "postgresql://app:new@h/db");
  CHECK(with_password("postgresql://h/db", "x") == "postgresql://h/db");
  CHECK(add_query("postgresql://h/db", "options=neon_lsn:0/1") == "postgresql://h/db?options=neon_lsn:0/1");
  CHECK(add_query("postgresql://h/db?sslmode=require", "options=neon_lsn:0/1") ==
        "postgresql://h/db?sslmode=require&options=neon_lsn:0/1");
}
