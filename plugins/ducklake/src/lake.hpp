// lake: a DuckLake catalog read through a Catalog (docs/backends.md#ducklake): probing its
// layout, checking its spec version, its snapshots with their parsed changes, and the names of
// tables, schemas and views by id. History, diff and verify are built on this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "catalog.hpp"
#include "changes.hpp"
#include "tether/sdk/error.hpp"

namespace tether::ducklake {

// The spec versions this reader accepts: 0.1 up to and including 1.1-dev1.
inline constexpr const char* kOldestVersion = "0.1";
inline constexpr const char* kNewestVersion = "1.1-dev1";

// A catalog whose spec version this reader does not know (newer ones included).
struct VersionError : sdk::BackendError {
  using sdk::BackendError::BackendError;
};

// Orders DuckLake versions (`0.3-dev1` < `0.3` < `0.4-dev1`); nullopt when not one.
struct SpecVersion {
  int major = 0, minor = 0;
  int dev = 0;  // 0 for a release, else the -devN number (a release is newer than its devs)
  auto key() const { return std::make_tuple(major, minor, dev == 0 ? 1 << 30 : dev); }
  bool operator<(const SpecVersion& o) const { return key() < o.key(); }
};
std::optional<SpecVersion> parse_spec_version(const std::string& text);

struct Snapshot {
  int64_t id = 0;
  int64_t time_us = 0;
};

struct SnapshotChanges {
  Snapshot snapshot;
  bool has_changes_row = false;   // false when ducklake_snapshot_changes has no row
  std::vector<Change> changes;    // parsed changes_made (empty for NULL)
  std::optional<std::string> author, commit_message;
};

// One ducklake_table row: a name a table id had over [begin, end).
struct TableRow {
  int64_t table_id = 0;
  std::string schema, name;
  std::string schema_path, table_path;  // empty when the layout has none
  bool schema_path_relative = true, table_path_relative = true;
  int64_t begin = 0;
  std::optional<int64_t> end;
  bool visible_at(int64_t s) const { return begin <= s && (!end || s < *end); }
  std::string label() const { return schema + "." + name; }
};

struct Names {
  std::vector<TableRow> tables;                   // every row, ended ones included
  std::map<int64_t, std::string> schemas, views;  // id -> name (latest row)
  // The latest name of a table id (`main.t`), or nullopt when expiry purged its rows.
  std::optional<std::string> table_label(int64_t id) const;
  // The row of a table id visible at snapshot s.
  const TableRow* table_at(int64_t id, int64_t s) const;
  // The id of the table created as `schema.name` at snapshot s (its row begins there).
  std::optional<int64_t> created_id(const std::string& schema, const std::string& name, int64_t s) const;

  // Builds the lookups above once `tables` is complete.
  void index();

 private:
  std::map<int64_t, std::vector<std::size_t>> by_id_;  // positions in `tables`
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> created_;
};

class Lake {
 public:
  // Probes the catalog and checks its version; throws sdk::BackendError for a database that
  // is no DuckLake catalog or one newer than this reader.
  explicit Lake(Catalog& catalog);

  Catalog& catalog() { return catalog_; }
  const std::string& display() const { return catalog_.display(); }
  const std::string& version() const { return version_; }
  bool has_table(const std::string& name) const { return tables_.count(name) > 0; }
  const std::set<std::string>& table_names() const { return tables_; }
  // Columns of a table, probed once.
  const std::vector<std::string>& columns(const std::string& table);
  bool has_column(const std::string& table, const std::string& column);

  Snapshot latest();
  std::optional<Snapshot> snapshot(int64_t id);
  // Snapshots with id <= upto (all when nullopt), newest first, at most `limit` (all when <= 0).
  std::vector<SnapshotChanges> snapshots(std::optional<int64_t> upto, int64_t limit);
  // Snapshots with lo < id <= hi, oldest first.
  std::vector<SnapshotChanges> range(int64_t lo, int64_t hi);
  Names names();
  // The catalog's data_path (ducklake_metadata), empty when unset.
  std::string data_path();

 private:
  Snapshot snapshot_of(const Row& row) const;
  std::vector<SnapshotChanges> changes_query(const std::string& where, const std::vector<int64_t>& params, int64_t limit,
                                             bool newest_first);

  Catalog& catalog_;
  std::set<std::string> tables_;
  std::map<std::string, std::vector<std::string>> columns_;
  std::string version_;
};

// Integer columns arrive as text; a NULL or unreadable one is nullopt.
std::optional<int64_t> as_int(const Value& v);

}  // namespace tether::ducklake
