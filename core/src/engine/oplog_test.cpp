// Tests of OpLog::read (support.cpp): malformed lines (deep JSON, torn, wrongly typed fields of
// each record kind) are skipped and counted by line, the rest of the log still reads, and the
// typed accessors the readers of OpEntry use never throw on odd types.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/internal.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::engine;
using tether::testing::TempDir;

namespace {
void append_raw(const std::filesystem::path& p, const std::string& line) {
  std::ofstream(p, std::ios::app | std::ios::binary) << line << '\n';
}
std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
}  // namespace

TEST_CASE("OpLog::read skips and counts malformed lines and keeps the others") {
  TempDir tmp;
  const auto path = tmp.path() / "ops.jsonl";
  OpLog log(tether::model::CheckoutPath{tmp.path(), "ops.jsonl"});
  const std::string a = log.begin("commit", Json{{"objects", Json::object()}});
  log.progress(a, Json{{"action", "pin"}, {"key", "m"}, {"ref", "tether.x"}});
  log.end(a, Json{{"vcs_commit", "abc"}});                                        // lines 1-3
  append_raw(path, nested(200000));                                               // 4: too deep
  append_raw(path, R"({"id": "e1", "command": "commit", "status": []})");        // 5
  append_raw(path, R"({"id": "e2", "command": "set", "at": 5})");                // 6
  append_raw(path, R"({"id": "e3", "command": "set", "result": "x"})");          // 7
  append_raw(path, R"({"id": "e4", "command": "set", "progress": [1]})");        // 8
  append_raw(path, R"({"id": "", "command": "set"})");                           // 9
  append_raw(path, R"({"done": ["x"], "result": {}})");                          // 10
  append_raw(path, R"({"done": ")" + a + R"(", "result": [1]})");                // 11
  append_raw(path, R"({"progress": {"id": 1}, "action": "pin"})");               // 12
  append_raw(path, R"({"undone": 7})");                                          // 13
  append_raw(path, R"({"id": "e5", "command": "commit", "pre": {"objects": )");  // 14: torn
  append_raw(path, "");                                                           // 15: blank
  append_raw(path, R"({"future_kind": 1})");                                     // 16: unknown
  append_raw(path, R"({"done": "e1", "result": {}})");                           // 17: of a skipped
  // 18: a well-formed entry nested at the records' limit (160) is read.
  append_raw(path, R"({"id": "e6", "command": "set", "pre": {"x": )" + nested(158) + "}}");
  const std::string b = log.begin("set", Json::object());
  log.end(b, Json{{"changed", Json::object()}});

  std::vector<std::size_t> skipped;
  const auto entries = log.read(&skipped);
  CHECK(skipped == std::vector<std::size_t>{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].id == a);
  CHECK(entries[0].status == "done");
  CHECK(entries[0].result == Json{{"vcs_commit", "abc"}});  // line 11's result did not replace it
  CHECK(entries[0].progress.size() == 1);
  CHECK(entries[1].id == "e6");
  CHECK(entries[2].id == b);
  CHECK(entries[2].status == "done");
  // Without a place to report them, the malformed lines are still skipped.
  CHECK(log.read().size() == 3);

  // One level deeper than the records' limit is malformed too.
  append_raw(path, R"({"id": "e7", "command": "set", "pre": {"x": )" + nested(159) + "}}");
  skipped.clear();
  CHECK(log.read(&skipped).size() == 3);
  CHECK(skipped.back() == 21);
}

TEST_CASE("OpLog::skipped_warning names the file and the first lines") {
  CHECK(OpLog::skipped_warning(".tether/ops.jsonl", {7}) ==
        ".tether/ops.jsonl: skipped 1 malformed line(s) (line 7); the operations on them are left out");
  CHECK(OpLog::skipped_warning("/x/ops.jsonl", {1, 2, 3, 4, 5, 6, 9}) ==
        "/x/ops.jsonl: skipped 7 malformed line(s) (lines 1, 2, 3, 4, 5 and 2 more); the operations on them are left out");
}

TEST_CASE("a missing op log is empty; a last line without a newline is read") {
  TempDir tmp;
  std::vector<std::size_t> skipped;
  CHECK(OpLog(tether::model::CheckoutPath{tmp.path(), "none.jsonl"}).read(&skipped).empty());
  CHECK(skipped.empty());
  const auto path = tmp.file("ops.jsonl", R"({"id": "e1", "command": "add"})");
  const auto entries = OpLog(tether::model::CheckoutPath{tmp.path(), "ops.jsonl"}).read(&skipped);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].status == "started");
  CHECK(skipped.empty());
}

TEST_CASE("typed accessors read odd types as absent") {
  const Json j = Json::parse(R"({"s": "x", "n": 1, "b": true, "bs": "true", "a": ["p", 2, "q"], "o": {"k": 1}})");
  CHECK(str_of(j, "s") == "x");
  CHECK(str_of(j, "n").empty());
  CHECK(str_of(j, "missing").empty());
  CHECK(str_of(Json::array(), "s").empty());  // not an object at all
  CHECK(bool_of(j, "b"));
  CHECK_FALSE(bool_of(j, "bs"));
  CHECK_FALSE(bool_of(Json("x"), "b"));
  CHECK(strings_of(j, "a") == std::vector<std::string>{"p", "q"});
  CHECK(strings_of(j, "o").empty());
  CHECK(strings_of(Json(nullptr), "a").empty());
}

TEST_CASE("PinIndex::known reads the top-level pin_id string of each well-formed line, nothing else") {
  TempDir tmp;
  const auto path = tmp.path() / "tether-pinned.jsonl";
  PinIndex index(path);
  CHECK(index.known().empty());  // no file yet
  REQUIRE_FALSE(index.claim("d1", "git", "d1.0000000000000001"));
  append_raw(path, R"({"pin_id": "d1.0000000000000002", "kind": "git"})");
  append_raw(path, R"({"kind": "git", "nested": {"pin_id": "nested.1"}, "list": [{"pin_id": "nested.2"}]})");
  append_raw(path, R"(["pin_id", "array.1"])");                                  // not an object
  append_raw(path, R"("pin_id")");                                               // a bare string
  append_raw(path, R"({"pin_id": 7})");                                          // not a string
  append_raw(path, R"({"pin_id": "dup.first", "pin_id": "dup.last"})");           // the last wins
  append_raw(path, R"({"pin_id": "dup.string", "pin_id": null})");                // ... even a null
  append_raw(path, R"({"pin_id": "torn.1", "kind": )");                          // torn line
  append_raw(path, R"({"pin_id": "bad.1"} trailing)");                           // not one value
  append_raw(path, R"({"pin_id": "deep.1", "x": )" + nested(200000) + "}");      // too deep
  append_raw(path, R"({"pin_id": "after.1"})");                                  // the rest still reads
  CHECK(index.known() == std::set<std::string>{"d1.0000000000000001", "d1.0000000000000002", "dup.last", "after.1"});
  index.release({"d1.0000000000000002"});
  CHECK(index.known() == std::set<std::string>{"d1.0000000000000001", "dup.last", "after.1"});
}

TEST_CASE("StoreIndex keeps one record per dataset and store, skips malformed lines, forgets by store") {
  TempDir tmp;
  const auto path = tmp.path() / "tether-created.jsonl";
  StoreIndex index(path, [] { return std::string("2026-01-01T00:00:00+00:00"); });
  CHECK(index.stores().empty());  // no file yet
  StoreRecord a;
  a.dataset_id = "d1";
  a.kind = "file";
  a.key = "raw";
  a.bookmark = "main";
  a.identity = Json{{"uri", "/data/raw"}};
  a.locator = Json{{"uri", "/data/raw"}};
  REQUIRE_FALSE(index.record(a));
  StoreRecord b = a;
  b.key = "code";
  b.kind = "git";
  b.identity = Json{{"path", "/data/code.git"}};
  REQUIRE_FALSE(index.record(b));
  append_raw(path, R"({"dataset_id": "d1", "kind": "file", "key": )");                           // torn
  append_raw(path, R"({"dataset_id": "d1", "kind": "file", "key": "x", "identity": "/p", "locator": {}})");  // identity not an object
  append_raw(path, R"({"dataset_id": 7, "kind": "file", "key": "x", "identity": {}, "locator": {}})");
  append_raw(path, R"({"dataset_id": "d2", "kind": "file", "key": "other", "identity": {"uri": "/data/raw"}, "locator": {"uri": "/data/raw"}})");
  StoreRecord again = a;
  again.key = "raw2";  // the same store recorded again: the last record wins
  REQUIRE_FALSE(index.record(again));
  auto all = index.stores();
  REQUIRE(all.size() == 3);
  CHECK(all[0].key == "raw2");
  CHECK(all[0].at == "2026-01-01T00:00:00+00:00");
  CHECK(all[0].bookmark == "main");
  CHECK(all[1].key == "code");
  CHECK(all[2].dataset_id == "d2");
  index.forget("d1", {a.store_id()});
  all = index.stores();
  REQUIRE(all.size() == 2);
  CHECK(all[0].key == "code");
  CHECK(all[1].dataset_id == "d2");  // another dataset's record of the same store stays
}
