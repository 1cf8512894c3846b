// tether/registry/registry.hpp: the registry layer's tables (docs/registry.md#the-tables,
// schema version 3) and the Bundle that export, publish and the writers share. Experimental:
// the schema may change before 0.2 (every command prints a note saying so).
//
// One table-definition table drives every output (SQLite, PostgreSQL, CSV, JSONL, Parquet,
// schema.json), so they cannot drift apart. A Bundle holds every table's rows as flat arrays
// of Cells; cell text lives in the bundle's string arena, interned, so the same locator or
// state in ten thousand commits is stored once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::registry {

inline constexpr int kSchemaVersion = 3;

// Logical column types (docs/registry.md#the-tables, "Types").
enum class Type { Text, Int, Bool, Json, Timestamp };
const char* type_name(Type t);  // "text" | "int" | "bool" | "json" | "timestamp"

// How export/publish treat a table's existing rows (docs/registry.md#export, #publish).
enum class Group {
  CommitKeyed,  // commits, commit_parents, objects: immutable per commit; publish skips known commits
  Replaced,     // refs, workspace, tether_meta: describe now; emptied and rewritten
  Upserted,     // object_states, listings, listing_entries: upserted in full, never deleted
};

struct Column {
  std::string name;
  Type type;
  std::string doc;
};

struct TableDef {
  std::string name;
  std::string doc;
  std::vector<Column> columns;
  std::vector<std::string> primary_key;
  Group group;
  std::size_t column_index(std::string_view name) const;  // throws std::out_of_range
};

struct ViewDef {
  std::string name;
  std::string body;  // `{q}` stands for the schema prefix ("tether." in PostgreSQL, "" in SQLite)
  std::string sql(const std::string& prefix) const;
};

// The nine tables in definition order (also the write order and the report order) and the
// two views.
const std::vector<TableDef>& tables();
const std::vector<ViewDef>& views();
const TableDef& table_def(std::string_view name);  // throws std::out_of_range

// One value. Text, Json and Timestamp columns hold Text cells: Json as compact canonical JSON
// (keys sorted), Timestamp as ISO-8601 with an offset (`2026-09-20T12:00:00+00:00`).
struct Cell {
  enum Kind : std::uint8_t { Null, Text, Int, Bool };
  Kind kind = Null;
  bool b = false;
  std::int64_t i = 0;
  std::string_view s;  // Text: points into the owning Bundle's arena (or static storage)

  static Cell null() { return {}; }
  static Cell text(std::string_view v) { Cell c; c.kind = Text; c.s = v; return c; }
  static Cell integer(std::int64_t v) { Cell c; c.kind = Int; c.i = v; return c; }
  static Cell boolean(bool v) { Cell c; c.kind = Bool; c.b = v; return c; }
  bool is_null() const { return kind == Null; }
};

// A table's rows: cells in row-major order, def().columns.size() per row.
class Table {
 public:
  explicit Table(const TableDef& def) : def_(&def) {}
  const TableDef& def() const { return *def_; }
  const std::string& name() const { return def_->name; }
  std::size_t rows() const { return def_->columns.empty() ? 0 : cells_.size() / def_->columns.size(); }
  std::span<const Cell> row(std::size_t r) const {
    const std::size_t n = def_->columns.size();
    return {cells_.data() + r * n, n};
  }
  const Cell& at(std::size_t r, std::size_t c) const { return cells_[r * def_->columns.size() + c]; }
  // Appends one row; `cells` must have one cell per column (std::invalid_argument otherwise).
  void add_row(std::span<const Cell> cells);
  void add_row(std::initializer_list<Cell> cells) { add_row(std::span<const Cell>(cells.begin(), cells.size())); }
  void reserve(std::size_t rows) { cells_.reserve(rows * def_->columns.size()); }

 private:
  const TableDef* def_;
  std::vector<Cell> cells_;
};

// One object_states key, and a commit a target stores as recording it with its pin (an
// incremental publish reads them).
struct StateKey {
  std::string kind, identity_hash, state_hash;  // identity_hash "" = null
};
struct StateRecord {
  std::string commit_id;
  std::optional<std::string> pin_id;
};

// Every table of one export, plus where it was taken.
class Bundle {
 public:
  Bundle();
  Bundle(const Bundle&) = delete;
  Bundle& operator=(const Bundle&) = delete;
  Bundle(Bundle&&) = default;
  Bundle& operator=(Bundle&&) = default;

  std::string head;         // commit id of the working copy at export ("" when unborn)
  std::string exported_at;  // UTC ISO-8601, seconds
  // Commits walked whose commit-keyed rows were left out because the target has them
  // (an incremental publish; 0 for an export).
  std::size_t omitted_commits = 0;

  Table& operator[](std::string_view name);
  const Table& operator[](std::string_view name) const;
  std::vector<Table>& all() { return tables_; }
  const std::vector<Table>& all() const { return tables_; }
  // table -> row count, for all nine tables (zeros included), in table order.
  std::vector<std::pair<std::string, std::size_t>> row_counts() const;

  // A copy of `text` owned by the bundle; equal texts share one copy.
  std::string_view intern(std::string_view text);
  Cell text(std::string_view v) { return Cell::text(intern(v)); }
  Cell text_or_null(const std::optional<std::string>& v) { return v ? text(*v) : Cell::null(); }

 private:
  // The interned texts: copies in large blocks (a text of more than a quarter block gets one of
  // its own, in big_), found through an open-addressing table of their hashes. One allocation
  // per 64 KiB instead of one per text, and as few to free: an export of 10,000 commits interns
  // a few hundred thousand texts.
  struct Slot {
    std::size_t hash = 0;
    const char* data = nullptr;  // nullptr: an empty slot
    std::size_t size = 0;
  };
  void grow();
  std::vector<Table> tables_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // back(): the block being filled
  std::vector<std::unique_ptr<char[]>> big_;
  std::size_t left_ = 0;  // free bytes at the end of blocks_.back()
  std::vector<Slot> slots_;  // a power of two long, at most half full
  std::size_t interned_ = 0;
};

// ---- writers (one per format; all driven by tables()) ----

// SQLite (docs/registry.md#export). Without `append` an existing file is replaced (parent
// directories made); with it, rows are upserted (INSERT OR REPLACE) and the Replaced tables
// rewritten. One transaction. Throws ConfigError/TetherError naming the path on failure.
void write_sqlite(const Bundle& bundle, const std::filesystem::path& path, bool append);
std::string sqlite_ddl();  // CREATE TABLE / CREATE VIEW IF NOT EXISTS, one statement per line

// Export targets (docs/registry.md#export): refuses (ConfigError) a `path` that resolves,
// symlinks and `..` followed, to `dataset_root`'s tether.toml or into its .tether/, whatever
// `force` says; and, unless `force`, an existing target that is not recognisably a tether
// export of format `fmt` (is_tether_export; an empty file or directory has nothing to lose and
// is accepted).
void check_export_target(const std::filesystem::path& path, const std::string& fmt, bool force,
                         const std::filesystem::path& dataset_root);
// A tether export: for "sqlite" a SQLite file with a `tether_meta` table holding
// `schema_version`; for directory formats a directory whose schema.json is tether's (a
// `schema_version` and a `tables` object describing `tether_meta`).
bool is_tether_export(const std::filesystem::path& path, const std::string& fmt);

// Directory formats (docs/registry.md#export): `schema.json` plus `<table>.<fmt>` for all nine
// tables. fmt: "csv" | "jsonl" | "parquet" (anything else: ConfigError `unknown export format
// 'x'`). Returns the number of files written (10).
std::size_t write_dir(const Bundle& bundle, const std::filesystem::path& dir, const std::string& fmt);
std::string schema_json();  // the pretty-printed schema.json text
void write_csv(const Table& table, const std::filesystem::path& path);
void write_jsonl(const Table& table, const std::filesystem::path& path);
// Parquet (our own writer, parquet.cpp): one row group, PLAIN encoding, zstd-compressed
// pages; text/json → BYTE_ARRAY STRING, int → INT64, bool → BOOLEAN, timestamp → INT64
// TIMESTAMP(isAdjustedToUTC, MICROS). Every column optional.
void write_parquet(const Table& table, const std::filesystem::path& path);

// Microseconds since the epoch of an ISO-8601 timestamp with offset (`...+00:00`, `...Z`,
// optional fractional seconds); nullopt when it does not parse.
std::optional<std::int64_t> iso_to_micros(std::string_view iso);

}  // namespace tether::registry
