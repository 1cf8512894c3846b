// changes_made (docs/backends.md#ducklake): the tokens of every spec version, quoted names with
// commas, dots, colons and escaped quotes, unknown tokens kept.
#include <doctest/doctest.h>

#include "changes.hpp"

using namespace tether::ducklake;

TEST_CASE("tokens split on commas outside double quotes; the kind runs to the first colon") {
  auto c = parse_changes("created_table:\"main\".\"t\",inserted_into_table:1");
  REQUIRE(c.size() == 2);
  CHECK(c[0].kind == "created_table");
  CHECK(c[0].value == "\"main\".\"t\"");
  CHECK(c[1].kind == "inserted_into_table");
  CHECK(c[1].value == "1");

  auto odd = parse_changes(R"(created_table:"main"."my ""odd"", table: x.y",dropped_table:3)");
  REQUIRE(odd.size() == 2);
  CHECK(odd[0].value == R"("main"."my ""odd"", table: x.y")");
  CHECK(split_name(odd[0].value) == std::vector<std::string>{"main", "my \"odd\", table: x.y"});
  CHECK(plain_name(odd[0].value) == "main.my \"odd\", table: x.y");
  CHECK(odd[1].kind == "dropped_table");

  CHECK(parse_changes("").empty());
  CHECK(parse_changes(",,").empty());
  auto bare = parse_changes("something_new");
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].kind == "something_new");
  CHECK(bare[0].value.empty());
}

TEST_CASE("every token kind maps to the key ducklake_snapshots() shows, in the extension's order") {
  struct Case {
    const char* kind;
    const char* key;
  };
  const Case cases[] = {
      {"created_schema", "schemas_created"},      {"dropped_schema", "schemas_dropped"},
      {"created_table", "tables_created"},        {"created_view", "views_created"},
      {"created_scalar_macro", "scalar_macros_created"}, {"created_table_macro", "table_macros_created"},
      {"dropped_table", "tables_dropped"},        {"altered_table", "tables_altered"},
      {"inserted_into_table", "tables_inserted_into"}, {"deleted_from_table", "tables_deleted_from"},
      {"dropped_view", "views_dropped"},          {"dropped_scalar_macro", "scalar_macros_dropped"},
      {"dropped_table_macro", "table_macros_dropped"}, {"altered_view", "views_altered"},
      {"inlined_insert", "inlined_insert"},       {"inlined_delete", "inlined_delete"},
      {"inline_flush", "flushed_inlined"},        {"merge_adjacent", "merge_adjacent"},
      {"rewrite_delete", "rewrite_delete"},
  };
  int last = -1;
  for (const auto& c : cases) {
    CAPTURE(c.kind);
    KeyInfo k = key_of(c.kind);
    CHECK(k.key == c.key);
    CHECK(k.order >= last);
    last = k.order;
  }
  CHECK(key_of("flushed_inlined").key == "flushed_inlined");  // the older writers' name
  CHECK(key_of("compacted_table").key.empty());               // parsed, not shown
  KeyInfo unknown = key_of("vacuumed_table");
  CHECK(unknown.key == "vacuumed_table");
  CHECK(unknown.order > key_of("rewrite_delete").order);
  CHECK(key_of("dropped_table").value == ValueKind::TableId);
  CHECK(key_of("dropped_schema").value == ValueKind::SchemaId);
  CHECK(key_of("created_table").value == ValueKind::Name);
}

TEST_CASE("words as the reference words them") {
  CHECK(words_of("tables_created") == "created");
  CHECK(words_of("tables_altered") == "schema altered");
  CHECK(words_of("tables_inserted_into") == "rows inserted");
  CHECK(words_of("inlined_insert") == "rows inserted");
  CHECK(words_of("tables_deleted_from") == "rows deleted");
  CHECK(words_of("inlined_delete") == "rows deleted");
  CHECK(words_of("tables_dropped") == "dropped");
  CHECK(words_of("schemas_created") == "schema created");
  CHECK(words_of("schemas_dropped") == "schema dropped");
  CHECK(words_of("views_created") == "views created");
  CHECK(words_of("flushed_inlined") == "flushed inlined");
  CHECK(words_of("merge_adjacent") == "merge adjacent");
}

TEST_CASE("kinds that change rows, and compactions") {
  CHECK(is_insert_kind("inserted_into_table"));
  CHECK(is_insert_kind("inlined_insert"));
  CHECK(is_delete_kind("deleted_from_table"));
  CHECK(is_delete_kind("inlined_delete"));
  CHECK_FALSE(is_insert_kind("inline_flush"));
  CHECK(is_compaction_kind("merge_adjacent"));
  CHECK(is_compaction_kind("rewrite_delete"));
  CHECK(is_compaction_kind("compacted_table"));
  CHECK_FALSE(is_compaction_kind("inline_flush"));
}
