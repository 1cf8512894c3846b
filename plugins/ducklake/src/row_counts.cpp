#include "row_counts.hpp"

#include <algorithm>
#include <limits>

namespace tether::ducklake {
namespace {

constexpr int64_t kUnknown = std::numeric_limits<int64_t>::max();

// Change tokens per snapshot of the range, for "was s a compaction of T / did s drop T".
class Tokens {
 public:
  explicit Tokens(const std::vector<SnapshotChanges>& range) {
    for (const auto& s : range) by_snapshot_[s.snapshot.id] = &s.changes;
  }
  bool has(int64_t s, int64_t table, bool (*kind)(std::string_view)) const {
    auto it = by_snapshot_.find(s);
    if (it == by_snapshot_.end()) return false;
    for (const auto& c : *it->second)
      if (kind(c.kind) && as_int(c.value) == table) return true;
    return false;
  }
  // s rewrote T's files without changing its rows.
  bool compaction(int64_t s, int64_t table) const {
    return has(s, table, is_compaction_kind) && !has(s, table, is_insert_kind) && !has(s, table, is_delete_kind);
  }
  bool dropped(int64_t s, int64_t table) const {
    return has(s, table, [](std::string_view k) { return k == "dropped_table"; });
  }

 private:
  std::map<int64_t, const std::vector<Change>*> by_snapshot_;
};

// The highest snapshot whose rows a file holds: partial_max, the legacy partial_file_info
// (`partial_max:N`, or `s1:c1|s2:c2` listing snapshots), else its begin; kUnknown when the
// legacy text says nothing readable.
int64_t partial_max(const Value& pm, const Value& legacy, int64_t begin) {
  if (auto v = as_int(pm)) return *v;
  if (!legacy || legacy->empty()) return begin;
  const std::string& s = *legacy;
  if (s.rfind("partial_max:", 0) == 0) return as_int(s.substr(12)).value_or(kUnknown);
  int64_t max = begin;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t bar = s.find('|', start);
    std::string item = s.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    auto snap = as_int(item.substr(0, item.find(':')));
    if (!snap) return kUnknown;
    max = std::max(max, *snap);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return max;
}

// The first of `names` that `table` has, or empty.
std::string column_of(Lake& lake, const std::string& table, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (lake.has_column(table, n)) return n;
  return {};
}

int64_t count(Lake& lake, const std::string& sql, const std::vector<int64_t>& params) {
  Rows r = lake.catalog().query(sql, params);
  return r.empty() ? 0 : as_int(r[0][0]).value_or(0);
}

// ducklake_inlined_data_<T>_<n>: the table id, or nullopt for another name.
std::optional<int64_t> inlined_data_table(const std::string& name) {
  static const std::string prefix = "ducklake_inlined_data_";
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  std::size_t us = rest.find('_');
  if (us == std::string::npos || us == 0 || us + 1 == rest.size()) return std::nullopt;
  if (rest.find_first_not_of("0123456789_") != std::string::npos || rest.find('_', us + 1) != std::string::npos)
    return std::nullopt;
  return as_int(rest.substr(0, us));
}

struct DataFile {
  int64_t id = 0, table = 0, begin = 0, pm = 0, records = 0;
  std::optional<int64_t> end;
};
struct DeleteFile {
  int64_t id = 0, table = 0, data_file = 0, begin = 0, pm = 0, count = 0;
  std::optional<int64_t> end;
};

// Data files of `tables` that may hold rows inserted in (lo, hi], and those ended in it; by table.
std::map<int64_t, std::vector<DataFile>> read_data_files(Lake& lake, int64_t lo, int64_t hi,
                                                         const std::set<int64_t>& tables) {
  std::map<int64_t, std::vector<DataFile>> out;
  if (!lake.has_table("ducklake_data_file")) return out;
  bool pm = lake.has_column("ducklake_data_file", "partial_max");
  bool legacy = lake.has_column("ducklake_data_file", "partial_file_info");
  std::string sql = "SELECT data_file_id, table_id, begin_snapshot, end_snapshot, record_count";
  sql += pm ? ", partial_max" : ", NULL";
  sql += legacy ? ", partial_file_info" : ", NULL";
  sql += " FROM ducklake_data_file WHERE (begin_snapshot <= ? AND (begin_snapshot > ?";
  std::vector<int64_t> params{hi, lo};
  if (pm) sql += " OR partial_max > ?", params.push_back(lo);
  if (legacy) sql += " OR partial_file_info IS NOT NULL";
  sql += ")) OR (end_snapshot > ? AND end_snapshot <= ?)";
  params.push_back(lo), params.push_back(hi);
  for (const Row& r : lake.catalog().query(sql, params)) {
    auto id = as_int(r[0]), table = as_int(r[1]), begin = as_int(r[2]);
    if (!id || !table || !begin || !tables.count(*table)) continue;
    DataFile f;
    f.id = *id, f.table = *table, f.begin = *begin, f.end = as_int(r[3]);
    f.records = as_int(r[4]).value_or(0);
    f.pm = partial_max(r[5], r[6], f.begin);
    out[f.table].push_back(f);
  }
  return out;
}

// Delete files of `tables` that may carry deletes in (lo, hi], the older rows they replaced,
// and every delete row of a data file ended in the range; by table.
std::map<int64_t, std::vector<DeleteFile>> read_delete_files(Lake& lake, int64_t lo, int64_t hi,
                                                             const std::set<int64_t>& tables) {
  std::map<int64_t, std::vector<DeleteFile>> out;
  if (!lake.has_table("ducklake_delete_file")) return out;
  bool pm = lake.has_column("ducklake_delete_file", "partial_max");
  std::string sql = "SELECT delete_file_id, table_id, data_file_id, begin_snapshot, end_snapshot, delete_count";
  sql += pm ? ", partial_max" : ", NULL";
  sql += " FROM ducklake_delete_file WHERE begin_snapshot <= ? AND (begin_snapshot > ?";
  std::vector<int64_t> params{hi, lo};
  if (pm) sql += " OR partial_max > ?", params.push_back(lo);
  sql += " OR (end_snapshot > ? AND end_snapshot <= ?)";
  params.push_back(lo), params.push_back(hi);
  if (lake.has_table("ducklake_data_file")) {
    sql += " OR data_file_id IN (SELECT data_file_id FROM ducklake_data_file WHERE end_snapshot > ? AND end_snapshot <= ?)";
    params.push_back(lo), params.push_back(hi);
  }
  sql += ")";
  for (const Row& r : lake.catalog().query(sql, params)) {
    auto id = as_int(r[0]), table = as_int(r[1]), file = as_int(r[2]), begin = as_int(r[3]);
    if (!id || !table || !file || !begin || !tables.count(*table)) continue;
    DeleteFile d;
    d.id = *id, d.table = *table, d.data_file = *file, d.begin = *begin, d.end = as_int(r[4]);
    d.count = as_int(r[5]).value_or(0);
    d.pm = partial_max(r[6], std::nullopt, d.begin);
    out[d.table].push_back(d);
  }
  return out;
}

// The inlined-data tables of each of `tables`: found by name, plus those
// ducklake_inlined_data_tables lists and that exist (a listed one may be missing, #924).
std::map<int64_t, std::vector<std::string>> inlined_tables(Lake& lake, const std::set<int64_t>& tables) {
  std::map<int64_t, std::vector<std::string>> out;
  for (const auto& name : lake.table_names())
    if (auto t = inlined_data_table(name); t && tables.count(*t)) out[*t].push_back(name);
  if (lake.has_table("ducklake_inlined_data_tables"))
    for (const Row& r : lake.catalog().query("SELECT table_id, table_name FROM ducklake_inlined_data_tables", {})) {
      auto t = as_int(r[0]);
      if (!t || !r[1] || !tables.count(*t) || !lake.has_table(*r[1])) continue;
      auto& v = out[*t];
      if (std::find(v.begin(), v.end(), *r[1]) == v.end()) v.push_back(*r[1]);
    }
  return out;
}

// Inlined rows (in the tables `names`) begun and ended in (lo, hi].
void count_inlined(Lake& lake, const std::vector<std::string>& names, int64_t lo, int64_t hi, RowCounts& c) {
  for (const auto& name : names) {
    std::string b = column_of(lake, name, {"begin_snapshot", "_ducklake_begin_snapshot"});
    std::string e = column_of(lake, name, {"end_snapshot", "_ducklake_end_snapshot"});
    if (b.empty() || e.empty()) {
      c.ambiguous = true;
      continue;
    }
    std::string from = " FROM " + quote_ident(name) + " WHERE ";
    c.inserted += count(lake, "SELECT count(*)" + from + b + " > ? AND " + b + " <= ?", {lo, hi});
    c.deleted += count(lake, "SELECT count(*)" + from + e + " > ? AND " + e + " <= ?", {lo, hi});
  }
}

// ducklake_inlined_delete_<T>: deletions of single rows of T's Parquet files.
struct InlinedDeletes {
  std::string table, begin, file;  // probed names; empty `table` when there is none
  bool usable() const { return !table.empty() && !begin.empty() && !file.empty(); }
};

InlinedDeletes inlined_deletes(Lake& lake, int64_t t) {
  InlinedDeletes d;
  std::string name = "ducklake_inlined_delete_" + std::to_string(t);
  if (!lake.has_table(name)) return d;
  d.table = name;
  d.begin = column_of(lake, name, {"begin_snapshot", "_ducklake_begin_snapshot"});
  d.file = column_of(lake, name, {"file_id", "_ducklake_file_id"});
  return d;
}

}  // namespace

std::map<int64_t, RowCounts> count_rows(Lake& lake, const std::vector<SnapshotChanges>& range, int64_t lo, int64_t hi,
                                        const std::set<int64_t>& tables) {
  std::map<int64_t, RowCounts> out;
  if (tables.empty()) return out;
  Tokens tokens(range);
  auto files = read_data_files(lake, lo, hi, tables);
  auto deletes = read_delete_files(lake, lo, hi, tables);
  auto inlined = inlined_tables(lake, tables);

  for (int64_t t : tables) {
    RowCounts& c = out[t];
    count_inlined(lake, inlined[t], lo, hi, c);
    InlinedDeletes idel = inlined_deletes(lake, t);
    if (!idel.table.empty() && !idel.usable()) c.ambiguous = true;
    if (idel.usable())
      c.deleted += count(lake, "SELECT count(*) FROM " + quote_ident(idel.table) + " WHERE " + idel.begin + " > ? AND " +
                                   idel.begin + " <= ?",
                         {lo, hi});

    std::map<int64_t, std::vector<const DeleteFile*>> by_file;
    for (const auto& d : deletes[t]) by_file[d.data_file].push_back(&d);

    for (const auto& f : files[t]) {
      // Inserted: a file wholly inside the range, unless a compaction wrote it.
      if (f.begin <= hi && (f.begin > lo || f.pm > lo)) {
        if (f.pm == kUnknown || f.begin <= lo || f.pm > hi) c.ambiguous = true;
        else if (!tokens.compaction(f.begin, t)) c.inserted += f.records;
        // A rewrite's output (no inserts) merged with later inserts: the split is in the file.
        else if (f.pm != f.begin) c.ambiguous = true;
      }
      // Deleted whole: the rows still live in f just before it ended.
      if (f.end && *f.end > lo && *f.end <= hi && !tokens.compaction(*f.end, t) && !tokens.dropped(*f.end, t)) {
        int64_t live = f.records;
        const DeleteFile* newest = nullptr;
        for (const DeleteFile* d : by_file[f.id])
          if (d->begin < *f.end && (!newest || d->begin > newest->begin)) newest = d;
        if (newest) live -= newest->count;
        if (idel.usable())
          live -= count(lake, "SELECT count(*) FROM " + quote_ident(idel.table) + " WHERE " + idel.file + " = ? AND " +
                                  idel.begin + " < ?",
                        {f.id, *f.end});
        c.deleted += std::max<int64_t>(live, 0);
      }
    }

    for (const auto& d : deletes[t]) {
      if (d.begin > lo && d.begin <= hi && d.pm <= hi) {
        int64_t before = 0;  // <= 0.3: the row it replaced ended where it began, counts cumulative
        for (const DeleteFile* o : by_file[d.data_file])
          if (o->id != d.id && o->end && *o->end == d.begin) before = std::max(before, o->count);
        c.deleted += std::max<int64_t>(d.count - before, 0);
      } else if ((d.begin <= lo && lo < d.pm) || (d.begin <= hi && hi < d.pm)) {
        c.ambiguous = true;
      }
    }
  }
  return out;
}

}  // namespace tether::ducklake
