// The backend on Azure Blob storage: Microsoft's emulator, Azurite, run through
// tests/azure/with-azurite (skipped, exit 77, without it). Each test makes its own container.
// There is no independent Azure client here, so the objects are written with tether's own
// (support/objstore), and the checks are on what the backend makes of them: states, rows,
// listings, diffs and errors.
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include <doctest/doctest.h>

#include "hashing.hpp"
#include "support.hpp"

namespace tether::file::test {
namespace {

using V = tether_backend_vtable;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Json azurite_options(const std::string& key = "") {
  if (env("TETHER_TEST_AZURE_ENDPOINT").empty()) {
    MESSAGE("no Azure Blob emulator (run through tests/azure/with-azurite): skipped");
    std::exit(77);
  }
  return Json{{"endpoint", env("TETHER_TEST_AZURE_ENDPOINT")},
              {"account_name", env("TETHER_TEST_AZURE_ACCOUNT")},
              {"account_key", key.empty() ? env("TETHER_TEST_AZURE_KEY") : key},
              {"allow_http", true}};
}

objstore::Environment no_env() {
  return objstore::Environment{[](const std::string&) { return std::optional<std::string>(); }, "/nonexistent"};
}

// A fresh container; returns the client that writes into it.
std::unique_ptr<objstore::Store> new_container(const std::string& name) {
  static std::atomic<int> n{0};
  objstore::Options o = objstore::options_from(azurite_options(), "test");
  std::string c = "tf-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  auto store = objstore::open(*objstore::parse_location("az://" + c), o, no_env());
  store->create_bucket();
  return store;
}

struct Fixture {
  Fixture(const std::string& root, const Json& rule) : backend(Json::object(), options()), d(backend) {
    Json rules = Json::object();
    rules[root + "/"] = rule;
    d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", Json::object()}, {"rules", rules}});
  }
  static FileBackendOptions options() {
    FileBackendOptions o;
    o.environment = no_env();
    return o;
  }
  FileBackend backend;
  Driver d;
};

}  // namespace

TEST_CASE("Azure Blob: a blob, a prefix, their listing and diff") {
  auto store = new_container("blob");
  const std::string root = store->root();
  REQUIRE(root.rfind("az://", 0) == 0);
  store->put("data/a.csv", "a,1");
  store->put("data/b.csv", "b,22");
  store->put("other.txt", "x");
  Fixture f(root, azurite_options());

  Json object = f.d.state(root + "/data/a.csv");
  auto head = store->head("data/a.csv");
  REQUIRE(head);
  CHECK(object == Json{{"type", "object"}, {"size", 3}, {"etag", head->etag}});
  CHECK_FALSE(head->etag.empty());

  const std::string prefix = root + "/data/";
  Json a = f.d.state(prefix);
  Rows rows{{"data/a.csv", head->etag, 3}, {"data/b.csv", store->head("data/b.csv")->etag, 4}};
  CHECK(a == Json{{"type", "prefix"}, {"count", 2}, {"size", 7}, {"digest", rows_digest(rows)}});
  std::string la = f.d.ok(&V::listing, Json{{"locator", {{"uri", prefix}}}, {"state", a}})["listing"];
  CHECK(la == render_listing(rows));

  store->put("data/c.csv", "c");
  store->remove("data/a.csv");
  Json b = f.d.state(prefix);
  std::string lb = f.d.ok(&V::listing, Json{{"locator", {{"uri", prefix}}}, {"state", b}})["listing"];
  Json diff = f.d.ok(&V::diff, Json{{"locator", {{"uri", prefix}}}, {"a", a}, {"b", b}, {"listing_a", la}, {"listing_b", lb}});
  CHECK(diff["entries"] == Json::parse(R"([
    {"path": "data/a.csv", "change": "removed", "detail": "-3 B"},
    {"path": "data/c.csv", "change": "added", "detail": "+1 B"}])"));
  CHECK(f.d.ok(&V::verify, Json{{"locator", {{"uri", prefix}}}, {"state", a}, {"pin", nullptr}, {"deep", false}})["status"] ==
        "drifted");
  Result gone = f.d.call(&V::fingerprint, Json{{"locator", {{"uri", root + "/data/a.csv"}}}, {"working_ref", nullptr}});
  CHECK(gone.message == "object does not exist: data/a.csv");
}

TEST_CASE("Azure Blob: a wrong account key is one line naming the object, never the key") {
  auto store = new_container("auth");
  store->put("k.txt", "x");
  const std::string wrong = "V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5MDA=";
  Fixture f(store->root(), azurite_options(wrong));
  const std::string uri = store->root() + "/k.txt";
  Result r = f.d.call(&V::fingerprint, Json{{"locator", {{"uri", uri}}}, {"working_ref", nullptr}});
  CHECK(r.status == TETHER_E_BACKEND);
  CHECK(r.message.find(uri) != std::string::npos);
  CHECK(r.message.find("access denied") != std::string::npos);
  CHECK(r.message.find("; give the store's keys in .tether/secrets.toml [uris.\"" + store->root() +
                       "/\"] (account_name, account_key or sas_token) or in AZURE_STORAGE_ACCOUNT_NAME") != std::string::npos);
  CHECK(r.message.find("AWS_") == std::string::npos);
  CHECK(r.message.find(wrong) == std::string::npos);
  CHECK(r.message.find(env("TETHER_TEST_AZURE_KEY")) == std::string::npos);
  CHECK(r.message.find('\n') == std::string::npos);
}

}  // namespace tether::file::test
