// builder: writes spec-1.0 DuckLake catalogs in SQLite the way the ducklake extension does
// (the 1.0 DDL mapped to SQLite as DuckDB's sqlite extension maps it, the rows of a fresh
// catalog, the write patterns; docs/backends.md#ducklake, "Test catalogs"), for tests and the
// conformance harness. Every operation but expire is one commit: one transaction appending one
// ducklake_snapshot row (with the counters after the commit and DuckDB's timestamp text) and
// one ducklake_snapshot_changes row with the extension's `changes_made` tokens. The builder
// keeps no state of its own between operations: each reads the counters back from the catalog,
// so any process can continue a catalog another one started.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace tether::ducklake::harness {

// The 28 CREATE TABLE statements of a 1.0 catalog as the extension issues them (DuckDB
// type names), in its order.
const std::vector<std::string>& spec_ddl();

// One statement of spec_ddl() as DuckDB's sqlite extension creates it: BOOLEAN and
// integer types become BIGINT, UUID and TIMESTAMPTZ become VARCHAR, keyword column names are
// double-quoted, constraints kept.
std::string sqlite_ddl(const std::string& duckdb_ddl);

// Microseconds since the epoch as DuckDB prints a TIMESTAMPTZ in a UTC session:
// `2026-05-04 08:00:00.5+00` (fraction trimmed of trailing zeros, none when zero).
std::string duckdb_time_text(int64_t epoch_us);
// The inverse, for any offset DuckDB prints (`+00`, `+05:30`, `-04`); throws on other text.
int64_t parse_duckdb_time(const std::string& text);

// `"name"` with embedded quotes doubled, as in `changes_made`.
std::string quote_ident(const std::string& name);

struct Column {
  std::string name;
  std::string type;  // a DuckDB type name: INTEGER, BIGINT, VARCHAR, DOUBLE, BOOLEAN, ...
};

struct BuilderOptions {
  std::string data_path;                 // `data_path` metadata; empty: `<catalog>.files/`
  std::string created_by = "DuckDB tether-catalog-builder";
  int64_t inlining_limit = 10;           // 0: create no inlined-data tables
  std::function<int64_t()> clock;        // commit times in µs; empty: the system clock
};

class CatalogBuilder {
 public:
  // A new catalog file at `path` (which must not exist): the DDL and snapshot 0.
  static CatalogBuilder create(const std::filesystem::path& path, BuilderOptions options = {});
  // A catalog this builder (or the extension) wrote, to continue it.
  static CatalogBuilder open(const std::filesystem::path& path, BuilderOptions options = {});

  CatalogBuilder(CatalogBuilder&&) noexcept;
  CatalogBuilder& operator=(CatalogBuilder&&) noexcept;
  ~CatalogBuilder();

  const std::filesystem::path& path() const { return path_; }
  int64_t current_snapshot() const;
  // The live table `schema.name`; throws when there is none.
  int64_t table_id(const std::string& name, const std::string& schema = "main") const;

  // Each returns the id of the snapshot it committed.
  // CREATE TABLE schema.name (columns): table, columns, schema version and (inlining on) an
  // empty inlined-data table. Token created_table:"schema"."name".
  int64_t create_table(const std::string& name, const std::vector<Column>& columns,
                       const std::string& schema = "main");
  // n small rows inlined into the table's current inlined-data table. Token inlined_insert.
  int64_t insert_inlined(int64_t table_id, int64_t n);
  // One Parquet data file of `rows` rows (the file itself is not written). Token
  // inserted_into_table.
  int64_t insert_file(int64_t table_id, int64_t rows);
  // Ends the n oldest live inlined rows. Token inlined_delete.
  int64_t delete_inlined(int64_t table_id, int64_t n);
  // Ends the table and everything it owns. Token dropped_table.
  int64_t drop_table(int64_t table_id);
  // ducklake_expire_snapshots(versions => ids): deletes those snapshots (never the
  // newest) and collects what no surviving snapshot can see. Commits no snapshot.
  void expire(const std::vector<int64_t>& ids);

 private:
  CatalogBuilder(std::filesystem::path path, sqlite3* db, BuilderOptions options);
  struct Commit;
  int64_t commit(const std::string& changes_made, const std::function<void(Commit&)>& body);
  int64_t now_after_last() const;

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
  BuilderOptions options_;
};

}  // namespace tether::ducklake::harness
