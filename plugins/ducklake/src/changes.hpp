// changes: the `changes_made` column of ducklake_snapshot_changes (docs/backends.md#ducklake),
// the one-line summary each commit writes, parsed into tokens and translated to the keys the
// extension's ducklake_snapshots() shows. Tokens of every spec version are known; an unknown
// token is kept under its own name rather than failing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tether::ducklake {

struct Change {
  std::string kind;   // the token before the first ':' (`created_table`)
  std::string value;  // the rest, still quoted (`"main"."t"`) or an id (`3`)
};

// Splits on commas outside double quotes; `""` inside quotes is an escaped quote. Empty
// pieces are skipped; a token without ':' has an empty value.
std::vector<Change> parse_changes(std::string_view changes_made);

// What a token's value names.
enum class ValueKind { Name, TableId, SchemaId, ViewId, OtherId };

struct KeyInfo {
  std::string key;  // ducklake_snapshots() key (`tables_created`); empty: not shown (compacted_table)
  ValueKind value;
  int order;        // position in the extension's map; unknown keys come after every known one
};
// The key of a token kind. Unknown kinds keep their own name as the key.
KeyInfo key_of(std::string_view kind);

// True for a token kind that changes rows of the table its value names.
bool is_insert_kind(std::string_view kind);
bool is_delete_kind(std::string_view kind);
// A compaction token (the table's rows are rewritten, not changed).
bool is_compaction_kind(std::string_view kind);

// Words for a key in history messages and diff details (`tables_created` -> `created`, any
// other key with `_` as spaces).
std::string words_of(std::string_view key);

// The parts of a possibly quoted, dotted SQL name: `"main"."my ""odd"" t"` -> {main, my "odd" t}.
std::vector<std::string> split_name(std::string_view quoted);
// The parts joined with '.', unquoted (`main.t`), the form tether labels tables with.
std::string plain_name(std::string_view quoted);

}  // namespace tether::ducklake
