// builder: spec-1.0 SQLite DuckLake catalogs written the way the extension writes them (see
// builder.hpp). The DDL is the extension's 1.0 statement list mapped by the sqlite
// extension's rule (docs/backends.md#ducklake, "Test catalogs"), so the one source of truth
// is that statement list (spec_ddl()); the fixture dumps confirm the result (builder_test.cpp).
#include "builder.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <variant>

namespace tether::ducklake::harness {

namespace fs = std::filesystem;

namespace {

// ---- SQLite access ---------------------------------------------------------------------------

using Value = std::variant<std::nullptr_t, int64_t, std::string>;

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw std::runtime_error(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw std::runtime_error(sql + ": " + msg);
  }
}

class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const std::vector<Value>& params = {}) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) fail(db, sql);
    for (std::size_t i = 0; i < params.size(); ++i) {
      int at = static_cast<int>(i + 1);
      int rc = std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) return sqlite3_bind_null(st_, at);
            else if constexpr (std::is_same_v<T, int64_t>) return sqlite3_bind_int64(st_, at, v);
            else return sqlite3_bind_text(st_, at, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
          },
          params[i]);
      if (rc != SQLITE_OK) fail(db, sql);
    }
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Advances to the next row; false when done.
  bool step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, sql_);
  }
  bool null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
  std::string text(int col) const {
    const unsigned char* p = sqlite3_column_text(st_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }

 private:
  sqlite3* db_;
  std::string sql_;
  sqlite3_stmt* st_ = nullptr;
};

void run(sqlite3* db, const std::string& sql, const std::vector<Value>& params = {}) {
  Stmt st(db, sql, params);
  while (st.step()) {
  }
}

std::optional<int64_t> query_int(sqlite3* db, const std::string& sql, const std::vector<Value>& params = {}) {
  Stmt st(db, sql, params);
  if (!st.step() || st.null(0)) return std::nullopt;
  return st.integer(0);
}

// ---- names and types -------------------------------------------------------------------------

// Column names the sqlite extension writes quoted: DuckDB keywords among the catalog's names.
bool is_keyword(std::string_view name) {
  static const std::set<std::string_view> words = {"key", "value", "scope", "type", "sql", "transform"};
  return words.count(name) > 0;
}

bool plain_ident(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string sql_ident(const std::string& name) {
  return plain_ident(name) && !is_keyword(name) ? name : quote_ident(name);
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(' ');
  auto e = s.find_last_not_of(' ');
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What a DuckDB column type becomes in the catalog: the DuckLake type name stored in
// ducklake_column.column_type, and the SQLite type of its inlined-data column (the sqlite
// extension's mapping: integers and booleans BIGINT, FLOAT/DOUBLE as VARCHAR, BLOB as BLOB,
// the rest VARCHAR).
struct TypeInfo {
  const char* ducklake;
  const char* inlined;
};

TypeInfo type_info(const std::string& duckdb_type) {
  static const std::map<std::string, TypeInfo> types = {
      {"TINYINT", {"int8", "BIGINT"}},       {"SMALLINT", {"int16", "BIGINT"}},
      {"INTEGER", {"int32", "BIGINT"}},      {"INT", {"int32", "BIGINT"}},
      {"BIGINT", {"int64", "BIGINT"}},       {"UTINYINT", {"uint8", "BIGINT"}},
      {"USMALLINT", {"uint16", "BIGINT"}},   {"UINTEGER", {"uint32", "BIGINT"}},
      {"BOOLEAN", {"boolean", "BIGINT"}},    {"FLOAT", {"float32", "VARCHAR"}},
      {"DOUBLE", {"float64", "VARCHAR"}},    {"VARCHAR", {"varchar", "VARCHAR"}},
      {"TEXT", {"varchar", "VARCHAR"}},      {"DATE", {"date", "VARCHAR"}},
      {"TIMESTAMP", {"timestamp", "VARCHAR"}}, {"TIMESTAMPTZ", {"timestamptz", "VARCHAR"}},
      {"UUID", {"uuid", "VARCHAR"}},         {"BLOB", {"blob", "BLOB"}},
  };
  auto it = types.find(upper(duckdb_type));
  if (it == types.end()) throw std::invalid_argument("catalog builder: unsupported column type " + duckdb_type);
  return it->second;
}

bool is_integer_type(const std::string& ducklake_type) {
  return ducklake_type.rfind("int", 0) == 0 || ducklake_type.rfind("uint", 0) == 0;
}

// The value a generated row `row_id` holds in a column of this DuckLake type: the row id for
// integers, so a reader can tell rows apart and statistics have a meaning.
Value row_value(const std::string& ducklake_type, int64_t row_id) {
  if (is_integer_type(ducklake_type)) return row_id;
  if (ducklake_type == "boolean") return row_id % 2;
  if (ducklake_type == "float32" || ducklake_type == "float64") return std::to_string(row_id) + ".5";
  if (ducklake_type == "date") return std::string("2026-01-01");
  if (ducklake_type == "timestamp" || ducklake_type == "timestamptz") return std::string("2026-01-01 00:00:00");
  if (ducklake_type == "uuid") {
    char buf[37];
    std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012llx", static_cast<unsigned long long>(row_id));
    return std::string(buf);
  }
  return "v" + std::to_string(row_id);
}

// ---- ids -------------------------------------------------------------------------------------

std::mt19937_64& rng() {
  static thread_local std::mt19937_64 r{std::random_device{}()};
  return r;
}

std::string uuid_text(uint64_t hi, uint64_t lo) {
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff), static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

// Random (v4): the extension's schema UUIDs.
std::string uuid_v4() {
  uint64_t hi = (rng()() & ~0xf000ULL) | 0x4000ULL;
  uint64_t lo = (rng()() & ~(0xc000ULL << 48)) | (0x8000ULL << 48);
  return uuid_text(hi, lo);
}

// Time-ordered (v7): the extension's table UUIDs and data file names.
std::string uuid_v7(int64_t epoch_us) {
  uint64_t ms = static_cast<uint64_t>(epoch_us / 1000);
  uint64_t hi = (ms << 16) | 0x7000ULL | (rng()() & 0x0fffULL);
  uint64_t lo = (rng()() & ~(0xc000ULL << 48)) | (0x8000ULL << 48);
  return uuid_text(hi, lo);
}

int64_t system_now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm), and back.
void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

// ---- free functions --------------------------------------------------------------------------

const std::vector<std::string>& spec_ddl() {
  // The extension's 1.0 DDL, statement for statement, in DuckDB type names.
  static const std::vector<std::string> ddl = {
      "CREATE TABLE ducklake_metadata(key VARCHAR NOT NULL, value VARCHAR NOT NULL, scope VARCHAR, scope_id BIGINT);",
      "CREATE TABLE ducklake_snapshot(snapshot_id BIGINT PRIMARY KEY, snapshot_time TIMESTAMPTZ, schema_version BIGINT, next_catalog_id BIGINT, next_file_id BIGINT);",
      "CREATE TABLE ducklake_snapshot_changes(snapshot_id BIGINT PRIMARY KEY, changes_made VARCHAR, author VARCHAR, commit_message VARCHAR, commit_extra_info VARCHAR);",
      "CREATE TABLE ducklake_schema(schema_id BIGINT PRIMARY KEY, schema_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN);",
      "CREATE TABLE ducklake_table(table_id BIGINT, table_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, table_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN);",
      "CREATE TABLE ducklake_view(view_id BIGINT, view_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, view_name VARCHAR, dialect VARCHAR, sql VARCHAR, column_aliases VARCHAR);",
      "CREATE TABLE ducklake_tag(object_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, key VARCHAR, value VARCHAR);",
      "CREATE TABLE ducklake_column_tag(table_id BIGINT, column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, key VARCHAR, value VARCHAR);",
      "CREATE TABLE ducklake_data_file(data_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, file_order BIGINT, path VARCHAR, path_is_relative BOOLEAN, file_format VARCHAR, record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT, encryption_key VARCHAR, mapping_id BIGINT, partial_max BIGINT);",
      "CREATE TABLE ducklake_file_column_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR);",
      "CREATE TABLE ducklake_file_variant_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, variant_path VARCHAR, shredded_type VARCHAR, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR);",
      "CREATE TABLE ducklake_delete_file(delete_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, format VARCHAR, delete_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, encryption_key VARCHAR, partial_max BIGINT);",
      "CREATE TABLE ducklake_column(column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, initial_default VARCHAR, default_value VARCHAR, nulls_allowed BOOLEAN, parent_column BIGINT, default_value_type VARCHAR, default_value_dialect VARCHAR);",
      "CREATE TABLE ducklake_table_stats(table_id BIGINT, record_count BIGINT, next_row_id BIGINT, file_size_bytes BIGINT);",
      "CREATE TABLE ducklake_table_column_stats(table_id BIGINT, column_id BIGINT, contains_null BOOLEAN, contains_nan BOOLEAN, min_value VARCHAR, max_value VARCHAR, extra_stats VARCHAR);",
      "CREATE TABLE ducklake_partition_info(partition_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT);",
      "CREATE TABLE ducklake_partition_column(partition_id BIGINT, table_id BIGINT, partition_key_index BIGINT, column_id BIGINT, transform VARCHAR);",
      "CREATE TABLE ducklake_file_partition_value(data_file_id BIGINT, table_id BIGINT, partition_key_index BIGINT, partition_value VARCHAR);",
      "CREATE TABLE ducklake_files_scheduled_for_deletion(data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, schedule_start TIMESTAMPTZ);",
      "CREATE TABLE ducklake_inlined_data_tables(table_id BIGINT, table_name VARCHAR, schema_version BIGINT);",
      "CREATE TABLE ducklake_column_mapping(mapping_id BIGINT, table_id BIGINT, type VARCHAR);",
      "CREATE TABLE ducklake_name_mapping(mapping_id BIGINT, column_id BIGINT, source_name VARCHAR, target_field_id BIGINT, parent_column BIGINT, is_partition BOOLEAN);",
      "CREATE TABLE ducklake_schema_versions(begin_snapshot BIGINT, schema_version BIGINT, table_id BIGINT);",
      "CREATE TABLE ducklake_macro(schema_id BIGINT, macro_id BIGINT, macro_name VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT);",
      "CREATE TABLE ducklake_macro_impl(macro_id BIGINT, impl_id BIGINT, dialect VARCHAR, sql VARCHAR, type VARCHAR);",
      "CREATE TABLE ducklake_macro_parameters(macro_id BIGINT, impl_id BIGINT,column_id BIGINT, parameter_name VARCHAR, parameter_type VARCHAR, default_value VARCHAR, default_value_type VARCHAR);",
      "CREATE TABLE ducklake_sort_info(sort_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT);",
      "CREATE TABLE ducklake_sort_expression(sort_id BIGINT, table_id BIGINT, sort_key_index BIGINT, expression VARCHAR, dialect VARCHAR, sort_direction VARCHAR, null_order VARCHAR);",
  };
  return ddl;
}

std::string sqlite_ddl(const std::string& duckdb_ddl) {
  auto open = duckdb_ddl.find('(');
  auto close = duckdb_ddl.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw std::invalid_argument("not a CREATE TABLE statement: " + duckdb_ddl);
  std::string out = duckdb_ddl.substr(0, open) + "(";
  std::istringstream cols(duckdb_ddl.substr(open + 1, close - open - 1));
  std::string part;
  bool first = true;
  while (std::getline(cols, part, ',')) {
    std::istringstream words(trim(part));
    std::string name, type, rest, w;
    words >> name >> type;
    while (words >> w) rest += " " + w;
    std::string t = upper(type);
    if (t == "BOOLEAN" || t == "TINYINT" || t == "SMALLINT" || t == "INTEGER" || t == "BIGINT") t = "BIGINT";
    else if (t == "FLOAT" || t == "DOUBLE") t = "DOUBLE";
    else if (t != "BLOB") t = "VARCHAR";
    out += (first ? "" : ", ") + (is_keyword(name) ? quote_ident(name) : name) + " " + t + rest;
    first = false;
  }
  return out + duckdb_ddl.substr(close);
}

std::string duckdb_time_text(int64_t epoch_us) {
  int64_t days = epoch_us >= 0 ? epoch_us / 86400000000LL : -((-epoch_us + 86400000000LL - 1) / 86400000000LL);
  int64_t in_day = epoch_us - days * 86400000000LL;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  int64_t secs = in_day / 1000000, frac = in_day % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  std::string text = buf;
  if (frac) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    text += f;
  }
  return text + "+00";
}

int64_t parse_duckdb_time(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d%*1[ T]%d:%d:%d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6)
    throw std::invalid_argument("not a DuckDB timestamp: " + text);
  std::size_t i = static_cast<std::size_t>(n);
  int64_t frac = 0;
  if (i < text.size() && text[i] == '.') {
    std::string digits;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) digits += text[i];
    digits = (digits + "000000").substr(0, 6);
    frac = std::stoll(digits);
  }
  int64_t offset = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int sign = text[i] == '+' ? 1 : -1;
    int parts[3] = {0, 0, 0}, k = 0;
    std::string rest = text.substr(i + 1);
    std::istringstream in(rest);
    std::string p;
    while (k < 3 && std::getline(in, p, ':')) parts[k++] = std::stoi(p);
    offset = sign * (parts[0] * 3600LL + parts[1] * 60LL + parts[2]);
  } else if (i != text.size()) {
    throw std::invalid_argument("not a DuckDB timestamp: " + text);
  }
  int64_t secs = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600LL +
                 mi * 60LL + s - offset;
  return secs * 1000000 + frac;
}

std::string quote_ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// ---- the builder -----------------------------------------------------------------------------

// The commit in progress: its snapshot and the counters its snapshot row will carry.
struct CatalogBuilder::Commit {
  sqlite3* db;
  int64_t snapshot;
  int64_t time_us;
  int64_t schema_version;
  int64_t next_catalog_id;
  int64_t next_file_id;
};

CatalogBuilder::CatalogBuilder(fs::path path, sqlite3* db, BuilderOptions options)
    : path_(std::move(path)), db_(db), options_(std::move(options)) {
  if (!options_.clock) options_.clock = system_now_us;
}

CatalogBuilder::CatalogBuilder(CatalogBuilder&& o) noexcept
    : path_(std::move(o.path_)), db_(std::exchange(o.db_, nullptr)), options_(std::move(o.options_)) {}

CatalogBuilder& CatalogBuilder::operator=(CatalogBuilder&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close(db_);
    path_ = std::move(o.path_);
    db_ = std::exchange(o.db_, nullptr);
    options_ = std::move(o.options_);
  }
  return *this;
}

CatalogBuilder::~CatalogBuilder() {
  if (db_) sqlite3_close(db_);
}

namespace {

sqlite3* open_db(const fs::path& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path.string() + ": " + msg);
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

}  // namespace

CatalogBuilder CatalogBuilder::create(const fs::path& path, BuilderOptions options) {
  std::error_code ec;
  if (fs::exists(path, ec)) throw std::runtime_error("catalog builder: " + path.string() + " already exists");
  CatalogBuilder b(path, open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE), std::move(options));
  std::string data_path = b.options_.data_path.empty() ? path.string() + ".files/" : b.options_.data_path;
  int64_t t = b.options_.clock();
  exec(b.db_, "BEGIN IMMEDIATE");
  try {
    for (const auto& stmt : spec_ddl()) exec(b.db_, sqlite_ddl(stmt));
    for (auto [k, v] : std::array<std::pair<const char*, std::string>, 4>{
             {{"version", "1.0"}, {"created_by", b.options_.created_by}, {"data_path", data_path}, {"encrypted", "false"}}})
      run(b.db_, "INSERT INTO ducklake_metadata VALUES (?, ?, NULL, NULL)", {std::string(k), v});
    run(b.db_, "INSERT INTO ducklake_snapshot VALUES (0, ?, 0, 1, 0)", {duckdb_time_text(t)});
    run(b.db_, "INSERT INTO ducklake_snapshot_changes VALUES (0, 'created_schema:\"main\"', NULL, NULL, NULL)");
    run(b.db_, "INSERT INTO ducklake_schema VALUES (0, ?, 0, NULL, 'main', 'main/', 1)", {uuid_v4()});
    exec(b.db_, "COMMIT");
  } catch (...) {
    sqlite3_exec(b.db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return b;
}

CatalogBuilder CatalogBuilder::open(const fs::path& path, BuilderOptions options) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw std::runtime_error("catalog builder: no catalog at " + path.string());
  CatalogBuilder b(path, open_db(path, SQLITE_OPEN_READWRITE), std::move(options));
  if (!query_int(b.db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ducklake_snapshot'").value_or(0))
    throw std::runtime_error("catalog builder: " + path.string() + " is not a DuckLake catalog");
  return b;
}

int64_t CatalogBuilder::current_snapshot() const {
  return query_int(db_, "SELECT max(snapshot_id) FROM ducklake_snapshot").value_or(-1);
}

int64_t CatalogBuilder::table_id(const std::string& name, const std::string& schema) const {
  auto id = query_int(db_,
                      "SELECT t.table_id FROM ducklake_table t JOIN ducklake_schema s USING (schema_id) "
                      "WHERE t.table_name = ? AND s.schema_name = ? AND t.end_snapshot IS NULL AND s.end_snapshot IS NULL",
                      {name, schema});
  if (!id) throw std::runtime_error("catalog builder: no table " + schema + "." + name + " in " + path_.string());
  return *id;
}

int64_t CatalogBuilder::now_after_last() const {
  int64_t t = options_.clock();
  Stmt st(db_, "SELECT snapshot_time FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1");
  if (st.step() && !st.null(0)) t = std::max(t, parse_duckdb_time(st.text(0)) + 1);
  return t;
}

int64_t CatalogBuilder::commit(const std::string& changes_made, const std::function<void(Commit&)>& body) {
  exec(db_, "BEGIN IMMEDIATE");
  try {
    Commit c{db_, 0, now_after_last(), 0, 0, 0};
    {
      Stmt last(db_, "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot "
                     "ORDER BY snapshot_id DESC LIMIT 1");
      if (!last.step()) throw std::runtime_error("catalog builder: " + path_.string() + " has no snapshot");
      c.snapshot = last.integer(0) + 1;
      c.schema_version = last.integer(1);
      c.next_catalog_id = last.integer(2);
      c.next_file_id = last.integer(3);
    }
    body(c);
    run(db_, "INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)",
        {c.snapshot, duckdb_time_text(c.time_us), c.schema_version, c.next_catalog_id, c.next_file_id});
    run(db_, "INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)", {c.snapshot, changes_made});
    exec(db_, "COMMIT");
    return c.snapshot;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

namespace {

struct LiveColumn {
  int64_t id;
  std::string name;
  std::string type;  // DuckLake type name
};

std::vector<LiveColumn> live_columns(sqlite3* db, int64_t table_id) {
  std::vector<LiveColumn> out;
  Stmt st(db,
          "SELECT column_id, column_name, column_type FROM ducklake_column WHERE table_id = ? AND end_snapshot IS NULL "
          "AND parent_column IS NULL ORDER BY column_order",
          {table_id});
  while (st.step()) out.push_back({st.integer(0), st.text(1), st.text(2)});
  return out;
}

void require_live_table(sqlite3* db, int64_t table_id) {
  if (!query_int(db, "SELECT count(*) FROM ducklake_table WHERE table_id = ? AND end_snapshot IS NULL", {table_id}).value_or(0))
    throw std::runtime_error("catalog builder: no live table with id " + std::to_string(table_id));
}

bool table_exists(sqlite3* db, const std::string& name) {
  return query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", {name}).value_or(0) > 0;
}

// The table's inlined-data tables that exist (a listed one may be missing, upstream #924),
// oldest schema version first.
std::vector<std::string> inlined_tables(sqlite3* db, int64_t table_id) {
  std::vector<std::string> out;
  Stmt st(db, "SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id = ? ORDER BY schema_version", {table_id});
  while (st.step())
    if (table_exists(db, st.text(0))) out.push_back(st.text(0));
  return out;
}

// The row id the table's next inserted row gets: past every row id handed out so far.
int64_t next_row_id(sqlite3* db, int64_t table_id) {
  int64_t next = query_int(db, "SELECT next_row_id FROM ducklake_table_stats WHERE table_id = ?", {table_id}).value_or(0);
  next = std::max(next, query_int(db, "SELECT max(row_id_start + record_count) FROM ducklake_data_file WHERE table_id = ?",
                                  {table_id}).value_or(0));
  for (const auto& t : inlined_tables(db, table_id))
    next = std::max(next, query_int(db, "SELECT max(row_id) + 1 FROM " + quote_ident(t)).value_or(0));
  return next;
}

}  // namespace

int64_t CatalogBuilder::create_table(const std::string& name, const std::vector<Column>& columns, const std::string& schema) {
  if (columns.empty()) throw std::invalid_argument("catalog builder: a table needs a column");
  std::vector<TypeInfo> types;
  for (const auto& c : columns) types.push_back(type_info(c.type));
  return commit("created_table:" + quote_ident(schema) + "." + quote_ident(name), [&](Commit& c) {
    auto schema_id = query_int(db_, "SELECT schema_id FROM ducklake_schema WHERE schema_name = ? AND end_snapshot IS NULL", {schema});
    if (!schema_id) throw std::runtime_error("catalog builder: no schema " + schema);
    if (query_int(db_, "SELECT count(*) FROM ducklake_table WHERE schema_id = ? AND table_name = ? AND end_snapshot IS NULL",
                  {*schema_id, name}).value_or(0))
      throw std::runtime_error("catalog builder: table " + schema + "." + name + " exists");
    int64_t tid = c.next_catalog_id++;
    int64_t sv = ++c.schema_version;
    run(db_, "INSERT INTO ducklake_table VALUES (?, ?, ?, NULL, ?, ?, ?, 1)",
        {tid, uuid_v7(c.time_us), c.snapshot, *schema_id, name, name + "/"});
    for (std::size_t i = 0; i < columns.size(); ++i) {
      auto cid = static_cast<int64_t>(i + 1);
      run(db_, "INSERT INTO ducklake_column VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, 'NULL', 1, NULL, 'literal', 'duckdb')",
          {cid, c.snapshot, tid, cid, columns[i].name, std::string(types[i].ducklake)});
    }
    run(db_, "INSERT INTO ducklake_schema_versions VALUES (?, ?, ?)", {c.snapshot, sv, tid});
    if (options_.inlining_limit > 0) {
      std::string inlined = "ducklake_inlined_data_" + std::to_string(tid) + "_" + std::to_string(sv);
      std::string ddl = "CREATE TABLE " + inlined + "(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT";
      for (std::size_t i = 0; i < columns.size(); ++i) ddl += ", " + sql_ident(columns[i].name) + " " + types[i].inlined;
      exec(db_, ddl + ");");
      run(db_, "INSERT INTO ducklake_inlined_data_tables VALUES (?, ?, ?)", {tid, inlined, sv});
    }
  });
}

int64_t CatalogBuilder::insert_inlined(int64_t table_id, int64_t n) {
  if (n <= 0) throw std::invalid_argument("catalog builder: insert_inlined needs at least one row");
  return commit("inlined_insert:" + std::to_string(table_id), [&](Commit& c) {
    require_live_table(db_, table_id);
    auto tables = inlined_tables(db_, table_id);
    if (tables.empty())
      throw std::runtime_error("catalog builder: table " + std::to_string(table_id) + " has no inlined-data table (inlining off?)");
    auto cols = live_columns(db_, table_id);
    std::string sql = "INSERT INTO " + quote_ident(tables.back()) + " VALUES (?, ?, NULL";
    for (std::size_t i = 0; i < cols.size(); ++i) sql += ", ?";
    sql += ")";
    int64_t row = next_row_id(db_, table_id);
    for (int64_t k = 0; k < n; ++k, ++row) {
      std::vector<Value> values{row, c.snapshot};
      for (const auto& col : cols) values.push_back(row_value(col.type, row));
      run(db_, sql, values);
    }
  });
}

int64_t CatalogBuilder::insert_file(int64_t table_id, int64_t rows) {
  if (rows <= 0) throw std::invalid_argument("catalog builder: insert_file needs at least one row");
  return commit("inserted_into_table:" + std::to_string(table_id), [&](Commit& c) {
    require_live_table(db_, table_id);
    auto cols = live_columns(db_, table_id);
    int64_t file_id = c.next_file_id++;
    int64_t first = next_row_id(db_, table_id);
    int64_t size = 300 + rows * 4, footer = 200 + 40 * static_cast<int64_t>(cols.size());
    run(db_, "INSERT INTO ducklake_data_file VALUES (?, ?, ?, NULL, NULL, ?, 1, 'parquet', ?, ?, ?, ?, NULL, NULL, NULL, NULL)",
        {file_id, table_id, c.snapshot, "ducklake-" + uuid_v7(c.time_us) + ".parquet", rows, size, footer, first});
    for (const auto& col : cols) {
      bool ints = is_integer_type(col.type);
      Value lo = ints ? Value(std::to_string(first)) : Value(nullptr);
      Value hi = ints ? Value(std::to_string(first + rows - 1)) : Value(nullptr);
      run(db_, "INSERT INTO ducklake_file_column_stats VALUES (?, ?, ?, ?, ?, 0, ?, ?, NULL, NULL)",
          {file_id, table_id, col.id, rows * 4, rows, lo, hi});
      if (query_int(db_, "SELECT count(*) FROM ducklake_table_column_stats WHERE table_id = ? AND column_id = ?",
                    {table_id, col.id}).value_or(0))
        run(db_, "UPDATE ducklake_table_column_stats SET max_value = ? WHERE table_id = ? AND column_id = ?", {hi, table_id, col.id});
      else
        run(db_, "INSERT INTO ducklake_table_column_stats VALUES (?, ?, 0, NULL, ?, ?, NULL)", {table_id, col.id, lo, hi});
    }
    // Like the extension's first file insert after inlined ones: record_count counts every
    // row inserted so far (inlined rows included).
    if (query_int(db_, "SELECT count(*) FROM ducklake_table_stats WHERE table_id = ?", {table_id}).value_or(0))
      run(db_, "UPDATE ducklake_table_stats SET record_count = record_count + ?, next_row_id = ?, "
               "file_size_bytes = file_size_bytes + ? WHERE table_id = ?",
          {rows, first + rows, size, table_id});
    else
      run(db_, "INSERT INTO ducklake_table_stats VALUES (?, ?, ?, ?)", {table_id, first + rows, first + rows, size});
  });
}

int64_t CatalogBuilder::delete_inlined(int64_t table_id, int64_t n) {
  if (n <= 0) throw std::invalid_argument("catalog builder: delete_inlined needs at least one row");
  return commit("inlined_delete:" + std::to_string(table_id), [&](Commit& c) {
    require_live_table(db_, table_id);
    std::vector<std::pair<int64_t, std::string>> live;  // (row_id, inlined table)
    for (const auto& t : inlined_tables(db_, table_id)) {
      Stmt st(db_, "SELECT row_id FROM " + quote_ident(t) + " WHERE end_snapshot IS NULL");
      while (st.step()) live.emplace_back(st.integer(0), t);
    }
    if (static_cast<int64_t>(live.size()) < n)
      throw std::runtime_error("catalog builder: table " + std::to_string(table_id) + " has " + std::to_string(live.size()) +
                               " live inlined rows, not " + std::to_string(n));
    std::sort(live.begin(), live.end());
    for (int64_t k = 0; k < n; ++k)
      run(db_, "UPDATE " + quote_ident(live[k].second) + " SET end_snapshot = ? WHERE row_id = ?", {c.snapshot, live[k].first});
  });
}

int64_t CatalogBuilder::drop_table(int64_t table_id) {
  return commit("dropped_table:" + std::to_string(table_id), [&](Commit& c) {
    require_live_table(db_, table_id);
    for (const char* t : {"ducklake_table", "ducklake_column", "ducklake_data_file", "ducklake_delete_file",
                          "ducklake_partition_info", "ducklake_column_tag", "ducklake_sort_info"})
      run(db_, std::string("UPDATE ") + t + " SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL",
          {c.snapshot, table_id});
    run(db_, "UPDATE ducklake_tag SET end_snapshot = ? WHERE object_id = ? AND end_snapshot IS NULL", {c.snapshot, table_id});
    ++c.schema_version;
  });
}

void CatalogBuilder::expire(const std::vector<int64_t>& ids) {
  if (ids.empty()) return;
  exec(db_, "BEGIN IMMEDIATE");
  try {
    int64_t newest = current_snapshot();
    std::string list;
    for (int64_t id : ids) {
      if (id == newest) throw std::runtime_error("catalog builder: the newest snapshot (" + std::to_string(id) + ") cannot expire");
      list += (list.empty() ? "" : ", ") + std::to_string(id);
    }
    std::string now = duckdb_time_text(options_.clock());
    run(db_, "DELETE FROM ducklake_snapshot WHERE snapshot_id IN (" + list + ")");
    run(db_, "DELETE FROM ducklake_snapshot_changes WHERE snapshot_id IN (" + list + ")");

    // A row whose lifetime ended and holds no surviving snapshot.
    auto gone = [](const std::string& alias) {
      return alias + ".end_snapshot IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ducklake_snapshot s WHERE s.snapshot_id >= " +
             alias + ".begin_snapshot AND s.snapshot_id < " + alias + ".end_snapshot)";
    };

    // 2. Tables every row of which is gone.
    std::vector<int64_t> purged;
    {
      Stmt st(db_, "SELECT DISTINCT table_id FROM ducklake_table t WHERE NOT EXISTS (SELECT 1 FROM ducklake_table u WHERE "
                   "u.table_id = t.table_id AND NOT (" + gone("u") + ")) ORDER BY table_id");
      while (st.step()) purged.push_back(st.integer(0));
    }
    std::string purged_list = "-1";
    for (int64_t t : purged) purged_list += ", " + std::to_string(t);

    // 3. Data and delete files: deleted and scheduled for deletion, with their paths relative
    // to the data path (schema path + table path + file) as the extension records them.
    std::string prefix =
        "(SELECT CASE WHEN s.path_is_relative THEN s.path ELSE '' END || CASE WHEN t.path_is_relative THEN t.path ELSE '' END "
        "FROM ducklake_table t JOIN ducklake_schema s USING (schema_id) WHERE t.table_id = f.table_id "
        "ORDER BY t.begin_snapshot DESC LIMIT 1)";
    for (auto [table, id] : {std::pair{"ducklake_data_file", "data_file_id"}, std::pair{"ducklake_delete_file", "delete_file_id"}}) {
      std::string where = "(" + gone("f") + ") OR f.table_id IN (" + purged_list + ")";
      run(db_,
          std::string("INSERT INTO ducklake_files_scheduled_for_deletion SELECT f.") + id +
              ", CASE WHEN f.path_is_relative THEN coalesce(" + prefix + ", '') || f.path ELSE f.path END, f.path_is_relative, ? FROM " +
              table + " f WHERE " + where + " ORDER BY f." + id,
          {now});
      if (std::string(table) == "ducklake_data_file")
        for (const char* stats : {"ducklake_file_column_stats", "ducklake_file_variant_stats", "ducklake_file_partition_value"})
          run(db_, std::string("DELETE FROM ") + stats + " WHERE data_file_id IN (SELECT f.data_file_id FROM ducklake_data_file f WHERE " +
                       where + ")");
      run(db_, std::string("DELETE FROM ") + table + " AS f WHERE " + where);
    }

    for (int64_t tid : purged) {
      for (const auto& t : inlined_tables(db_, tid)) exec(db_, "DROP TABLE " + quote_ident(t));
      exec(db_, "DROP TABLE IF EXISTS " + quote_ident("ducklake_inlined_delete_" + std::to_string(tid)));
      for (const char* t : {"ducklake_table", "ducklake_table_stats", "ducklake_table_column_stats", "ducklake_partition_info",
                            "ducklake_partition_column", "ducklake_column", "ducklake_column_tag", "ducklake_sort_info",
                            "ducklake_sort_expression", "ducklake_schema_versions", "ducklake_inlined_data_tables",
                            "ducklake_column_mapping"})
        run(db_, std::string("DELETE FROM ") + t + " WHERE table_id = ?", {tid});
    }

    // 4. Ended schemas, views, tags and macros no surviving snapshot sees; orphans.
    for (const char* t : {"ducklake_schema", "ducklake_view", "ducklake_tag", "ducklake_column_tag", "ducklake_macro"})
      run(db_, std::string("DELETE FROM ") + t + " AS x WHERE " + gone("x"));
    run(db_, "DELETE FROM ducklake_macro_impl WHERE macro_id NOT IN (SELECT macro_id FROM ducklake_macro)");
    run(db_, "DELETE FROM ducklake_macro_parameters WHERE macro_id NOT IN (SELECT macro_id FROM ducklake_macro)");
    run(db_, "DELETE FROM ducklake_name_mapping WHERE mapping_id NOT IN (SELECT mapping_id FROM ducklake_column_mapping)");
    exec(db_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace tether::ducklake::harness
