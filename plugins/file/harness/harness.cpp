// tether-harness-file.so: the conformance harness of the file backend (conformance/include/
// tether/harness.h), and the example a third party can copy. Objects are directories under
// the runner's workdir; every mutate adds a new file, so every state is new.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tether/harness.h"
#include "tether/harness_support.hpp"

namespace {

namespace fs = std::filesystem;
using tether::harness::fail;
using tether::harness::unused;

int put(const nlohmann::json& value, char* out, std::size_t cap, char* err, std::size_t errcap) {
  return tether::harness::put(value.dump(), out, cap, err, errcap);
}


bool write_text(const fs::path& p, const std::string& text, std::ios::openmode mode = std::ios::trunc) {
  std::ofstream f(p, std::ios::binary | mode);
  f << text;
  f.close();
  return static_cast<bool>(f);
}

int new_object(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    fs::path dir = unused(workdir, "object-", "");
    fs::create_directories(dir);
    if (!write_text(dir / "data.txt", "v0\n")) return fail(err, errcap, "cannot write in " + dir.string());
    return put({{"uri", dir.string()}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    if (working_ref) return fail(err, errcap, std::string("file objects have no working refs: ") + working_ref);
    auto locator = nlohmann::json::parse(locator_json);
    fs::path target = locator.value("uri", locator.value("path", std::string()));
    if (target.empty()) return fail(err, errcap, "locator has no uri");
    if (fs::is_directory(target)) {
      fs::path part = unused(target, "part-", ".txt");
      if (!write_text(part, "part " + part.filename().string() + "\n"))
        return fail(err, errcap, "cannot write " + part.string());
      return 0;
    }
    if (!write_text(target, "more\n", std::ios::app)) return fail(err, errcap, "cannot write " + target.string());
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int fresh_locator(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    return put({{"uri", unused(workdir, "fresh-", "").string()}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "file", nullptr, 0, &new_object, &mutate, &fresh_locator,
    nullptr,
};
