// fuzz/ducklake.cpp: a DuckLake catalog someone else wrote, as the ducklake backend reads
// it (plugins/ducklake: probing the layout, the version, snapshot rows and their times, the
// changes_made tokens, table/schema/view names, file rows and row counts). The input is a
// SQL script in `sqlite3 .dump` form (the fixtures' shape); it is loaded into a fresh SQLite
// catalog (statements that fail are skipped, ATTACH and VACUUM INTO are refused, and a
// statement is cut off after a fixed amount of work), which the real SQLite reader then
// opens read-only. Errors must be sdk::Error (the plugin reports those as a failed call).
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "catalog.hpp"
#include "diff.hpp"
#include "fuzz_support.hpp"
#include "history.hpp"
#include "lake.hpp"
#include "row_counts.hpp"
#include "timestamp.hpp"
#include "tether/sdk/error.hpp"
#include "verify.hpp"

using namespace tether;
namespace fs = std::filesystem;

namespace {

// The script may only build tables in its own database.
int authorize(void*, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

int stop_runaway(void* counter) { return ++*static_cast<int*>(counter) > 20000 ? 1 : 0; }

bool load_catalog(const fs::path& path, const std::string& script) {
  std::error_code ec;
  fs::remove(path, ec);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
  sqlite3_set_authorizer(db, &authorize, nullptr);
  int work = 0;
  sqlite3_progress_handler(db, 100, &stop_runaway, &work);
  // One statement at a time, so a bad one does not end the script.
  const char* at = script.c_str();
  const char* end = at + script.size();
  while (at < end && *at) {
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    work = 0;
    int rc = sqlite3_prepare_v2(db, at, static_cast<int>(end - at), &st, &tail);
    if (rc == SQLITE_OK && st) {
      while (sqlite3_step(st) == SQLITE_ROW) {
      }
    }
    sqlite3_finalize(st);
    if (!tail || tail <= at) {
      // A statement that does not parse: skip to after the next ';'.
      const char* semi = std::find(at, end, ';');
      tail = semi == end ? end : semi + 1;
    }
    at = tail;
  }
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);  // a dump's BEGIN without its COMMIT
  sqlite3_close(db);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fs::path path = fuzz::scratch_dir() / "catalog.sqlite";
  if (!load_catalog(path, std::string(fuzz::text_of(data, size)))) return 0;
  try {
    auto catalog = ducklake::open_sqlite(path.string(), "ducklake:sqlite:catalog.sqlite");
    ducklake::Lake lake(*catalog);
    (void)lake.data_path();
    ducklake::Names names = lake.names();
    for (const auto& t : names.tables) {
      (void)names.table_label(t.table_id);
      (void)names.table_at(t.table_id, t.begin);
    }
    auto latest = lake.latest();
    (void)ducklake::iso_utc_seconds(latest.time_us);
    (void)ducklake::history(lake, std::nullopt, 20);
    auto all = lake.snapshots(std::nullopt, 20);
    if (!all.empty()) {
      const auto& oldest = all.back().snapshot;
      (void)ducklake::diff(lake, oldest, latest);
      std::set<int64_t> tables;
      for (const auto& t : names.tables) tables.insert(t.table_id);
      (void)ducklake::count_rows(lake, lake.range(oldest.id, latest.id), oldest.id, latest.id, tables);
      (void)ducklake::verify_snapshot(lake, oldest.id, oldest.time_us, false, "");
    }
    (void)ducklake::missing_snapshot_message(lake, latest.id + 1);
  } catch (const sdk::Error&) {
  }
  return 0;
}
