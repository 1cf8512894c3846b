// The writer on repositories it creates itself: creation, ref changes with their checks,
// the spec-2 operations log and backups, and racing writers.
#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <thread>

#include <flatbuffers/flexbuffers.h>

#include "icechunk_generated.h"
#include "ids.hpp"
#include "repository.hpp"
#include "writer.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::icechunk;
namespace fs = std::filesystem;

namespace {
std::size_t files_in(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}
}  // namespace

TEST_CASE("create: an empty spec-2 repository with main at the initial snapshot and the owner marker") {
  tether::testing::TempDir tmp("tether-icechunk");
  std::string root = (tmp.path() / "new.icechunk").string();
  CHECK(create_repository(root, "tether.owner", "0a1b2c3d") == kInitialSnapshotId);
  Repository r = Repository::open(root);
  CHECK(r.format() == 2);
  CHECK(r.branches() == std::map<std::string, std::string>{{"main", std::string(kInitialSnapshotId)}});
  CHECK(r.tags().empty());
  REQUIRE(r.ops_log().size() == 1);
  CHECK(r.ops_log()[0].type == "RepoInitializedUpdate");
  CHECK(r.read_snapshot(kInitialSnapshotId).info.message == "Repository initialized");
  CHECK(fs::exists(fs::path(root) / "transactions" / kInitialSnapshotId));
  CHECK(repository_metadata_string(root, "tether.owner") == "0a1b2c3d");
  CHECK_FALSE(repository_metadata_string(root, "other").has_value());
  CHECK_THROWS_WITH(create_repository(root, "tether.owner", "ffffffff"), doctest::Contains("not empty"));
}

TEST_CASE("spec 2 ref changes: checks, the operations log, one backup per change") {
  tether::testing::TempDir tmp("tether-icechunk");
  std::string root = (tmp.path() / "r").string();
  create_repository(root, "tether.owner", "0a1b2c3d");
  const std::string s0 = kInitialSnapshotId;

  create_branch(root, "work", s0);
  CHECK_THROWS_AS(create_branch(root, "work", s0), RefError);
  create_tag(root, "tether.a", s0);
  try {
    create_tag(root, "tether.a", s0);
    FAIL("a tag was created twice");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::Exists);
  }
  delete_tag(root, "tether.a");
  try {
    create_tag(root, "tether.a", s0);
    FAIL("a deleted tag name was reused");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::PreviouslyDeleted);
  }
  CHECK_THROWS_AS(create_tag(root, "t", "0000000000000000000G"), RefError);  // no such snapshot
  try {
    reset_branch(root, "work", s0, std::string("0000000000000000000G"));
    FAIL("a stale expected moved the branch");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::Conflict);
    CHECK(e.actual() == s0);
  }
  reset_branch(root, "work", s0, s0);
  delete_branch(root, "work", s0);
  CHECK_THROWS_AS(delete_branch(root, "work", std::nullopt), RefError);
  CHECK_THROWS(delete_branch(root, "main", std::nullopt));
  CHECK_THROWS(create_branch(root, "a/b", s0));

  Repository r = Repository::open(root);
  CHECK(r.branches() == std::map<std::string, std::string>{{"main", s0}});
  CHECK(r.tags().empty());
  CHECK(r.deleted_tags() == std::vector<std::string>{"tether.a"});
  std::vector<std::string> types;
  for (const auto& u : r.ops_log()) types.push_back(u.type);
  CHECK(types == std::vector<std::string>{"BranchDeletedUpdate", "BranchResetUpdate", "TagDeletedUpdate",
                                          "TagCreatedUpdate", "BranchCreatedUpdate", "RepoInitializedUpdate"});
  for (std::size_t i = 1; i < r.ops_log().size(); ++i) {
    CHECK(r.ops_log()[i - 1].updated_at_us > r.ops_log()[i].updated_at_us);
    REQUIRE(r.ops_log()[i].backup_path.has_value());
    CHECK(fs::exists(fs::path(root) / "overwritten" / *r.ops_log()[i].backup_path));
  }
  CHECK_FALSE(r.ops_log()[0].backup_path.has_value());
  CHECK(files_in(fs::path(root) / "overwritten") == 5);
  // no staging files left behind
  for (const auto& e : fs::recursive_directory_iterator(root)) CHECK(e.path().string().find('#') == std::string::npos);
}

TEST_CASE("racing writers: exactly one create and one conditional reset win") {
  tether::testing::TempDir tmp("tether-icechunk");
  std::string root = (tmp.path() / "r").string();
  create_repository(root, "tether.owner", "0a1b2c3d");
  constexpr int kRacers = 8;
  auto race = [&](auto&& op) {
    std::barrier start(kRacers);
    std::atomic<int> wins{0}, refused{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kRacers; ++i)
      threads.emplace_back([&] {
        start.arrive_and_wait();
        try {
          op();
          ++wins;
        } catch (const RefError&) {
          ++refused;
        }
      });
    for (auto& t : threads) t.join();
    CHECK(refused == kRacers - wins);
    return wins.load();
  };
  CHECK(race([&] { create_branch(root, "raced", kInitialSnapshotId); }) == 1);
  CHECK(race([&] { create_tag(root, "tether.raced", kInitialSnapshotId); }) == 1);
  Repository r = Repository::open(root);
  CHECK(r.branch("raced") == kInitialSnapshotId);
  CHECK(r.ops_log().size() == 3);
}

namespace {

// Rewrites `root`/repo from its unpacked model, with `edit` applied and, when `extra_field`,
// a 14th Repo field that this schema does not have (as a newer Icechunk could write).
template <class Edit>
void craft_repo(const std::string& root, Edit&& edit, bool extra_field) {
  using namespace tether::icechunk::fb;
  MetadataFile f = read_metadata_file(root + "/repo", FileType::RepoInfo);
  RepoT t;
  flatbuffers::GetRoot<Repo>(f.payload.data())->UnPackTo(&t);
  edit(t);
  flatbuffers::FlatBufferBuilder fbb;
  auto refs = [&](const std::vector<std::unique_ptr<RefT>>& v) {
    return fbb.CreateVector<flatbuffers::Offset<Ref>>(v.size(), [&](size_t i) { return CreateRef(fbb, v[i].get()); });
  };
  auto tags = refs(t.tags), branches = refs(t.branches);
  auto deleted = fbb.CreateVectorOfStrings(t.deleted_tags);
  auto snaps = fbb.CreateVector<flatbuffers::Offset<fb::SnapshotInfo>>(
      t.snapshots.size(), [&](size_t i) { return CreateSnapshotInfo(fbb, t.snapshots[i].get()); });
  auto status = CreateRepoStatus(fbb, t.status.get());
  auto updates = fbb.CreateVector<flatbuffers::Offset<fb::Update>>(
      t.latest_updates.size(), [&](size_t i) { return CreateUpdate(fbb, t.latest_updates[i].get()); });
  auto config = t.config.empty() ? flatbuffers::Offset<flatbuffers::Vector<uint8_t>>() : fbb.CreateVector(t.config);
  RepoBuilder b(fbb);
  b.add_spec_version(2);
  b.add_tags(tags);
  b.add_branches(branches);
  b.add_deleted_tags(deleted);
  b.add_snapshots(snaps);
  b.add_status(status);
  b.add_latest_updates(updates);
  if (!t.config.empty()) b.add_config(config);
  if (extra_field) fbb.AddElement<uint8_t>(4 + 2 * 13, 7, 0);
  fbb.Finish(b.Finish(), "Ichk");
  auto bytes = encode_metadata_file(FileType::RepoInfo, 2, fbb.GetBufferPointer(), fbb.GetSize());
  std::ofstream(root + "/repo", std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()),
                                                                         static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("a repo file with a field this tether does not know is read but never rewritten") {
  tether::testing::TempDir tmp("tether-icechunk");
  std::string root = (tmp.path() / "r").string();
  create_repository(root, "tether.owner", "0a1b2c3d");
  craft_repo(root, [](auto&) {}, true);
  auto before = read_file(root + "/repo");
  Repository r = Repository::open(root);  // reading works
  CHECK(r.branch("main") == kInitialSnapshotId);
  CHECK_THROWS_WITH(create_tag(root, "tether.x", kInitialSnapshotId), doctest::Contains("does not know"));
  CHECK(read_file(root + "/repo") == before);
  CHECK(files_in(fs::path(root) / "overwritten") == 0);
}

TEST_CASE("the operations log is capped at num_updates_per_repo_info_file and continues in a backup") {
  tether::testing::TempDir tmp("tether-icechunk");
  std::string root = (tmp.path() / "r").string();
  create_repository(root, "tether.owner", "0a1b2c3d");
  flexbuffers::Builder fx;
  fx.Map([&] { fx.UInt("num_updates_per_repo_info_file", 3); });
  fx.Finish();
  craft_repo(root, [&](tether::icechunk::fb::RepoT& t) { t.config = fx.GetBuffer(); }, false);
  for (int i = 0; i < 6; ++i) create_tag(root, "tether.t" + std::to_string(i), kInitialSnapshotId);
  Repository r = Repository::open(root);
  CHECK(r.tags().size() == 6);
  CHECK(r.ops_log().size() == 3);  // newest first: t5, t4, t3
  MetadataFile f = read_metadata_file(root + "/repo", FileType::RepoInfo);
  const auto* repo = flatbuffers::GetRoot<tether::icechunk::fb::Repo>(f.payload.data());
  REQUIRE(repo->repo_before_updates() != nullptr);
  std::string before = repo->repo_before_updates()->str();
  // the ops log continues in that backup, whose own newest entry is the one dropped here
  CHECK(fs::exists(fs::path(root) / "overwritten" / before));
  CHECK(r.ops_log()[2].backup_path.has_value());
  CHECK(repo->config() != nullptr);  // the config bytes went through untouched
}
