#include "diff.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "history.hpp"
#include "row_counts.hpp"

namespace tether::ducklake {

namespace {

// One table's changes over the range, keyed by its id when known.
struct TableChanges {
  std::optional<int64_t> id;
  std::string label;  // for an id: filled in later from the names
  std::set<std::string> keys;
};

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// Sorted, deduplicated words of `keys`.
std::vector<std::string> words(const std::set<std::string>& keys) {
  std::set<std::string> w;
  for (const auto& k : keys) w.insert(words_of(k));
  return {w.begin(), w.end()};
}

bool row_key(const std::string& key) {
  return key == "tables_inserted_into" || key == "inlined_insert" || key == "tables_deleted_from" ||
         key == "inlined_delete";
}

}  // namespace

sdk::ObjectDiff diff(Lake& lake, const Snapshot& a, const Snapshot& b) {
  sdk::ObjectDiff d;
  d.unit = "tables";
  std::vector<std::string> notes;
  if (a.id == b.id) {
    if (a.time_us != b.time_us) d.note = "catalog was recreated between the two states";
    return d;
  }
  int64_t lo = std::min(a.id, b.id), hi = std::max(a.id, b.id);
  if (b.id < a.id) notes.push_back("b is older than a: the entries describe the changes from b to a");
  for (const Snapshot* s : {&a, &b})
    if (auto now = lake.snapshot(s->id); now && now->time_us != s->time_us)
      notes.push_back("snapshot " + std::to_string(s->id) + " has a different commit time than recorded (catalog recreated?)");

  std::vector<SnapshotChanges> range = lake.range(lo, hi);
  if (static_cast<int64_t>(range.size()) < hi - lo) {
    int64_t gone = hi - lo - static_cast<int64_t>(range.size());
    notes.push_back(std::to_string(gone) + (gone == 1 ? " snapshot" : " snapshots") +
                    " in between expired; their changes are not shown");
  }
  Names names = lake.names();

  std::map<std::string, TableChanges> per_table;  // "#<id>" or "@<label>"
  std::map<std::string, std::set<std::string>> other;
  for (const auto& s : range)
    for (const auto& c : s.changes) {
      KeyInfo info = key_of(c.kind);
      if (info.key.empty()) continue;
      std::optional<int64_t> id;
      std::string label;
      if (info.key == "tables_created") {
        auto parts = split_name(c.value);
        if (parts.size() == 2) id = names.created_id(parts[0], parts[1], s.snapshot.id);
        label = plain_name(c.value);
      } else if (info.value == ValueKind::TableId) {
        id = as_int(c.value);
        label = c.value;
      } else {
        other[info.key].insert(value_label(c, names));
        continue;
      }
      TableChanges& tc = per_table[id ? "#" + std::to_string(*id) : "@" + label];
      tc.id = id;
      tc.label = label;
      tc.keys.insert(info.key);
    }

  // Labels: the name at hi, else the latest name; the raw id once expiry purged the rows.
  std::set<int64_t> counted;
  for (auto& [k, tc] : per_table) {
    if (!tc.id) continue;
    if (const TableRow* r = names.table_at(*tc.id, hi)) tc.label = r->label();
    else if (auto l = names.table_label(*tc.id)) tc.label = *l;
    if (!tc.keys.count("tables_dropped") && std::any_of(tc.keys.begin(), tc.keys.end(), row_key)) counted.insert(*tc.id);
  }
  std::map<int64_t, RowCounts> counts = count_rows(lake, range, lo, hi, counted);

  std::vector<const TableChanges*> order;
  for (const auto& [k, tc] : per_table) order.push_back(&tc);
  std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) { return x->label < y->label; });
  for (const TableChanges* tc : order) {
    if (tc->keys.count("tables_dropped")) {
      d.add(tc->label, "removed", "dropped");
      continue;
    }
    const TableRow* before = tc->id ? names.table_at(*tc->id, lo) : nullptr;
    std::string path = tc->label, change = "modified";
    std::set<std::string> keys = tc->keys;
    if (keys.count("tables_created")) {
      if (!before) {
        change = "added";
      } else {
        keys.erase("tables_created");  // a rename: the same table id under a new name
        if (before->label() != tc->label) change = "renamed", path = before->label() + " -> " + tc->label;
      }
    }
    std::string detail;
    auto c = tc->id ? counts.find(*tc->id) : counts.end();
    if (c != counts.end() && !c->second.ambiguous && (c->second.inserted || c->second.deleted)) {
      std::vector<std::string> parts;
      if (c->second.inserted) parts.push_back("+" + std::to_string(c->second.inserted) + " rows");
      if (c->second.deleted) parts.push_back("-" + std::to_string(c->second.deleted) + " rows");
      std::set<std::string> rest;
      for (const auto& k : keys)
        if (!row_key(k)) rest.insert(k);
      for (const auto& w : words(rest)) parts.push_back(w);
      detail = join(parts);
    } else {
      detail = join(words(keys));
    }
    d.add(path, change, detail);
  }
  for (const auto& [key, values] : other) d.add(key, "modified", join(std::vector<std::string>(values.begin(), values.end())));
  for (const auto& n : notes) d.note += (d.note.empty() ? "" : "; ") + n;
  return d;
}

}  // namespace tether::ducklake
