#include "changes.hpp"

#include <array>

namespace tether::ducklake {
namespace {

struct Known {
  std::string_view kind;
  std::string_view key;
  ValueKind value;
};

// Token kind -> key, in no particular order; kKeyOrder gives the order of the keys.
constexpr std::array<Known, 20> kKnown{{
    {"created_schema", "schemas_created", ValueKind::Name},
    {"dropped_schema", "schemas_dropped", ValueKind::SchemaId},
    {"created_table", "tables_created", ValueKind::Name},
    {"created_view", "views_created", ValueKind::Name},
    {"created_scalar_macro", "scalar_macros_created", ValueKind::Name},
    {"created_table_macro", "table_macros_created", ValueKind::Name},
    {"dropped_table", "tables_dropped", ValueKind::TableId},
    {"dropped_view", "views_dropped", ValueKind::ViewId},
    {"dropped_scalar_macro", "scalar_macros_dropped", ValueKind::OtherId},
    {"dropped_table_macro", "table_macros_dropped", ValueKind::OtherId},
    {"altered_table", "tables_altered", ValueKind::TableId},
    {"altered_view", "views_altered", ValueKind::ViewId},
    {"inserted_into_table", "tables_inserted_into", ValueKind::TableId},
    {"deleted_from_table", "tables_deleted_from", ValueKind::TableId},
    {"inlined_insert", "inlined_insert", ValueKind::TableId},
    {"inlined_delete", "inlined_delete", ValueKind::TableId},
    {"inline_flush", "flushed_inlined", ValueKind::TableId},
    {"flushed_inlined", "flushed_inlined", ValueKind::TableId},
    {"merge_adjacent", "merge_adjacent", ValueKind::TableId},
    {"rewrite_delete", "rewrite_delete", ValueKind::TableId},
}};

// The order of the extension's change map (ducklake_snapshots()).
constexpr std::array<std::string_view, 19> kKeyOrder{
    "schemas_created",      "schemas_dropped",     "tables_created",        "views_created",
    "scalar_macros_created", "table_macros_created", "tables_dropped",        "tables_altered",
    "tables_inserted_into", "tables_deleted_from", "views_dropped",         "scalar_macros_dropped",
    "table_macros_dropped", "views_altered",       "inlined_insert",        "inlined_delete",
    "flushed_inlined",      "merge_adjacent",      "rewrite_delete"};

int order_of(std::string_view key) {
  for (std::size_t i = 0; i < kKeyOrder.size(); ++i)
    if (kKeyOrder[i] == key) return static_cast<int>(i);
  return static_cast<int>(kKeyOrder.size());
}

}  // namespace

std::vector<Change> parse_changes(std::string_view s) {
  std::vector<Change> out;
  std::string token;
  bool quoted = false;
  auto flush = [&] {
    std::size_t a = token.find_first_not_of(' ');
    if (a != std::string::npos) {
      std::size_t b = token.find_last_not_of(' ');
      std::string t = token.substr(a, b - a + 1);
      std::size_t colon = t.find(':');
      if (colon == std::string::npos) out.push_back({t, ""});
      else out.push_back({t.substr(0, colon), t.substr(colon + 1)});
    }
    token.clear();
  };
  for (char c : s) {
    if (c == '"') quoted = !quoted;  // `""` toggles twice: still inside
    if (c == ',' && !quoted) flush();
    else token += c;
  }
  flush();
  return out;
}

KeyInfo key_of(std::string_view kind) {
  if (kind == "compacted_table") return {"", ValueKind::TableId, -1};
  for (const auto& k : kKnown)
    if (k.kind == kind) return {std::string(k.key), k.value, order_of(k.key)};
  return {std::string(kind), ValueKind::OtherId, order_of(kind)};
}

bool is_insert_kind(std::string_view kind) { return kind == "inserted_into_table" || kind == "inlined_insert"; }
bool is_delete_kind(std::string_view kind) { return kind == "deleted_from_table" || kind == "inlined_delete"; }
bool is_compaction_kind(std::string_view kind) {
  return kind == "rewrite_delete" || kind == "merge_adjacent" || kind == "compacted_table";
}

std::string words_of(std::string_view key) {
  if (key == "tables_created") return "created";
  if (key == "tables_altered") return "schema altered";
  if (key == "tables_inserted_into" || key == "inlined_insert") return "rows inserted";
  if (key == "tables_deleted_from" || key == "inlined_delete") return "rows deleted";
  if (key == "tables_dropped") return "dropped";
  if (key == "schemas_created") return "schema created";
  if (key == "schemas_dropped") return "schema dropped";
  std::string w(key);
  for (char& c : w)
    if (c == '_') c = ' ';
  return w;
}

std::vector<std::string> split_name(std::string_view s) {
  std::vector<std::string> parts;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '.') {
      parts.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(std::move(cur));
  return parts;
}

std::string plain_name(std::string_view quoted) {
  std::string out;
  for (const auto& p : split_name(quoted)) out += (out.empty() ? "" : ".") + p;
  return out;
}

}  // namespace tether::ducklake
