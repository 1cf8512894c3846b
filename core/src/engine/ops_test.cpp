// Unit tests of `ops` (ops.cpp): this checkout's operations newest first with the summary a
// user reads, a commit removed from history behind tether's back shown as gone, and the JSON
// `tether ops --json` prints. Real git, the memory backend in process.
#include <doctest/doctest.h>

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
