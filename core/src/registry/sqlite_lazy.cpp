// sqlite_lazy.cpp: SQLite is loaded when a command first opens a database (export, import,
// publish's SQLite targets), not at start-up: libsqlite3.so.0 is bound eagerly (-z now), about
// 1,600 symbol bindings in every tether process. Same scheme as libpq_lazy.cpp: the registry
// defines the SQLite functions it calls, each forwarding to the real one (signatures from
// sqlite3.h by decltype).
#include <sqlite3.h>

#include "tether/errors.hpp"
#include "tether/support/lazy_library.hpp"

namespace {

constinit tether::support::LazyLibrary libsqlite("libsqlite3.so.0", "the SQLite library",
                                        "install SQLite (Debian: libsqlite3-0) to export, import or publish");

[[noreturn]] void fail(const std::string& message) { throw tether::TetherError(message); }

}  // namespace

#define TETHER_SQLITE(ret, name, params, args) TETHER_LAZY_FORWARD(libsqlite, fail, ret, name, params, args)

TETHER_SQLITE(int, sqlite3_bind_int, (sqlite3_stmt * s, int i, int v), (s, i, v))
TETHER_SQLITE(int, sqlite3_bind_int64, (sqlite3_stmt * s, int i, sqlite3_int64 v), (s, i, v))
TETHER_SQLITE(int, sqlite3_bind_null, (sqlite3_stmt * s, int i), (s, i))
TETHER_SQLITE(int, sqlite3_bind_text64,
              (sqlite3_stmt * s, int i, const char* text, sqlite3_uint64 n, void (*destructor)(void*), unsigned char encoding),
              (s, i, text, n, destructor, encoding))
TETHER_SQLITE(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))
TETHER_SQLITE(int, sqlite3_close, (sqlite3 * db), (db))
TETHER_SQLITE(int, sqlite3_close_v2, (sqlite3 * db), (db))
TETHER_SQLITE(int, sqlite3_column_bytes, (sqlite3_stmt * s, int c), (s, c))
TETHER_SQLITE(int, sqlite3_column_count, (sqlite3_stmt * s), (s))
TETHER_SQLITE(double, sqlite3_column_double, (sqlite3_stmt * s, int c), (s, c))
TETHER_SQLITE(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * s, int c), (s, c))
TETHER_SQLITE(const char*, sqlite3_column_name, (sqlite3_stmt * s, int n), (s, n))
TETHER_SQLITE(const unsigned char*, sqlite3_column_text, (sqlite3_stmt * s, int c), (s, c))
TETHER_SQLITE(int, sqlite3_column_type, (sqlite3_stmt * s, int c), (s, c))
TETHER_SQLITE(const char*, sqlite3_errmsg, (sqlite3 * db), (db))
TETHER_SQLITE(int, sqlite3_exec,
              (sqlite3 * db, const char* sql, int (*callback)(void*, int, char**, char**), void* arg, char** errmsg),
              (db, sql, callback, arg, errmsg))
TETHER_SQLITE(int, sqlite3_finalize, (sqlite3_stmt * s), (s))
TETHER_SQLITE(void, sqlite3_free, (void* p), (p))
TETHER_SQLITE(int, sqlite3_open, (const char* filename, sqlite3** db), (filename, db))
TETHER_SQLITE(int, sqlite3_open_v2, (const char* filename, sqlite3** db, int flags, const char* vfs),
              (filename, db, flags, vfs))
TETHER_SQLITE(int, sqlite3_prepare_v2, (sqlite3 * db, const char* sql, int n, sqlite3_stmt** stmt, const char** tail),
              (db, sql, n, stmt, tail))
TETHER_SQLITE(int, sqlite3_reset, (sqlite3_stmt * s), (s))
TETHER_SQLITE(int, sqlite3_step, (sqlite3_stmt * s), (s))
TETHER_SQLITE(int, sqlite3_stmt_readonly, (sqlite3_stmt * s), (s))
