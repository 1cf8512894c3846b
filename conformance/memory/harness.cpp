// conformance/memory/harness.cpp: tether-harness-memory.so, the conformance harness of the
// memory backend (docs/writing-a-backend.md, "Proving it"). The runner substitutes ${WORKDIR}
// in backend_config, so the plugin and this harness share the store file of the case.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "store.hpp"
#include "tether/harness.h"

namespace {

using tether::memory::Json;
using tether::memory::Store;

std::string store_file(const char* workdir) { return std::string(workdir) + "/memory-store.json"; }

std::string fresh_name() {
  static std::mt19937_64 rng{std::random_device{}()};
  char buf[16];
  std::snprintf(buf, sizeof buf, "sys-%08x", static_cast<unsigned>(rng() & 0xffffffffu));
  return buf;
}

int put(const std::string& s, char* out, size_t cap, char* err, size_t errcap) {
  if (s.size() + 1 > cap) {
    std::snprintf(err, errcap, "output buffer too small (%zu bytes needed)", s.size() + 1);
    return 1;
  }
  std::memcpy(out, s.c_str(), s.size() + 1);
  return 0;
}

template <class F>
int guarded(char* err, size_t errcap, F&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    std::snprintf(err, errcap, "%s", e.what());
    return 1;
  }
}

int new_object(const char* workdir, char* out, size_t cap, char* err, size_t errcap) {
  return guarded(err, errcap, [&] {
    std::string name = fresh_name();
    tether::memory::with_store(store_file(workdir), true, [&](Store& st) { st.materialize(name); });
    return put(Json{{"system", name}, {"branch", "main"}}.dump(), out, cap, err, errcap);
  });
}

// Adds key n<k> = k (k from the system's counter): a new key per write, so merges never conflict.
int mutate(const char* workdir, const char* locator_json, const char* working_ref, char* err, size_t errcap) {
  return guarded(err, errcap, [&] {
    Json loc = Json::parse(locator_json);
    std::string name = loc.at("system").get<std::string>();
    std::string branch = working_ref ? working_ref : loc.value("branch", std::string("main"));
    tether::memory::with_store(store_file(workdir), true, [&](Store& st) {
      auto& sys = st.system(name);
      Json payload = sys.snapshots.at(Store::resolve(sys, name, branch));
      int64_t k = sys.counter + 1;
      payload["n" + std::to_string(k)] = k;
      Store::write(sys, name, branch, std::move(payload));
    });
    return 0;
  });
}

int fresh_locator(const char*, char* out, size_t cap, char* err, size_t errcap) {
  return guarded(err, errcap, [&] { return put(Json{{"system", fresh_name()}, {"branch", "main"}}.dump(), out, cap, err, errcap); });
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC,
    sizeof(tether_harness_entry),
    "memory",
    R"({"store": "${WORKDIR}/memory-store.json"})",
    0,
    &new_object,
    &mutate,
    &fresh_locator,
    nullptr,  // everything lives in the workdir
};
