// The Neon API client over a scripted transport: retries, error messages, the key, GET
// parameters, DELETE's 404, and pagination of the branch listing (docs/backends.md#neon).
#include <doctest/doctest.h>

#include <cstdlib>
#include <deque>

#include "api.hpp"
#include "http.hpp"
#include "tether/sdk/error.hpp"

using namespace tether::neon;
using tether::sdk::Json;

namespace {

struct Script {
  std::deque<HttpResponse> answers;
  std::vector<std::string> requests;  // "METHOD url"
  std::vector<std::string> bearers, bodies;
  std::vector<double> slept;
  Transport transport() {
    return [this](const std::string& m, const std::string& url, const std::string& bearer, const std::string& body) {
      requests.push_back(m + " " + url);
      bearers.push_back(bearer);
      bodies.push_back(body);
      REQUIRE_FALSE(answers.empty());
      HttpResponse r = answers.front();
      answers.pop_front();
      return r;
    };
  }
  HttpClient client(const std::string& env = "TETHER_NEON_TEST_KEY") {
    ApiConfig c{"http://neon.test/api/v2/", env};
    return HttpClient(c, transport(), RetryPolicy{}, [this](double s) { slept.push_back(s); });
  }
};

HttpResponse answer(long status, Json body, std::optional<std::string> retry_after = std::nullopt) {
  return HttpResponse{status, body.dump(), std::move(retry_after)};
}

struct Key {
  Key() { setenv("TETHER_NEON_TEST_KEY", "k-123", 1); }
};

}  // namespace

TEST_CASE("503s are retried on the schedule and the call succeeds once the server recovers") {
  Key key;
  Script s;
  s.answers = {answer(503, {{"message", "busy"}}), answer(423, {{"message", "busy"}}),
               answer(429, {{"message", "slow down"}}, "2"), answer(200, {{"endpoints", Json::array()}})};
  HttpClient c = s.client();
  CHECK(c.get("/projects/p1/endpoints") == Json{{"endpoints", Json::array()}});
  CHECK(s.requests.size() == 4);
  CHECK(s.slept == std::vector<double>{0.5, 1, 2});
  CHECK(s.bearers[0] == "k-123");
  CHECK(s.requests[0] == "GET http://neon.test/api/v2/projects/p1/endpoints");
}

TEST_CASE("retries are bounded: after the last delay the error is reported") {
  Key key;
  Script s;
  for (int i = 0; i < 8; ++i) s.answers.push_back(answer(503, {{"message", "down"}}));
  HttpClient c = s.client();
  CHECK_THROWS_WITH(c.post("/projects/p1/branches", Json::object()), "Neon API POST /projects/p1/branches: 503 down");
  CHECK(s.requests.size() == 8);
  CHECK(s.slept.size() == 7);
}

TEST_CASE("a refused key names the environment variable; a missing key too") {
  Key key;
  Script s;
  s.answers = {answer(401, {{"message", "authentication failed"}})};
  HttpClient c = s.client();
  try {
    c.get("/projects/p1/branches");
    FAIL("no error");
  } catch (const tether::sdk::Error& e) {
    CHECK(e.status() == TETHER_E_AUTH);
    CHECK(std::string(e.what()).find("401 authentication failed") != std::string::npos);
    CHECK(std::string(e.what()).find("$TETHER_NEON_TEST_KEY") != std::string::npos);
  }
  unsetenv("TETHER_NEON_NO_SUCH_KEY");
  HttpClient none = s.client("TETHER_NEON_NO_SUCH_KEY");
  CHECK_THROWS_WITH(none.get("/x"), "Neon API key not found in $TETHER_NEON_NO_SUCH_KEY");
}

TEST_CASE("error text: the JSON message, else the body; DELETE accepts 404; GET drops empty parameters") {
  Key key;
  Script s;
  s.answers = {HttpResponse{409, "branch has children", std::nullopt}, answer(404, {{"message", "gone"}}),
               answer(200, {{"uri", "postgresql://u@h/db"}})};
  HttpClient c = s.client();
  CHECK_THROWS_WITH(c.patch("/projects/p1/branches/br-1", Json::object()),
                    "Neon API PATCH /projects/p1/branches/br-1: 409 branch has children");
  CHECK(c.del("/projects/p1/branches/br-9") == 404);
  c.get("/projects/p1/connection_uri", {{"branch_id", "br-1"}, {"endpoint_id", ""}, {"database_name", "neon db"}});
  CHECK(s.requests.back() == "GET http://neon.test/api/v2/projects/p1/connection_uri?branch_id=br-1&database_name=neon%20db");
}

TEST_CASE("branch listing follows cursors, stops on a repeated one, and is cached until a write") {
  Key key;
  Script s;
  auto b = [](const char* id, const char* name, Json parent) {
    return Json{{"id", id}, {"name", name}, {"parent_id", parent}, {"parent_lsn", nullptr}, {"protected", false},
                {"last_reset_at", nullptr}};
  };
  s.answers = {answer(200, {{"branches", {b("br-main", "main", nullptr), b("br-1", "tether.x", "br-main")}},
                            {"pagination", {{"cursor", "br-1"}}}}),
               answer(200, {{"branches", {b("br-2", "tether.ws.a.b", "br-1")}}, {"pagination", {{"cursor", "br-1"}}}}),
               answer(201, {{"branch", b("br-3", "n", "br-main")}}),
               answer(200, {{"branches", {b("br-main", "main", nullptr)}}})};
  HttpClient c = s.client();
  ProjectApi api(c, "p1");
  CHECK(api.branches().size() == 3);
  CHECK(api.find("br-2")->name == "tether.ws.a.b");  // by id too
  CHECK(api.require("tether.x").parent_id == std::optional<std::string>("br-main"));
  CHECK(api.children_of("br-1") == std::vector<std::string>{"tether.ws.a.b"});
  CHECK(s.requests.size() == 2);  // one listing for all of the above
  CHECK(s.requests[0] == "GET http://neon.test/api/v2/projects/p1/branches?limit=500");
  CHECK(s.requests[1] == "GET http://neon.test/api/v2/projects/p1/branches?cursor=br-1&limit=500");
  api.create_branch(Json{{"name", "n"}, {"parent_id", "br-main"}}, true);
  CHECK(Json::parse(s.bodies[2]) == Json{{"branch", {{"name", "n"}, {"parent_id", "br-main"}}}, {"endpoints", Json::array()}});
  CHECK(api.branches().size() == 1);  // re-listed after the write
  CHECK_THROWS_WITH(api.require("gone"), "neon: branch 'gone' not found in project p1");
}

TEST_CASE("connection_uri names the endpoint; a URI without a password gets the role's revealed one") {
  Key key;
  Script s;
  s.answers = {answer(200, {{"uri", "postgresql://alice:pw@h:5/db"}}), answer(200, {{"uri", "postgresql://alice@h:5/db"}}),
               answer(200, {{"password", "s e/cret"}}), answer(200, {{"uri", "postgresql://alice@h:5/db"}}),
               answer(404, {{"message", "no such role"}})};
  HttpClient c = s.client();
  ProjectApi api(c, "p1");
  CHECK(api.connection_uri("br-1", "ep-1", "db", "alice") == "postgresql://alice:pw@h:5/db");
  CHECK(s.requests[0] ==
        "GET http://neon.test/api/v2/projects/p1/connection_uri?branch_id=br-1&database_name=db&endpoint_id=ep-1&role_name=alice");
  CHECK(api.connection_uri("br-1", "ep-1", "db", "alice") == "postgresql://alice:s%20e%2Fcret@h:5/db");
  CHECK(s.requests[2] == "GET http://neon.test/api/v2/projects/p1/branches/br-1/roles/alice/reveal_password");
  CHECK(api.connection_uri("br-1", "ep-1", "db", "alice") == "postgresql://alice@h:5/db");  // left to ~/.pgpass
}

TEST_CASE("answers are parsed within the SDK's limits: a deep body is refused, not a crash") {
  Key key;
  Script s;
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  s.answers = {HttpResponse{200, deep, std::nullopt}, HttpResponse{409, "{\"message\": " + deep + "}", std::nullopt},
               HttpResponse{200, "{\"a\": " + std::string(127, '[') + std::string(127, ']') + "}", std::nullopt}};
  HttpClient c = s.client();
  CHECK_THROWS_WITH(c.get("/projects/p1", {}), "Neon API GET /projects/p1: 200 answer refused: nesting deeper than 128 levels");
  try {
    c.patch("/projects/p1", Json::object());
    FAIL("no error");
  } catch (const tether::sdk::Error& e) {  // the message falls back to the (cut) body
    CHECK(std::string(e.what()).rfind("Neon API PATCH /projects/p1: 409 {\"message\": [[[", 0) == 0);
  }
  CHECK(c.get("/projects/p1", {}).is_object());
}
