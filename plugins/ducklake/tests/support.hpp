// Test support for the ducklake backend: the fixture directory (exit 77, meson's "skipped",
// when it is absent), SQLite catalogs made from the fixtures' SQL dumps, and the plugin
// loaded through the host as the engine loads it.
#pragma once

#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "tether/host/plugin.hpp"
#include "tether/host/proxy.hpp"
#include "tether/testing/errors.hpp"

namespace tether::ducklake::testing {

namespace fs = std::filesystem;
using sdk::Json;

inline const fs::path& fixtures() {
  static fs::path dir = [] {
    const char* env = std::getenv("TETHER_DUCKLAKE_FIXTURES");
    fs::path d = env ? env : "";
    if (d.empty() || !fs::exists(d / "synthetic" / "tether_diff_scenario.sql")) {
      std::fprintf(stderr, "ducklake fixtures not found at '%s' (TETHER_DUCKLAKE_FIXTURES): skipped\n", d.c_str());
      std::exit(77);
    }
    return d;
  }();
  return dir;
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs SQL against a SQLite file (created when missing); the SQL must succeed.
inline void sqlite_exec(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  INFO(db.string(), ": ", msg);
  REQUIRE(rc == SQLITE_OK);
}

// A SQLite catalog at `db` from a fixture dump (`synthetic/tether_diff_scenario.sql`).
inline fs::path load_sqlite(const fs::path& dump, const fs::path& db) {
  fs::remove(db);
  sqlite_exec(db, read_text(dump));
  return db;
}

// The built plugin, loaded through the host.
struct Plugin {
  Plugin() {
    const char* path = std::getenv("TETHER_DUCKLAKE_PLUGIN");
    REQUIRE_MESSAGE(path, "TETHER_DUCKLAKE_PLUGIN is not set (run through meson test)");
    proxy = std::make_unique<host::BackendProxy>(host::Plugin::load(path));
  }
  host::BackendProxy* operator->() { return proxy.get(); }
  std::unique_ptr<host::BackendProxy> proxy;
};

using tether::testing::contains;
using tether::testing::error_of;

inline Json state(int64_t id, int64_t time_us) { return Json{{"snapshot_id", id}, {"snapshot_time_us", time_us}}; }

}  // namespace tether::ducklake::testing
