// tether-harness-ducklake.so: the conformance harness of the ducklake backend
// (conformance/include/tether/harness.h). Every object is a fresh spec-1.0 SQLite catalog
// written by the catalog builder (builder.hpp) the way the extension would write
// `ATTACH 'ducklake:sqlite:<path>' AS w; CREATE TABLE w.t (a INTEGER); INSERT INTO w.t
// VALUES (…)`; every mutate inserts one more (inlined) row: one new snapshot. DuckLake has no
// branches, so a write on a working ref is refused.
//
// The catalogs live in private temporary directories, not in the runner's workdir; their
// paths are listed in <workdir>/ducklake-harness-dirs so cleanup (possibly in another process
// after a crash) removes exactly those.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "builder.hpp"
#include "tether/harness.h"
#include "tether/harness_support.hpp"

namespace {

namespace fs = std::filesystem;
using tether::ducklake::harness::CatalogBuilder;
using tether::harness::fail;

constexpr const char* kPrefix = "ducklake:sqlite:";
constexpr const char* kDirStem = "tether-ducklake-harness.";
constexpr const char* kDirList = "ducklake-harness-dirs";

int put(const nlohmann::json& value, char* out, std::size_t cap, char* err, std::size_t errcap) {
  return tether::harness::put(value.dump(), out, cap, err, errcap);
}

fs::path private_dir(const fs::path& workdir) {
  std::string tmpl = (fs::temp_directory_path() / (std::string(kDirStem) + "XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a directory like " + tmpl);
  std::ofstream(workdir / kDirList, std::ios::app) << tmpl << "\n";
  return tmpl;
}

// The catalog file a locator this harness made names.
fs::path catalog_of(const char* locator_json) {
  auto locator = nlohmann::json::parse(locator_json);
  std::string metadata = locator.value("metadata", std::string());
  if (metadata.rfind(kPrefix, 0) != 0) throw std::runtime_error("not a locator of this harness: " + std::string(locator_json));
  return metadata.substr(std::string(kPrefix).size());
}

int new_object(const char* workdir, char* out, std::size_t cap, char* err, std::size_t errcap) noexcept {
  try {
    fs::path catalog = private_dir(workdir) / "lake.sqlite";
    auto b = CatalogBuilder::create(catalog);
    b.create_table("t", {{"a", "INTEGER"}});
    b.insert_inlined(b.table_id("t"), 1);
    return put({{"metadata", kPrefix + catalog.string()}}, out, cap, err, errcap);
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

int mutate(const char*, const char* locator_json, const char* working_ref, char* err, std::size_t errcap) noexcept {
  try {
    if (working_ref) throw std::runtime_error(std::string("a DuckLake catalog has no branches; cannot write on ") + working_ref);
    auto b = CatalogBuilder::open(catalog_of(locator_json));
    b.insert_inlined(b.table_id("t"), 1);
    return 0;
  } catch (const std::exception& e) {
    return fail(err, errcap, e.what());
  }
}

void cleanup(const char* workdir) {
  std::ifstream in(fs::path(workdir) / kDirList);
  std::string line;
  while (std::getline(in, line)) {
    fs::path dir(line);
    // Only what new_object made: a direct child of the temp directory with our stem.
    if (dir.filename().string().rfind(kDirStem, 0) != 0) continue;
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

}  // namespace

extern "C" TETHER_HARNESS_EXPORT const tether_harness_entry tether_harness = {
    TETHER_HARNESS_MAGIC, sizeof(tether_harness_entry), "ducklake", nullptr, 0, &new_object, &mutate, nullptr, &cleanup,
};
