// tether-harness-file-s3.so: the conformance harness of the file backend on an object store.
// Objects are prefixes in a bucket of the S3 store TETHER_TEST_S3_* name (the throwaway Ceph
// gateway of tests/s3/with-cluster); the harness writes them with tether's object-store
// client, the plugin reads them with the credentials and endpoint of the environment
// (AWS_*). Every mutate adds a new object under the prefix, so every state is new. Remote
// objects are Observed without CREATE: the suite runs at FINGERPRINT | CHEAP_FINGERPRINT | DIFF.
#include <atomic>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "tether/backend.h"
#include "tether/harness.h"
#include "tether/harness_support.hpp"
#include "tether/support/objstore.hpp"

namespace {

namespace os = tether::support::objstore;
using tether::harness::fail;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// One bucket per harness process (each case gets its own prefix in it).
os::Store& bucket() {
  static std::unique_ptr<os::Store> store = [] {
    if (env("TETHER_TEST_S3_ENDPOINT").empty())
      throw std::runtime_error("TETHER_TEST_S3_ENDPOINT is not set: run through tests/s3/with-cluster");
    os::Options o;
    o.values["endpoint"] = env("TETHER_TEST_S3_ENDPOINT");
    o.values["access_key_id"] = env("TETHER_TEST_S3_ACCESS_KEY_ID");
    o.values["secret_access_key"] = env("TETHER_TEST_S3_SECRET_ACCESS_KEY");
    o.values["region"] = env("TETHER_TEST_S3_REGION");
    o.values["allow_http"] = "true";
    auto s = os::open(*os::parse_location("s3://conformance-" + std::to_string(::getpid()) + "/"), o);
    s->create_bucket();
    return s;
  }();
  return *store;
}

std::string next_name(const char* stem) {
  static std::atomic<int> n{0};
  return stem + std::to_string(n++);
}

int new_object(const char*, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    std::string prefix = next_name("object-") + "/";
    bucket().put(prefix + "data.txt", "v0\n");
    std::string uri = bucket().root() + "/" + prefix;
    return tether::harness::put(nlohmann::json{{"uri", uri}}.dump(), out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    if (working_ref) return fail(err, errcap, std::string("file objects have no working refs: ") + working_ref);
    auto loc = os::parse_location(nlohmann::json::parse(locator_json).value("uri", std::string()));
    if (!loc) return fail(err, errcap, "locator has no object-store uri");
    std::string part = loc->key + next_name("part-") + ".txt";
    bucket().put(part, "part " + part + "\n");
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "file", nullptr,
    TETHER_CAP_FINGERPRINT | TETHER_CAP_CHEAP_FINGERPRINT | TETHER_CAP_DIFF, &new_object, &mutate, nullptr, nullptr,
};
