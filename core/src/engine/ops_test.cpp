// Unit tests of `ops` (ops.cpp): this checkout's operations newest first with the summary a
// user reads, a commit removed from history behind tether's back shown as gone, and the JSON
// `tether ops --json` prints. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "engine/testing/dataset.hpp"
#include "tether/engine/ops.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;

TEST_CASE("ops lists operations newest first with their summaries") {
  Dataset ds;
  CHECK(tether::engine::ops(*ds.open(), 0).entries.empty());
  ds.add_memory("m", "sys1");
  const auto committed = ds.commit("first");
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
  tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("native"));

  const auto all = tether::engine::ops(*ds.open(), 0).entries;
  REQUIRE(all.size() == 4);
  CHECK(all[0].command == "set");
  CHECK(all[0].summary == "m: pin=record->native");
  CHECK(all[1].summary == "m: pin=native->record");
  CHECK(all[2].command == "commit");
  CHECK(all[2].summary == "pinned m; vcs " + committed.vcs_commit->substr(0, 12));
  CHECK(all[3].summary == "m");
  CHECK(tether::engine::ops(*ds.open(), 2).entries.size() == 2);
  CHECK_FALSE(all[2].vcs_commit_gone);

  // A commit leaves history behind tether's back: ops says so, and vcs_drift names it.
  ds.advance("sys1");
  const auto c2 = ds.commit("second");
  ds.git({"reset", "-q", "--hard", "HEAD~1"});
  const auto after = tether::engine::ops(*ds.open(), 0).entries;
  REQUIRE(after.size() == 5);
  CHECK(after[0].vcs_commit_gone);
  CHECK_FALSE(after[3].vcs_commit_gone);
  const auto drift = ds.open()->vcs_drift();
  REQUIRE(drift.size() == 1);
  CHECK(drift[0].commit == *c2.vcs_commit);
}

TEST_CASE("ops --json is the log's entries newest first, each with vcs_commit_gone") {
  Dataset ds;
  CHECK(tether::engine::ops(*ds.open(), 0).to_json() == Json::array());
  ds.add_memory("m", "sys1");
  const auto first = ds.commit("first");
  ds.advance("sys1");
  const auto second = ds.commit("second");
  ds.git({"reset", "-q", "--hard", "HEAD~1"});

  const auto report = tether::engine::ops(*ds.open(), 0);
  Json j = report.to_json();  // not const: a missing key reads as null and fails the CHECK, not an assertion
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 3);
  for (std::size_t i = 0; i < j.size(); ++i) {
    CHECK(j[i]["id"] == report.entries[i].id);
    CHECK(j[i]["command"] == report.entries[i].command);
    CHECK(j[i]["status"] == "done");
    // The log's own entry, with the one field the log cannot know added.
    Json entry = j[i];
    entry.erase("vcs_commit_gone");
    CHECK(entry == report.entries[i].entry);
  }
  CHECK(j[0]["result"]["vcs_commit"] == *second.vcs_commit);
  CHECK(j[0]["vcs_commit_gone"] == true);
  CHECK(j[1]["result"]["vcs_commit"] == *first.vcs_commit);
  CHECK(j[1]["vcs_commit_gone"] == false);
  CHECK(j[2]["command"] == "add");
  CHECK(j[2]["vcs_commit_gone"] == false);
  CHECK(tether::engine::ops(*ds.open(), 1).to_json().size() == 1);
}

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// A record without its second line, the time it was written.
std::string without_time(const std::string& record) {
  const auto a = record.find('\n'), b = record.find('\n', a + 1);
  return a == std::string::npos || b == std::string::npos ? record : record.substr(0, a) + record.substr(b);
}

// The drift record keeps what it read only of a log last changed over two seconds before.
void let_the_log_settle() { std::this_thread::sleep_for(std::chrono::milliseconds(2100)); }

}  // namespace

TEST_CASE("the drift check keeps the log's candidates for exactly that log") {
  Dataset ds;
  ds.add_memory("m", "sys1");
  const auto first = ds.commit("first");
  ds.advance("sys1");
  const auto second = ds.commit("second");
  const auto record = ds.root() / ".tether" / "cache" / "drift-candidates";
  const auto log = ds.root() / ".tether" / "ops.jsonl";

  // A log changed within the last two seconds is read, not recorded.
  CHECK(ds.open()->vcs_drift().empty());
  CHECK_FALSE(std::filesystem::exists(record));

  let_the_log_settle();
  CHECK(ds.open()->vcs_drift().empty());
  REQUIRE(std::filesystem::exists(record));
  const std::string text = read_text(record);
  CHECK(text.find(*first.vcs_commit) != std::string::npos);
  CHECK(text.find(*second.vcs_commit) != std::string::npos);

  // Served from the record, drift is still found: the record names the candidates, git says
  // which are gone, and the log says which pins they made.
  ds.git({"reset", "-q", "--hard", "HEAD~1"});
  auto drift = ds.open()->vcs_drift();
  REQUIRE(drift.size() == 1);
  CHECK(drift[0].commit == *second.vcs_commit);
  CHECK(drift[0].referenced.count("m") == 1);
  CHECK(read_text(record) == text);  // the log did not change: the record stands

  SUBCASE("the record is what is used while the log is the same file") {
    // A record for this log naming no candidate is believed...
    const std::string stamp_and_time = text.substr(0, text.find("\nskipped"));
    write_text(record, stamp_and_time + "\nskipped\nend\n");
    CHECK(ds.open()->vcs_drift().empty());
    // ...until the log changes: an appended operation means reading it again.
    tether::engine::set_policy(*ds.open(), {"m"}, false, std::nullopt, std::string("record"));
    drift = ds.open()->vcs_drift();
    REQUIRE(drift.size() == 1);
    CHECK(drift[0].commit == *second.vcs_commit);
  }

  SUBCASE("a record that is not exactly what tether writes is ignored and replaced") {
    for (const std::string& bad : std::vector<std::string>{std::string("garbage\n"), text.substr(0, text.size() - 4),
                                  text.substr(0, text.find('\n')) + "\n0\nskipped\nend\n",
                                  "v1 1 2 3 4 5\n9999999999999999999\nskipped\nend\n", text + "extra\n",
                                  std::string(text).replace(text.find("skipped"), 7, "skipped x"),
                                  std::string(text).replace(text.find(*first.vcs_commit), 0, "a b ")}) {
      write_text(record, bad);
      drift = ds.open()->vcs_drift();
      REQUIRE(drift.size() == 1);
      CHECK(drift[0].commit == *second.vcs_commit);
      CHECK(without_time(read_text(record)) == without_time(text));
    }
  }

  SUBCASE("a record from another checkout's log is ignored") {
    Dataset other;
    other.add_memory("m", "sys1");
    other.commit("first");
    let_the_log_settle();
    CHECK(other.open()->vcs_drift().empty());
    std::filesystem::copy_file(other.root() / ".tether" / "cache" / "drift-candidates", record,
                               std::filesystem::copy_options::overwrite_existing);
    drift = ds.open()->vcs_drift();
    REQUIRE(drift.size() == 1);
    CHECK(drift[0].commit == *second.vcs_commit);
  }

  SUBCASE("malformed lines are warned about on every run, recorded or not") {
    const auto line = std::to_string(std::count(std::istreambuf_iterator<char>(std::ifstream(log).rdbuf()), {}, '\n') + 1);
    std::ofstream(log, std::ios::app) << "{not json\n";
    let_the_log_settle();
    for (int run = 0; run < 2; ++run) {
      auto repo = ds.open();
      REQUIRE(repo->vcs_drift().size() == 1);
      REQUIRE(repo->warnings().size() == 1);
      CHECK(repo->warnings()[0] == ".tether/ops.jsonl: skipped 1 malformed line(s) (line " + line +
                                       "); the operations on them are left out");
    }
    CHECK(read_text(record).find("\nskipped " + line + "\n") != std::string::npos);
  }
}
