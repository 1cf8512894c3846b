// tether-harness-neon.so: the conformance harness of the neon backend. It runs against a Neon
// API at $TETHER_NEON_API_URL with the key in $NEON_API_KEY -- in the test suite the stand-in
// (tests/support/neon-standin, every branch a real PostgreSQL cluster), started around the
// runner by tests/support/with-neon-standin. new_object creates a project (root branch
// `main`, database neondb owned by role tether) and mutate commits one new row through libpq
// on the branch's read-write compute; cleanup deletes the projects a case made.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <libpq-fe.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "http.hpp"
#include "tether/harness.h"
#include "tether/harness_support.hpp"

namespace {

namespace fs = std::filesystem;
using tether::harness::fail;
using tether::harness::put;
using nlohmann::json;

tether::neon::HttpClient client() {
  tether::neon::ApiConfig c;
  const char* url = std::getenv("TETHER_NEON_API_URL");
  if (!url || !*url) throw std::runtime_error("the neon harness needs $TETHER_NEON_API_URL (a Neon API or the stand-in)");
  c.api_url = url;
  return tether::neon::HttpClient(c);
}

int new_object(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    auto http = client();
    json r = http.post("/projects", json{{"project",
                                          {{"name", "conformance"},
                                           {"branch", {{"name", "main"}, {"role_name", "tether"}, {"database_name", "neondb"}}}}}});
    std::string id = r.at("project").at("id").get<std::string>();
    std::ofstream(fs::path(workdir) / "neon-projects", std::ios::app) << id << "\n";
    return put(json{{"project_id", id}, {"database", "neondb"}, {"role", "tether"}}.dump(), out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    json loc = json::parse(locator_json);
    auto http = client();
    tether::neon::ProjectApi api(http, loc.at("project_id").get<std::string>());
    auto b = api.require(working_ref ? working_ref : loc.value("branch", std::string("main")));
    std::string endpoint;
    for (const auto& e : api.endpoints_of(b.id))
      if (e.type == "read_write") endpoint = e.id;
    if (endpoint.empty()) endpoint = api.create_endpoint(b.id, "read_write");
    std::string uri = api.connection_uri(b.id, endpoint, loc.at("database"), loc.at("role"));
    std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(uri.c_str()), &PQfinish);
    if (PQstatus(c.get()) != CONNECTION_OK) return fail(err, errcap, std::string("connect: ") + PQerrorMessage(c.get()));
    PQsetNoticeProcessor(c.get(), [](void*, const char*) {}, nullptr);  // "already exists, skipping"
    std::unique_ptr<PGresult, decltype(&PQclear)> r(
        PQexec(c.get(), "create table if not exists writes(n serial primary key, at timestamptz default now()); "
                        "insert into writes default values"),
        &PQclear);
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return fail(err, errcap, std::string("write: ") + PQerrorMessage(c.get()));
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

void cleanup(const char* workdir) noexcept {
  try {
    std::ifstream in(fs::path(workdir) / "neon-projects");
    auto http = client();
    for (std::string id; std::getline(in, id);)
      if (!id.empty()) http.del("/projects/" + id);
  } catch (...) {
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "neon", nullptr, 0, new_object, mutate, nullptr, cleanup,
};
