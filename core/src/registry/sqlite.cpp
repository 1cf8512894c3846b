// core/src/registry/sqlite.cpp: the SQLite export (docs/registry.md#export).
//
// A replacing export is built in a temporary file beside the target and renamed over it once
// committed, so a crash or a bad row never leaves half an export where the last good one was.
// `--append` upserts into the existing file in one transaction instead.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/registry/registry.hpp"

namespace tether::registry {

namespace fs = std::filesystem;

namespace {

const char* sqlite_type(Type t) {
  switch (t) {
    case Type::Int:
    case Type::Bool: return "INTEGER";
    default: return "TEXT";
  }
}

struct Db {
  sqlite3* db = nullptr;
  std::string where;
  ~Db() {
    if (db) sqlite3_close_v2(db);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw TetherError("cannot write the SQLite export " + where + ": " + what + ": " + sqlite3_errmsg(db));
  }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw TetherError("cannot write the SQLite export " + where + ": " + msg);
    }
  }
};

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() {
    if (s) sqlite3_finalize(s);
  }
};

// Parameters per INSERT statement: 999, SQLite's limit before 3.32 (32,766 since), so any
// libsqlite3 takes it. Larger batches measured no faster.
constexpr std::size_t kMaxParams = 999;

// INSERT OR REPLACE of `n` rows of `def` in one statement.
sqlite3_stmt* prepare_insert(Db& db, const TableDef& def, std::size_t n) {
  std::string sql = "INSERT OR REPLACE INTO " + def.name + " (";
  std::string marks = "(";
  for (std::size_t i = 0; i < def.columns.size(); ++i) {
    sql += (i ? ", " : "") + def.columns[i].name;
    marks += i ? ", ?" : "?";
  }
  marks += ")";
  sql += ") VALUES ";
  for (std::size_t k = 0; k < n; ++k) sql += (k ? ", " : "") + marks;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) db.fail("table " + def.name);
  return st;
}

}  // namespace

std::string sqlite_ddl() {
  std::string out;
  for (const auto& t : tables()) {
    out += "CREATE TABLE IF NOT EXISTS " + t.name + " (";
    for (const auto& c : t.columns) out += c.name + " " + sqlite_type(c.type) + ", ";
    out += "PRIMARY KEY (";
    for (std::size_t i = 0; i < t.primary_key.size(); ++i) out += (i ? ", " : "") + t.primary_key[i];
    out += "));\n";
  }
  for (const auto& v : views()) out += "CREATE VIEW IF NOT EXISTS " + v.name + " AS " + v.sql("") + ";\n";
  return out;
}

void write_sqlite(const Bundle& bundle, const fs::path& path, bool append) {
  std::error_code ec;
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path(), ec);
  if (fs::is_directory(path, ec)) throw ConfigError(path.string() + " is a directory; a SQLite export is one file");
  const fs::path target = append ? path : model::temp_path_for(path);
  Db db;
  db.where = path.string();
  if (sqlite3_open_v2(target.c_str(), &db.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    db.fail("cannot open");
  struct Cleanup {  // the temporary file of a replacing export that did not finish
    fs::path p;
    bool armed;
    ~Cleanup() {
      if (armed) {
        std::error_code e;
        fs::remove(p, e);
        fs::remove(fs::path(p.string() + "-journal"), e);
      }
    }
  } cleanup{target, !append};

  db.exec("PRAGMA foreign_keys = OFF");
  // A replacing export writes a new scratch file, renamed over the target only once complete:
  // no rollback journal, no syncs, no other connection to make way for. 64 KiB pages (the
  // largest; any SQLite reads them): in 4 KiB pages, a 500,000-row export (290 MB) took 0.3 s
  // more CPU, 2.9 s against 2.6 s, mostly the system time of 70,000 page writes. page_size
  // must come before the first table.
  if (!append)
    db.exec("PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
            "PRAGMA locking_mode = EXCLUSIVE");
  db.exec("BEGIN IMMEDIATE");
  db.exec(sqlite_ddl());
  for (const auto& table : bundle.all()) {
    const auto& def = table.def();
    if (def.group == Group::Replaced) db.exec("DELETE FROM " + def.name);
    if (table.rows() == 0) continue;
    const std::size_t rows = table.rows();
    const std::size_t ncol = def.columns.size();
    // Many rows per statement (up to kMaxParams parameters), the rest in one shorter statement:
    // one step per row opened and closed the table's cursors and reset the statement 500,000
    // times in a 500,000-row export, 0.2 s of its 2.6 s CPU. Rows are bound, not copied
    // (SQLITE_STATIC: the bundle outlives the statement), and inserted in the bundle's order,
    // one after the other, as before.
    const std::size_t batch = std::min(rows, std::max<std::size_t>(1, kMaxParams / ncol));
    Stmt full, tail;
    full.s = prepare_insert(db, def, batch);
    std::size_t r = 0;
    auto put = [&](sqlite3_stmt* st, std::size_t n) {
      int p = 1;
      for (std::size_t k = 0; k < n; ++k, ++r) {
        for (const Cell& cell : table.row(r)) {
          int rc = SQLITE_OK;
          switch (cell.kind) {
            case Cell::Null: rc = sqlite3_bind_null(st, p); break;
            case Cell::Text: rc = sqlite3_bind_text64(st, p, cell.s.data(), cell.s.size(), SQLITE_STATIC, SQLITE_UTF8); break;
            case Cell::Int: rc = sqlite3_bind_int64(st, p, cell.i); break;
            case Cell::Bool: rc = sqlite3_bind_int(st, p, cell.b ? 1 : 0); break;
          }
          if (rc != SQLITE_OK) db.fail("table " + def.name);
          ++p;
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) db.fail("table " + def.name);
      sqlite3_reset(st);
    };
    while (rows - r >= batch) put(full.s, batch);
    if (r < rows) {
      tail.s = prepare_insert(db, def, rows - r);
      put(tail.s, rows - r);
    }
  }
  db.exec("COMMIT");
  if (sqlite3_close_v2(db.db) != SQLITE_OK) db.fail("cannot close");
  db.db = nullptr;
  if (!append) {
    fs::rename(target, path, ec);
    if (ec) throw TetherError("cannot write the SQLite export " + path.string() + ": " + ec.message());
    cleanup.armed = false;
  }
}

}  // namespace tether::registry
