// The SQLite catalog: opened read-only (a missing file is never created), with a busy
// timeout because DuckDB writers hold short write locks, and one deferred read transaction
// for the whole operation.
#include <sqlite3.h>

#include "catalog.hpp"
#include "tether/sdk/error.hpp"

namespace tether::ducklake {
namespace {

constexpr int kBusyTimeoutMs = 10000;

class SqliteCatalog final : public Catalog {
 public:
  SqliteCatalog(const std::string& path, std::string display) : display_(std::move(display)) {
    int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw sdk::BackendError("cannot open the DuckLake catalog " + path + ": " + why);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) {
      std::string why = sqlite3_errmsg(db_);
      sqlite3_close(db_);
      db_ = nullptr;
      throw sdk::BackendError("cannot read the DuckLake catalog " + path + ": " + why);
    }
  }
  ~SqliteCatalog() override {
    if (!db_) return;
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  SqliteCatalog(const SqliteCatalog&) = delete;
  SqliteCatalog& operator=(const SqliteCatalog&) = delete;

  Rows query(std::string_view sql, const std::vector<int64_t>& params) override {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr) != SQLITE_OK) fail(sql);
    Rows rows;
    for (std::size_t i = 0; i < params.size(); ++i) sqlite3_bind_int64(st, static_cast<int>(i + 1), params[i]);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      int n = sqlite3_column_count(st);
      Row row(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c)
        if (sqlite3_column_type(st, c) != SQLITE_NULL) {
          const unsigned char* text = sqlite3_column_text(st, c);
          row[static_cast<std::size_t>(c)] =
              std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(st, c)));
        }
      rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) {
      std::string why = sqlite3_errmsg(db_);
      sqlite3_finalize(st);
      throw sdk::BackendError("reading the DuckLake catalog " + display_ + " failed: " + why);
    }
    sqlite3_finalize(st);
    return rows;
  }

  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    for (auto& r : query("SELECT name FROM sqlite_master WHERE type = 'table'", {}))
      if (r[0]) out.push_back(*r[0]);
    return out;
  }

  std::vector<std::string> columns(const std::string& table) override {
    sqlite3_stmt* st = nullptr;
    const char* sql = "SELECT name FROM pragma_table_info(?)";
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK) fail(sql);
    sqlite3_bind_text(st, 1, table.c_str(), -1, SQLITE_TRANSIENT);
    std::vector<std::string> out;
    while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
  }

  const std::string& display() const override { return display_; }

 private:
  [[noreturn]] void fail(std::string_view sql) {
    throw sdk::BackendError("reading the DuckLake catalog " + display_ + " failed: " + sqlite3_errmsg(db_) + " (in " +
                            std::string(sql.substr(0, 80)) + ")");
  }

  sqlite3* db_ = nullptr;
  std::string display_;
};

}  // namespace

std::unique_ptr<Catalog> open_sqlite(const std::string& path, const std::string& display) {
  return std::make_unique<SqliteCatalog>(path, display);
}

}  // namespace tether::ducklake
