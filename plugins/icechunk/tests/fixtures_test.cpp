// Read compatibility: the repositories in ../shared/fixtures/icechunk were written by real
// Icechunk releases (spec 1, spec 2, migrated, manifest splitting, after expiration); every
// branch, tag, deleted tag, snapshot, node and ancestry listed in their expected.json must
// come out of the reader.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "diff.hpp"
#include "repository.hpp"

using namespace tether::icechunk;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The fixture directory; exits with 77 (meson: skipped) when it is not there.
const fs::path& fixtures() {
  static fs::path dir = [] {
    const char* env = std::getenv("TETHER_ICECHUNK_FIXTURES");
    fs::path d = env ? env : "";
    if (d.empty() || !fs::exists(d / "expected.json")) {
      std::fprintf(stderr, "icechunk fixtures not found at '%s' (TETHER_ICECHUNK_FIXTURES): skipped\n", d.c_str());
      std::exit(77);
    }
    return d;
  }();
  return dir;
}

const json& expected() {
  static json j = json::parse(std::ifstream(fixtures() / "expected.json"));
  return j;
}

std::map<std::string, std::string> as_map(const json& j) { return j.get<std::map<std::string, std::string>>(); }

}  // namespace

TEST_CASE("every fixture: format, branches, tags and deleted tags") {
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    const auto& want = name_want.value();
    CAPTURE(name);
    Repository r = Repository::open((fixtures() / name).string());
    CHECK(r.format() == want["format"].get<int>());
    CHECK(r.branches() == as_map(want["branches"]));
    CHECK(r.tags() == as_map(want["tags"]));
    CHECK(r.deleted_tags() == want["deleted_tags"].get<std::vector<std::string>>());
  }
}

TEST_CASE("every fixture: the ancestry of every branch and tag") {
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    const auto& want = name_want.value();
    Repository r = Repository::open((fixtures() / name).string());
    for (const auto& ref_ids : want["ancestry"].items()) {
      const auto ref = ref_ids.key();
      const auto& ids = ref_ids.value();
      CAPTURE(name);
      CAPTURE(ref);
      auto colon = ref.find(':');
      std::string kind = ref.substr(0, colon), ref_name = ref.substr(colon + 1);
      auto tip = kind == "branch" ? r.branch(ref_name) : r.tag(ref_name);
      REQUIRE(tip.has_value());
      std::vector<std::string> got;
      for (const auto& s : r.ancestry(*tip)) got.push_back(s.id);
      CHECK(got == ids.get<std::vector<std::string>>());
      CHECK(r.ancestry(*tip, 1).size() == 1);
    }
  }
}

TEST_CASE("spec 2: the repo file's snapshots (parents, times, messages) and operations log") {
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    const auto& want = name_want.value();
    if (want["format"] != 2) continue;
    CAPTURE(name);
    Repository r = Repository::open((fixtures() / name).string());
    CHECK(r.repo_writer() == want["repo_writer"].get<std::string>());
    REQUIRE(r.repo_snapshots().size() == want["repo_snapshots"].size());
    for (const auto& info : r.repo_snapshots()) {
      CAPTURE(info.id);
      const json& w = want["repo_snapshots"].at(info.id);
      CHECK(info.message == w["message"].get<std::string>());
      CHECK(info.flushed_at_us == w["flushed_at_us"].get<uint64_t>());
      if (w["parent"].is_null()) CHECK_FALSE(info.parent.has_value());
      else CHECK(info.parent == w["parent"].get<std::string>());
      CHECK(info.pruned_ancestor_tx_logs == w["pruned_ancestor_tx_logs"].get<std::vector<std::string>>());
    }
    std::vector<std::string> types;
    for (const auto& u : r.ops_log()) types.push_back(u.type);
    CHECK(types == want["ops_log_newest_first"].get<std::vector<std::string>>());
  }
}

TEST_CASE("every snapshot file: writer, spec version, parent, message, nodes and manifests") {
  int files = 0;
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    const auto& want = name_want.value();
    Repository r = Repository::open((fixtures() / name).string());
    for (const auto& id_w : want["snapshot_files"].items()) {
      const auto id = id_w.key();
      const auto& w = id_w.value();
      CAPTURE(name);
      CAPTURE(id);
      if (w.contains("error")) continue;
      Snapshot s = r.read_snapshot(id);
      ++files;
      CHECK(s.writer == w["writer"].get<std::string>());
      CHECK(s.spec_version == w["file_spec_version"].get<int>());
      CHECK(s.info.message == w["message"].get<std::string>());
      CHECK(s.info.flushed_at_us == w["flushed_at_us"].get<uint64_t>());
      CHECK(s.manifest_files == w["manifest_files"].get<std::vector<std::string>>());
      REQUIRE(s.nodes.size() == w["nodes"].size());
      for (std::size_t i = 0; i < s.nodes.size(); ++i) {
        const json& n = w["nodes"][i];
        CHECK(s.nodes[i].path == n["path"].get<std::string>());
        CHECK(s.nodes[i].id == n["node_id"].get<std::string>());
        CHECK((s.nodes[i].kind == Node::Kind::Array ? "array" : "group") == n["type"].get<std::string>());
      }
      if (s.spec_version == 1) {
        // spec-1 files carry their parent themselves
        if (w["file_parent"].is_null()) CHECK_FALSE(s.info.parent.has_value());
        else CHECK(s.info.parent == w["file_parent"].get<std::string>());
      }
    }
  }
  CHECK(files > 50);
}

TEST_CASE("what is not there is refused, naming it") {
  Repository r = Repository::open((fixtures() / "test-repo-v2").string());
  CHECK_FALSE(r.tag("deleted").has_value());  // deleted tags do not resolve
  CHECK_FALSE(r.branch("nope").has_value());
  CHECK_THROWS_WITH_AS(r.read_snapshot("0000000000000000000G"), doctest::Contains("is not in"), FormatError);
  CHECK_THROWS_WITH_AS(r.read_snapshot("../repo"), doctest::Contains("not a snapshot id"), FormatError);
  CHECK_THROWS_WITH_AS(Repository::open((fixtures() / "test-repo-v2" / "snapshots").string()),
                       doctest::Contains("is not an Icechunk repository"), FormatError);
  Repository v1 = Repository::open((fixtures() / "test-repo-v1").string());
  CHECK_FALSE(v1.tag("deleted").has_value());
  CHECK(v1.tag("it works!") == "4QF8JA0YPDN51MHSSYVG");
}

TEST_CASE("every diff of expected.json, from the transaction logs") {
  int diffs = 0;
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    const auto& want = name_want.value();
    Repository r = Repository::open((fixtures() / name).string());
    for (const auto& d : want.value("diffs", json::array())) {
      std::string from = d["from"], to = d["to"];
      CAPTURE(name);
      CAPTURE(from);
      CAPTURE(to);
      ++diffs;
      if (d["result"].is_string()) {
        CHECK(d["result"] == "BadSnapshotChainForDiff");
        CHECK_THROWS_AS(diff_snapshots(r, from, to), BadSnapshotChain);
        continue;
      }
      // Progress: one report per transaction log, counting up to all of them.
      std::vector<std::pair<std::size_t, std::size_t>> reports;
      SnapshotDiff got = diff_snapshots(r, from, to, [&](std::size_t done, std::size_t total) { reports.emplace_back(done, total); });
      REQUIRE_FALSE(reports.empty());
      for (std::size_t i = 0; i < reports.size(); ++i) CHECK(reports[i] == std::make_pair(i + 1, reports.back().second));
      const json& w = d["result"];
      auto set = [](const json& j) { return j.get<std::set<std::string>>(); };
      CHECK(got.new_groups == set(w["new_groups"]));
      CHECK(got.new_arrays == set(w["new_arrays"]));
      CHECK(got.deleted_groups == set(w["deleted_groups"]));
      CHECK(got.deleted_arrays == set(w["deleted_arrays"]));
      CHECK(got.updated_groups == set(w["updated_groups"]));
      CHECK(got.updated_arrays == set(w["updated_arrays"]));
      std::map<std::string, std::set<std::vector<uint32_t>>> chunks;
      for (const auto& [path, coords] : w["updated_chunks"].items())
        chunks[path] = coords.get<std::set<std::vector<uint32_t>>>();
      CHECK(got.updated_chunks == chunks);
      CHECK(got.moved.size() == w["moved"].size());
    }
  }
  CHECK(diffs >= 10);
  CHECK_THROWS_AS(diff_snapshots(Repository::open((fixtures() / "test-repo-v2").string()), "H7T8YA6KR5TH32F3PS10",
                                 "H7T8YA6KR5TH32F3PS10"),
                  BadSnapshotChain);
}

TEST_CASE("deep check: every live ref is intact; the orphaned 'doomed2 work' snapshots are not") {
  for (const auto& name_want : expected().items()) {
    const auto name = name_want.key();
    CAPTURE(name);
    Repository r = Repository::open((fixtures() / name).string());
    for (const auto* refs : {&r.branches(), &r.tags()})
      for (const auto& ref_id : *refs) {
        const auto ref = ref_id.first;
        const auto& id = ref_id.second;
        CAPTURE(ref);
        auto check = check_snapshot(r, id, true);
        CHECK_MESSAGE(check.ok, check.problem);
      }
  }
  const std::map<std::string, std::string> doomed{{"expire-repo-v1-by-1.1.21", "ZNB3BJM5XYQGG758BZC0"},
                                                  {"expire-repo-v1-by-2.0.5", "RSE5QPE9HJJHQJM7HYM0"},
                                                  {"expire-repo-v1-by-working-copy", "5M4J01S9EG3C25H91R0G"}};
  for (const auto& name_id : doomed) {
    const auto name = name_id.first;
    const auto& id = name_id.second;
    CAPTURE(name);
    auto check = check_snapshot(Repository::open((fixtures() / name).string()), id, false);
    CHECK_FALSE(check.ok);
    CHECK(check.problem.find("which is gone") != std::string::npos);
  }
  auto gone = check_snapshot(Repository::open((fixtures() / "test-repo-v2").string()), "0000000000000000000G", false);
  CHECK_FALSE(gone.ok);
}
