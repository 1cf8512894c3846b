// tether-harness-icechunk.so: the conformance harness of the icechunk backend, backed by the
// real Icechunk library: every object is a repository real Icechunk created (spec 2), and
// every write is a real Icechunk commit (tests/icechunk/oracle.mjs run through
// tests/icechunk/icechunk-node, named by TETHER_ICECHUNK_NODE and TETHER_ICECHUNK_ORACLE).
// Writes on two branches touch different chunks and groups, so they never conflict.
// With TETHER_ICECHUNK_S3_BUCKET set (tests/icechunk/on-s3), every repository is made in that
// bucket instead, s3://BUCKET/<workdir name>/repo-<n>.icechunk, and the plugin reaches it
// through the environment alone.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tether/harness.h"
#include "tether/harness_support.hpp"
#include "tether/support/process.hpp"

namespace {

namespace fs = std::filesystem;
using tether::harness::fail;
using tether::harness::unused;

int put(const nlohmann::json& value, char* out, std::size_t cap, char* err, std::size_t errcap) {
  return tether::harness::put(value.dump(), out, cap, err, errcap);
}


// Runs the oracle; throws with its stderr when it fails.
void oracle(const std::vector<std::string>& args) {
  const char* node = std::getenv("TETHER_ICECHUNK_NODE");
  const char* script = std::getenv("TETHER_ICECHUNK_ORACLE");
  if (!node || !script) throw std::runtime_error("TETHER_ICECHUNK_NODE and TETHER_ICECHUNK_ORACLE must name the real-Icechunk runner");
  std::vector<std::string> argv{node, script};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = tether::support::run_process(argv);
  if (!r.ok()) throw std::runtime_error(tether::support::join_argv(argv) + ": " + r.err);
}

std::atomic<unsigned> writes{0};

// A repository location not used yet: in the workdir, or in the bucket; a local placeholder
// reserves the name either way (two calls in one case must not get the same repository), and
// the workdir's own name keeps runs apart in a bucket.
std::string new_place(const char* workdir, const std::string& stem) {
  fs::path local = unused(workdir, stem);
  fs::create_directories(local);  // reserves the name: the repository itself is <name>.icechunk
  const char* bucket = std::getenv("TETHER_ICECHUNK_S3_BUCKET");
  if (!bucket || !*bucket) return local.string() + ".icechunk";
  return "s3://" + std::string(bucket) + "/" + fs::path(workdir).filename().string() + "/" + local.filename().string() +
         ".icechunk";
}

int new_object(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    std::string dir = new_place(workdir, "repo-");
    oracle({"create", dir, "2"});
    oracle({"write", dir, "main", std::to_string(++writes)});
    return put({{"uri", dir}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    auto locator = nlohmann::json::parse(locator_json);
    std::string uri = locator.value("uri", std::string());
    std::string branch = working_ref ? working_ref : locator.value("branch", std::string("main"));
    oracle({"write", uri, branch, std::to_string(++writes)});
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int fresh_locator(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    return put({{"uri", new_place(workdir, "fresh-")}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "icechunk", nullptr, 0, &new_object, &mutate, &fresh_locator,
    nullptr,
};
