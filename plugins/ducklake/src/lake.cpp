#include "lake.hpp"

#include <algorithm>
#include <charconv>

#include "tether/sdk/error.hpp"
#include "timestamp.hpp"

namespace tether::ducklake {

using sdk::BackendError;

std::optional<int64_t> as_int(const Value& v) {
  if (!v || v->empty()) return std::nullopt;
  int64_t out = 0;
  const char* b = v->data();
  const char* e = b + v->size();
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec != std::errc()) return std::nullopt;
  // SQLite may hand back a REAL column as `5.0`; accept an all-zero fraction.
  if (p != e && !(*p == '.' && std::all_of(p + 1, e, [](char c) { return c == '0'; }))) return std::nullopt;
  return out;
}

std::optional<SpecVersion> parse_spec_version(const std::string& text) {
  SpecVersion v;
  const char* b = text.data();
  const char* e = b + text.size();
  auto r = std::from_chars(b, e, v.major);
  if (r.ec != std::errc() || r.ptr == e || *r.ptr != '.') return std::nullopt;
  r = std::from_chars(r.ptr + 1, e, v.minor);
  if (r.ec != std::errc()) return std::nullopt;
  if (r.ptr == e) return v;
  std::string_view rest(r.ptr, static_cast<std::size_t>(e - r.ptr));
  if (rest.substr(0, 4) != "-dev") return std::nullopt;
  r = std::from_chars(r.ptr + 4, e, v.dev);
  if (r.ec != std::errc() || r.ptr != e || v.dev <= 0) return std::nullopt;
  return v;
}

void Names::index() {
  by_id_.clear();
  created_.clear();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    by_id_[tables[i].table_id].push_back(i);
    created_[{tables[i].schema, tables[i].name, tables[i].begin}] = tables[i].table_id;
  }
}

std::optional<std::string> Names::table_label(int64_t id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  const TableRow* best = nullptr;
  for (std::size_t i : it->second)
    if (!best || tables[i].begin >= best->begin) best = &tables[i];
  return best->label();
}

const TableRow* Names::table_at(int64_t id, int64_t s) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  for (std::size_t i : it->second)
    if (tables[i].visible_at(s)) return &tables[i];
  return nullptr;
}

std::optional<int64_t> Names::created_id(const std::string& schema, const std::string& name, int64_t s) const {
  auto it = created_.find({schema, name, s});
  if (it == created_.end()) return std::nullopt;
  return it->second;
}

Lake::Lake(Catalog& catalog) : catalog_(catalog) {
  for (auto& t : catalog_.tables()) tables_.insert(t);
  if (!has_table("ducklake_snapshot") || !has_table("ducklake_metadata"))
    throw BackendError(display() + " is not a DuckLake catalog (it has no ducklake_snapshot and ducklake_metadata tables)");
  std::string sql = "SELECT \"value\" FROM ducklake_metadata WHERE \"key\" = 'version'";
  if (has_column("ducklake_metadata", "scope")) sql += " AND \"scope\" IS NULL";
  Rows rows = catalog_.query(sql, {});
  if (rows.empty() || !rows[0][0])
    throw BackendError(display() + " has no version in ducklake_metadata, so it is no DuckLake catalog tether can read");
  version_ = *rows[0][0];
  auto v = parse_spec_version(version_);
  auto oldest = parse_spec_version(kOldestVersion), newest = parse_spec_version(kNewestVersion);
  if (!v || *v < *oldest)
    throw VersionError("DuckLake catalog " + display() + " has spec version '" + version_ +
                       "', which this tether does not know (it reads " + kOldestVersion + " to " + kNewestVersion + ")");
  if (*newest < *v)
    throw VersionError("DuckLake catalog " + display() + " is at spec version " + version_ +
                       ", newer than this tether reads (" + kOldestVersion + " to " + kNewestVersion +
                       "); upgrade tether to track it");
}

const std::vector<std::string>& Lake::columns(const std::string& table) {
  auto it = columns_.find(table);
  if (it == columns_.end()) it = columns_.emplace(table, catalog_.columns(table)).first;
  return it->second;
}

bool Lake::has_column(const std::string& table, const std::string& column) {
  const auto& cols = columns(table);
  return std::find(cols.begin(), cols.end(), column) != cols.end();
}

Snapshot Lake::snapshot_of(const Row& row) const {
  auto id = as_int(row[0]);
  if (!id) throw BackendError(display() + " has a snapshot row without a readable snapshot_id");
  auto us = row[1] ? parse_timestamp_us(*row[1]) : std::nullopt;
  if (!us)
    throw BackendError("snapshot " + std::to_string(*id) + " of " + display() + " has a time tether cannot read: '" +
                       row[1].value_or("NULL") + "'");
  return {*id, *us};
}

Snapshot Lake::latest() {
  Rows rows = catalog_.query("SELECT snapshot_id, snapshot_time FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1", {});
  if (rows.empty()) throw BackendError(display() + " has no snapshots; a DuckLake catalog always has at least one");
  return snapshot_of(rows[0]);
}

std::optional<Snapshot> Lake::snapshot(int64_t id) {
  Rows rows = catalog_.query("SELECT snapshot_id, snapshot_time FROM ducklake_snapshot WHERE snapshot_id = ?", {id});
  if (rows.empty()) return std::nullopt;
  return snapshot_of(rows[0]);
}

std::vector<SnapshotChanges> Lake::changes_query(const std::string& where, const std::vector<int64_t>& params,
                                                 int64_t limit, bool newest_first) {
  bool changes = has_table("ducklake_snapshot_changes");
  bool commit = changes && has_column("ducklake_snapshot_changes", "commit_message");
  std::string sql = "SELECT s.snapshot_id, s.snapshot_time";
  sql += changes ? ", c.snapshot_id, c.changes_made" : ", NULL, NULL";
  sql += commit ? ", c.author, c.commit_message" : ", NULL, NULL";
  sql += " FROM ducklake_snapshot s";
  if (changes) sql += " LEFT JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id";
  sql += where;
  sql += newest_first ? " ORDER BY s.snapshot_id DESC" : " ORDER BY s.snapshot_id";
  std::vector<int64_t> p = params;
  if (limit > 0) {
    sql += " LIMIT ?";
    p.push_back(limit);
  }
  std::vector<SnapshotChanges> out;
  for (const Row& row : catalog_.query(sql, p)) {
    SnapshotChanges s;
    s.snapshot = snapshot_of(row);
    s.has_changes_row = row[2].has_value();
    if (row[3]) s.changes = parse_changes(*row[3]);
    s.author = row[4];
    s.commit_message = row[5];
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<SnapshotChanges> Lake::snapshots(std::optional<int64_t> upto, int64_t limit) {
  if (upto) return changes_query(" WHERE s.snapshot_id <= ?", {*upto}, limit, true);
  return changes_query("", {}, limit, true);
}

std::vector<SnapshotChanges> Lake::range(int64_t lo, int64_t hi) {
  return changes_query(" WHERE s.snapshot_id > ? AND s.snapshot_id <= ?", {lo, hi}, 0, false);
}

Names Lake::names() {
  Names n;
  bool schema_path = has_column("ducklake_schema", "path") && has_column("ducklake_schema", "path_is_relative");
  bool table_path = has_column("ducklake_table", "path") && has_column("ducklake_table", "path_is_relative");
  std::string sql = "SELECT t.table_id, s.schema_name, t.table_name, t.begin_snapshot, t.end_snapshot";
  sql += schema_path ? ", s.path, s.path_is_relative" : ", NULL, NULL";
  sql += table_path ? ", t.path, t.path_is_relative" : ", NULL, NULL";
  sql += " FROM ducklake_table t JOIN ducklake_schema s ON s.schema_id = t.schema_id";
  for (const Row& r : catalog_.query(sql, {})) {
    auto id = as_int(r[0]);
    auto begin = as_int(r[3]);
    if (!id || !begin) continue;
    TableRow t;
    t.table_id = *id;
    t.schema = r[1].value_or("");
    t.name = r[2].value_or("");
    t.begin = *begin;
    t.end = as_int(r[4]);
    t.schema_path = r[5].value_or("");
    t.schema_path_relative = truthy(r[6], true);
    t.table_path = r[7].value_or("");
    t.table_path_relative = truthy(r[8], true);
    n.tables.push_back(std::move(t));
  }
  n.index();
  std::map<int64_t, int64_t> begins;
  for (const Row& r : catalog_.query("SELECT schema_id, schema_name, begin_snapshot FROM ducklake_schema", {})) {
    auto id = as_int(r[0]);
    int64_t begin = as_int(r[2]).value_or(0);
    if (!id || !r[1]) continue;
    if (auto it = begins.find(*id); it != begins.end() && it->second > begin) continue;
    begins[*id] = begin;
    n.schemas[*id] = *r[1];
  }
  if (has_table("ducklake_view")) {
    std::map<int64_t, int64_t> vbegins;
    for (const Row& r : catalog_.query("SELECT view_id, schema_id, view_name, begin_snapshot FROM ducklake_view", {})) {
      auto id = as_int(r[0]);
      auto schema = as_int(r[1]);
      int64_t begin = as_int(r[3]).value_or(0);
      if (!id || !r[2]) continue;
      if (auto it = vbegins.find(*id); it != vbegins.end() && it->second > begin) continue;
      vbegins[*id] = begin;
      auto s = schema ? n.schemas.find(*schema) : n.schemas.end();
      n.views[*id] = (s != n.schemas.end() ? s->second + "." : std::string()) + *r[2];
    }
  }
  return n;
}

std::string Lake::data_path() {
  std::string sql = "SELECT \"value\" FROM ducklake_metadata WHERE \"key\" = 'data_path'";
  if (has_column("ducklake_metadata", "scope")) sql += " AND \"scope\" IS NULL";
  Rows rows = catalog_.query(sql, {});
  return rows.empty() ? std::string() : rows[0][0].value_or("");
}

}  // namespace tether::ducklake
