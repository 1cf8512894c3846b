#include "history.hpp"

#include <map>
#include <set>

#include "timestamp.hpp"

namespace tether::ducklake {

std::string value_label(const Change& c, const Names& names) {
  KeyInfo info = key_of(c.kind);
  auto id = as_int(c.value);
  switch (info.value) {
    case ValueKind::Name:
      return plain_name(c.value);
    case ValueKind::TableId:
      if (id)
        if (auto label = names.table_label(*id)) return *label;
      break;
    case ValueKind::SchemaId:
      if (id)
        if (auto it = names.schemas.find(*id); it != names.schemas.end()) return it->second;
      break;
    case ValueKind::ViewId:
      if (id)
        if (auto it = names.views.find(*id); it != names.views.end()) return it->second;
      break;
    case ValueKind::OtherId:
      break;
  }
  return c.value;
}

std::string changes_message(const std::vector<Change>& changes, const Names& names) {
  // (order, first appearance) -> key, so unknown keys keep the order they came in.
  std::map<std::pair<int, std::size_t>, std::string> keys;
  std::map<std::string, std::set<std::string>> labels;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    KeyInfo info = key_of(changes[i].kind);
    if (info.key.empty()) continue;
    if (!labels.count(info.key)) keys[{info.order, i}] = info.key;
    labels[info.key].insert(value_label(changes[i], names));
  }
  std::string msg;
  for (const auto& [order, key] : keys) {
    std::string part = words_of(key) + ":";
    bool first = true;
    for (const auto& l : labels[key]) {
      part += (first ? " " : ", ") + l;
      first = false;
    }
    msg += (msg.empty() ? "" : "; ") + part;
  }
  return msg;
}

std::vector<sdk::HistoryEntry> history(Lake& lake, std::optional<int64_t> upto, int64_t limit) {
  std::vector<SnapshotChanges> snaps = lake.snapshots(upto, limit);
  Names names = lake.names();
  std::vector<sdk::HistoryEntry> out;
  for (const auto& s : snaps) {
    sdk::HistoryEntry e;
    e.id = std::to_string(s.snapshot.id);
    e.when = iso_utc_seconds(s.snapshot.time_us);
    e.message = changes_message(s.changes, names);
    if (s.commit_message && !s.commit_message->empty())
      e.message = *s.commit_message + (e.message.empty() ? "" : " (" + e.message + ")");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace tether::ducklake
