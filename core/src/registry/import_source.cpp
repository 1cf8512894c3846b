// core/src/registry/import_source.cpp: reading the rows of `tether import`
// (docs/registry.md#import) from PostgreSQL (libpq), SQLite, CSV and JSONL. Everything here
// only reads: a read-only transaction and one prepared statement in PostgreSQL, a read-only
// connection with query_only set in SQLite.
#include "tether/registry/import_source.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "registry/pg_connect.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/support/utf8.hpp"

namespace fs = std::filesystem;

namespace tether::registry {

using Json = nlohmann::json;

namespace {

std::string lower_suffix(const std::string& source) {
  std::string s = fs::path(source).extension().string();
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string first_line(const char* msg) {
  std::string s = msg ? msg : "";
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s.empty() ? "unknown error" : s;
}

[[noreturn]] void query_failed(const std::string& why) { throw ConfigError("the import query failed: " + why); }

// `SELECT * FROM T` is built from the name, so the name is kept to identifier characters.
std::string table_query(const std::string& table) {
  bool ok = !table.empty() && std::all_of(table.begin(), table.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
  if (!ok) throw ConfigError("invalid table name: " + model::py_repr(table));
  return "SELECT * FROM " + table;
}

std::string sql_of(const std::optional<std::string>& table, const std::optional<std::string>& query) {
  if (table.has_value() == query.has_value())
    throw ConfigError("give exactly one of --table or --query for a SQL source");
  return table ? table_query(*table) : *query;
}

void require_file(const std::string& source) {
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) throw ConfigError("import source not found: " + source);
}

// ---- PostgreSQL ----

Json pg_value(const char* text, Oid type) {
  std::string v = text;
  switch (type) {
    case 16:  // bool
      return v == "t";
    case 20: case 21: case 23: case 26: {  // int8, int2, int4, oid
      long long n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec == std::errc() && end == v.data() + v.size()) return n;
      return v;
    }
    case 700: case 701: case 1700: {  // float4, float8, numeric
      long long n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec == std::errc() && end == v.data() + v.size()) return n;
      char* stop = nullptr;
      double d = std::strtod(v.c_str(), &stop);
      return stop && *stop == '\0' ? Json(d) : Json(v);
    }
    case 114: case 3802:  // json, jsonb: within the limits of one document, else the text
      if (auto j = model::try_parse_json(v)) return std::move(*j);
      return v;
    default:
      return v;
  }
}

void pg_exec(PGconn* conn, const char* sql) {
  PgResult r(PQexec(conn, sql), &PQclear);
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) query_failed(first_line(PQresultErrorMessage(r.get())));
}

std::string pg_error(const PGresult* r, PGconn* conn) {
  const char* primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  return primary ? std::string(primary) : first_line(PQerrorMessage(conn));
}

std::vector<Json> read_postgres(const std::string& dsn, const std::string& sql) {
  PgConn conn = connect_postgres(dsn, "tether-import");
  pg_exec(conn.get(), "BEGIN READ ONLY");
  // A prepared statement goes through the extended protocol: the server refuses a text
  // holding more than one statement ("cannot insert multiple commands ...").
  PgResult prepared(PQprepare(conn.get(), "", sql.c_str(), 0, nullptr), &PQclear);
  if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) query_failed(pg_error(prepared.get(), conn.get()));
  PgResult r(PQexecPrepared(conn.get(), "", 0, nullptr, nullptr, nullptr, 0), &PQclear);
  auto status = PQresultStatus(r.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) query_failed(pg_error(r.get(), conn.get()));
  std::vector<Json> rows;
  const int nrows = PQntuples(r.get()), ncols = PQnfields(r.get());
  for (int i = 0; i < nrows; ++i) {
    Json row = Json::object();
    for (int c = 0; c < ncols; ++c)
      row[PQfname(r.get(), c)] = PQgetisnull(r.get(), i, c) ? Json(nullptr) : pg_value(PQgetvalue(r.get(), i, c), PQftype(r.get(), c));
    rows.push_back(std::move(row));
  }
  PgResult end(PQexec(conn.get(), "ROLLBACK"), &PQclear);  // nothing was written; the connection closes anyway
  return rows;
}

// ---- SQLite ----

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

std::vector<Json> read_sqlite(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, SqliteCloser> db(raw);
  if (rc != SQLITE_OK) throw ConfigError("cannot open " + path + " as SQLite: " + (raw ? sqlite3_errmsg(raw) : "out of memory"));
  sqlite3_busy_timeout(db.get(), 5000);
  // A read-only connection already refuses writes; query_only also covers ATTACHed files.
  sqlite3_exec(db.get(), "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
  sqlite3_stmt* s = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &s, &tail) != SQLITE_OK)
    query_failed(sqlite3_errmsg(db.get()));
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt(s);
  if (!stmt) query_failed("the query holds no statement");
  // Anything but comments and blanks after the first statement is a second statement.
  if (tail && *tail) {
    sqlite3_stmt* next = nullptr;
    const char* rest = nullptr;
    int nrc = sqlite3_prepare_v2(db.get(), tail, -1, &next, &rest);
    std::unique_ptr<sqlite3_stmt, StmtFinalizer> second(next);
    if (nrc != SQLITE_OK || second)
      query_failed("cannot run multiple commands; give one statement (import reads with exactly one)");
  }
  if (!sqlite3_stmt_readonly(stmt.get()))
    query_failed("the statement would write; import runs only read-only queries");
  std::vector<Json> rows;
  const int ncols = sqlite3_column_count(stmt.get());
  for (;;) {
    rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) query_failed(sqlite3_errmsg(db.get()));
    Json row = Json::object();
    for (int c = 0; c < ncols; ++c) {
      Json v;
      switch (sqlite3_column_type(stmt.get(), c)) {
        case SQLITE_INTEGER: v = static_cast<long long>(sqlite3_column_int64(stmt.get(), c)); break;
        case SQLITE_FLOAT: v = sqlite3_column_double(stmt.get(), c); break;
        case SQLITE_NULL: v = nullptr; break;
        default: {  // text (and blobs, as their bytes)
          const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), c));
          v = t ? std::string(t, static_cast<std::size_t>(sqlite3_column_bytes(stmt.get(), c))) : std::string();
        }
      }
      row[sqlite3_column_name(stmt.get(), c)] = std::move(v);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---- JSONL ----

std::vector<Json> parse_jsonl(const std::string& text, const std::string& source) {
  std::vector<Json> rows;
  std::size_t start = 0, line = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string l = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    ++line;
    start = nl == std::string::npos ? text.size() + 1 : nl + 1;
    if (std::all_of(l.begin(), l.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) continue;
    // One row becomes one manifest: a row gets the limits of one document.
    Json j = model::parse_json(l, source + ":" + std::to_string(line));
    if (!j.is_object()) throw ConfigError(source + ":" + std::to_string(line) + ": each line must be a JSON object");
    rows.push_back(std::move(j));
  }
  return rows;
}

}  // namespace

bool is_postgres_dsn(const std::string& source) {
  if (starts_with(source, "postgresql://") || starts_with(source, "postgres://")) return true;
  // key=value (`host=h dbname=x password=...`): a DSN when it is no file and libpq reads it
  // (every keyword known), so it is connected to, never echoed as a missing path.
  std::error_code ec;
  if (source.find('=') == std::string::npos || fs::exists(source, ec)) return false;
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(source.c_str(), &err);
  if (err) PQfreemem(err);
  if (!opts) return false;
  PQconninfoFree(opts);
  return true;
}

bool is_sql_source(const std::string& source) {
  if (is_postgres_dsn(source)) return true;
  std::string s = lower_suffix(source);
  return s != ".csv" && s != ".jsonl" && s != ".ndjson";
}

std::vector<Json> parse_csv(const std::string& text, const std::string& source) {
  std::vector<std::vector<std::string>> records;
  std::size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  const std::size_t n = text.size();
  std::size_t line = 1;
  auto where = [&](std::size_t l) { return source + ":" + std::to_string(l) + ": "; };
  // Cells become JSON strings (manifests, the plan, the op log): refuse other encodings here,
  // naming the line, rather than as a raw JSON error when the first of them is written.
  for (std::size_t k = i, l = 1; k < n;) {
    auto cp = support::utf8::decode(text, k);
    if (!cp.valid) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[k]));
      throw ConfigError(where(l) + "not UTF-8 text (byte " + byte + "); save the file as UTF-8");
    }
    if (text[k] == '\n') ++l;
    k += cp.length;
  }
  while (i < n) {
    std::vector<std::string> rec;
    bool quoted_any = false;
    const std::size_t rec_line = line;
    for (;;) {
      std::string field;
      if (i < n && text[i] == '"') {
        quoted_any = true;
        ++i;
        for (;;) {
          if (i >= n) throw ConfigError(where(rec_line) + "a quoted field is not closed");
          char c = text[i++];
          if (c == '"') {
            if (i < n && text[i] == '"') {
              field += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          field += c;
        }
        if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw ConfigError(where(line) + "text after a closing quote (a quote inside a quoted field is written \"\")");
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') field += text[i++];
      }
      rec.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < n && text[i] == '\r') ++i;
      if (i < n && text[i] == '\n') ++i;
      ++line;
      break;
    }
    if (rec.size() == 1 && rec[0].empty() && !quoted_any) continue;  // a blank line
    records.push_back(std::move(rec));
  }
  std::vector<Json> rows;
  if (records.empty()) return rows;
  const auto& header = records.front();
  for (std::size_t r = 1; r < records.size(); ++r) {
    const auto& rec = records[r];
    if (rec.size() > header.size())
      throw ConfigError(source + ": record " + std::to_string(r) + " has " + std::to_string(rec.size()) +
                        " fields; the header has " + std::to_string(header.size()));
    Json row = Json::object();
    for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = c < rec.size() ? rec[c] : std::string();
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Json> read_source(const std::string& source, const std::optional<std::string>& table,
                              const std::optional<std::string>& query) {
  if (is_postgres_dsn(source)) return read_postgres(source, sql_of(table, query));
  std::string suffix = lower_suffix(source);
  if (suffix == ".csv" || suffix == ".jsonl" || suffix == ".ndjson") {
    if (table || query) throw ConfigError("--table and --query are for SQL sources; " + source + " is read whole");
    require_file(source);
    std::error_code ec;
    if (auto size = fs::file_size(source, ec); !ec && size > model::kMaxImportBytes)
      throw ConfigError(source + ": " + std::to_string(size) + " bytes, more than the " +
                        std::to_string(model::kMaxImportBytes) + "-byte limit for an import source; split it");
    std::string text = model::read_file(source);
    return suffix == ".csv" ? parse_csv(text, source) : parse_jsonl(text, source);
  }
  require_file(source);  // before the table/query check: a typo in the path is the likelier mistake
  return read_sqlite(source, sql_of(table, query));
}

}  // namespace tether::registry
