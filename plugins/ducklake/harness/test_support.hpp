// Test support for the catalog builder: reading a SQLite catalog back as text rows, a
// deterministic clock, a scratch directory, and the fixture directory (exit 77, meson's
// "skipped", when TETHER_DUCKLAKE_FIXTURES names none).
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "builder.hpp"

namespace tether::ducklake::harness::testing {

namespace fs = std::filesystem;
using Rows = std::vector<std::vector<std::string>>;

// Every row of `sql` on the SQLite file `db`, values as text, NULL as "NULL".
inline Rows rows(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    throw std::runtime_error("cannot open " + db.string());
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(h);
    sqlite3_close(h);
    throw std::runtime_error(sql + ": " + msg);
  }
  Rows out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const unsigned char* t = sqlite3_column_text(st, i);
      row.push_back(sqlite3_column_type(st, i) == SQLITE_NULL ? "NULL" : reinterpret_cast<const char*>(t));
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// The single value of `sql`.
inline std::string value(const fs::path& db, const std::string& sql) {
  Rows r = rows(db, sql);
  REQUIRE_MESSAGE(r.size() == 1, sql);
  return r[0][0];
}

inline std::string show(const Rows& r) {
  std::string s;
  for (const auto& row : r) {
    for (std::size_t i = 0; i < row.size(); ++i) s += (i ? "|" : "") + row[i];
    s += "\n";
  }
  return s;
}

// Commit times 2026-05-04 08:00:00 UTC, then +0.25 s per call.
inline BuilderOptions fixed_clock(BuilderOptions o = {}) {
  auto t = std::make_shared<int64_t>(1777881600000000LL - 250000);
  o.clock = [t] { return *t += 250000; };
  return o;
}

// A scratch directory removed at scope exit.
struct TempDir {
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tether-builder-test.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  fs::path path;
};

inline const fs::path& fixtures() {
  static fs::path dir = [] {
    const char* env = std::getenv("TETHER_DUCKLAKE_FIXTURES");
    fs::path d = env ? env : "";
    if (d.empty() || !fs::exists(d / "sqlite" / "v04.sql")) {
      std::fprintf(stderr, "ducklake fixtures not found at '%s' (TETHER_DUCKLAKE_FIXTURES): skipped\n", d.c_str());
      std::exit(77);
    }
    return d;
  }();
  return dir;
}

// A SQLite database made from a fixture dump.
inline fs::path load_dump(const fs::path& dump, const fs::path& db) {
  std::ifstream in(dump, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, ss.str().c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  INFO(dump.string(), ": ", msg);
  REQUIRE(rc == SQLITE_OK);
  return db;
}

}  // namespace tether::ducklake::harness::testing
