// core/src/registry/tables.cpp: the nine tables and two views of schema version 3
// (docs/registry.md#the-tables), and the Bundle/Table containers every writer reads.
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

#include "tether/registry/registry.hpp"

namespace tether::registry {

const char* type_name(Type t) {
  switch (t) {
    case Type::Text: return "text";
    case Type::Int: return "int";
    case Type::Bool: return "bool";
    case Type::Json: return "json";
    case Type::Timestamp: return "timestamp";
  }
  return "text";
}

std::size_t TableDef::column_index(std::string_view col) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == col) return i;
  throw std::out_of_range("table " + name + " has no column " + std::string(col));
}

std::string ViewDef::sql(const std::string& prefix) const {
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body.compare(i, 3, "{q}") == 0) {
      out += prefix;
      i += 2;
    } else {
      out += body[i];
    }
  }
  return out;
}

const std::vector<TableDef>& tables() {
  using T = Type;
  static const std::vector<TableDef> defs = {
      {"tether_meta", "schema_version, exported_at, head, vcs, tether_version",
       {{"key", T::Text, ""}, {"value", T::Text, ""}},
       {"key"}, Group::Replaced},
      {"commits", "one row per exported VCS commit",
       {{"commit_id", T::Text, "full VCS commit hash"},
        {"change_id", T::Text, "jj change id; null in git repositories"},
        {"author_name", T::Text, ""},
        {"author_email", T::Text, ""},
        {"authored_at", T::Timestamp, "ISO-8601 author time"},
        {"committed_at", T::Timestamp, "ISO-8601 committer time"},
        {"message", T::Text, "full commit message"},
        {"manifest_hash", T::Text, "hash of the object set at this commit"}},
       {"commit_id"}, Group::CommitKeyed},
      {"commit_parents", "parent edges of the commit graph",
       {{"commit_id", T::Text, ""}, {"parent_id", T::Text, ""}, {"position", T::Int, "0 = first parent"}},
       {"commit_id", "parent_id"}, Group::CommitKeyed},
      {"refs", "named pointers into history at export time",
       {{"name", T::Text, "bookmark / branch / tag name, or @ / HEAD"},
        {"kind", T::Text, "bookmark, branch, tag or head"},
        {"commit_id", T::Text, ""}},
       {"name", "kind"}, Group::Replaced},
      {"objects", "every object manifest at every exported commit",
       {{"commit_id", T::Text, ""},
        {"key", T::Text, "object key"},
        {"kind", T::Text, "backend kind"},
        {"uri", T::Text, "the locator's uri when present; the join key to a catalog"},
        {"locator_json", T::Json, "full locator"},
        {"identity_json", T::Json, "backend identity (what names the system)"},
        {"identity_hash", T::Text, "blake2b of the canonical identity"},
        {"policy_file", T::Text, "immutable or versioned"},
        {"policy_pin", T::Text, "native or record"},
        {"state_json", T::Json, "recorded state; null before the first commit"},
        {"state_hash", T::Text, "blake2b of the canonical state"},
        {"pin_id", T::Text, ""},
        {"pin_ref", T::Text, "native ref name, tether.<pin_id>"},
        {"recoverable", T::Bool, "false for Observed-tier records"},
        {"captured_at", T::Timestamp, "when the state was recorded"}},
       {"commit_id", "key"}, Group::CommitKeyed},
      {"object_states", "distinct (system, state) pairs: the versions a registry keys on",
       {{"kind", T::Text, ""},
        {"identity_hash", T::Text, ""},
        {"state_hash", T::Text, ""},
        {"identity_json", T::Json, ""},
        {"state_json", T::Json, ""},
        {"pin_id", T::Text, "the same for every commit that records this state"},
        {"first_commit_id", T::Text, "earliest exported commit recording it"},
        {"first_committed_at", T::Timestamp, ""}},
       {"kind", "identity_hash", "state_hash"}, Group::Upserted},
      {"listings", "content-addressed per-file listings (--listings)",
       {{"listing_name", T::Text, "file name under .tether/listings/"},
        {"kind", T::Text, ""},
        {"identity_hash", T::Text, ""},
        {"state_hash", T::Text, ""},
        {"entries", T::Int, "row count in listing_entries"}},
       {"listing_name"}, Group::Upserted},
      {"listing_entries", "one row per file in a listing (--listings)",
       {{"listing_name", T::Text, ""},
        {"path", T::Text, "path relative to the object"},
        {"token", T::Text, "etag / mtime token"},
        {"size", T::Int, "bytes"}},
       {"listing_name", "path"}, Group::Upserted},
      {"workspace", "this checkout's working refs (--workspace)",
       {{"workspace_id", T::Text, ""},
        {"key", T::Text, ""},
        {"working_ref", T::Text, "the branch this checkout writes to"},
        {"base_state_json", T::Json, "committed state this working ref corresponds to"},
        {"fork_point_json", T::Json, "state the working branch was forked from"},
        {"last_snapshot_json", T::Json, "last fingerprint taken here"}},
       {"workspace_id", "key"}, Group::Replaced},
  };
  return defs;
}

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> defs = {
      {"objects_head",
       "SELECT o.* FROM {q}objects o JOIN {q}refs r ON r.commit_id = o.commit_id WHERE r.kind = 'head'"},
      {"object_pins",
       "SELECT o.kind, o.identity_hash, o.pin_id, o.pin_ref, COUNT(DISTINCT o.commit_id) AS commits "
       "FROM {q}objects o WHERE o.pin_id IS NOT NULL GROUP BY o.kind, o.identity_hash, o.pin_id, o.pin_ref"},
  };
  return defs;
}

const TableDef& table_def(std::string_view name) {
  for (const auto& t : tables())
    if (t.name == name) return t;
  throw std::out_of_range("no registry table " + std::string(name));
}

void Table::add_row(std::span<const Cell> cells) {
  if (cells.size() != def_->columns.size())
    throw std::invalid_argument("table " + def_->name + ": " + std::to_string(cells.size()) + " cells for " +
                                std::to_string(def_->columns.size()) + " columns");
  cells_.insert(cells_.end(), cells.begin(), cells.end());
}

Bundle::Bundle() {
  for (const auto& d : tables()) tables_.emplace_back(d);
}

Table& Bundle::operator[](std::string_view name) {
  for (auto& t : tables_)
    if (t.name() == name) return t;
  throw std::out_of_range("no registry table " + std::string(name));
}
const Table& Bundle::operator[](std::string_view name) const {
  for (const auto& t : tables_)
    if (t.name() == name) return t;
  throw std::out_of_range("no registry table " + std::string(name));
}

std::vector<std::pair<std::string, std::size_t>> Bundle::row_counts() const {
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& t : tables_) out.emplace_back(t.name(), t.rows());
  return out;
}

namespace {
constexpr std::size_t kBlock = 64 * 1024;
}  // namespace

void Bundle::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.data == nullptr) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].data != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

std::string_view Bundle::intern(std::string_view text) {
  if ((interned_ + 1) * 2 > slots_.size()) grow();
  const std::size_t hash = std::hash<std::string_view>{}(text);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash & mask;
  for (; slots_[i].data != nullptr; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.hash == hash && std::string_view(s.data, s.size) == text) return {s.data, s.size};
  }
  static const char kEmpty = '\0';
  const char* kept = &kEmpty;
  if (text.size() > kBlock / 4) {
    big_.push_back(std::make_unique_for_overwrite<char[]>(text.size()));
    kept = big_.back().get();
    std::memcpy(big_.back().get(), text.data(), text.size());
  } else if (!text.empty()) {
    if (blocks_.empty() || text.size() > left_) {
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlock));
      left_ = kBlock;
    }
    char* at = blocks_.back().get() + (kBlock - left_);
    std::memcpy(at, text.data(), text.size());
    left_ -= text.size();
    kept = at;
  }
  slots_[i] = Slot{hash, kept, text.size()};
  ++interned_;
  return {kept, text.size()};
}

}  // namespace tether::registry
