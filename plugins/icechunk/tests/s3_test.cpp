// The reader and the writer on repositories in a real object store: the throwaway Ceph
// object gateway of tests/s3/cluster (run through tests/s3/with-cluster). Each test case
// makes its own bucket with Debian's AWS CLI, which also copies the fixture repositories in
// and plants hostile objects, independently of our client. The cases marked "real Icechunk"
// also need tests/icechunk's runtime (TETHER_ICECHUNK_NODE / _ORACLE) and say so when it is
// missing. Exits 77 (skipped) without a cluster.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "diff.hpp"
#include "ids.hpp"
#include "repository.hpp"
#include "storage.hpp"
#include "writer.hpp"
#include "tether/support/objstore.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/s3.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::icechunk;
using nlohmann::json;
namespace fs = std::filesystem;
namespace os = tether::support::objstore;
using tether::support::ProcessResult;
using tether::support::run_process;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

const tether::testing::S3Cluster& cluster() {
  static const tether::testing::S3Cluster c = tether::testing::S3Cluster::from_env();
  return c;
}

ProcessResult aws(const std::vector<std::string>& args) { return cluster().aws(args); }

std::string new_bucket(const std::string& stem) {
  std::string b;
  REQUIRE_NOTHROW(b = cluster().new_bucket("ick-" + stem));
  return b;
}

os::Options options() { return cluster().options(); }

os::Environment no_env() {
  os::Environment e;
  e.getenv = [](const std::string&) { return std::optional<std::string>(); };
  return e;
}

// A fresh storage (its own Store, its own cache) for the repository under `prefix`.
std::shared_ptr<Storage> s3(const std::string& bucket, const std::string& prefix, const os::Options& o = options()) {
  std::shared_ptr<os::Store> store = os::open(*os::parse_location("s3://" + bucket + "/"), o, no_env());
  return object_storage(store, prefix, "s3://" + bucket + "/" + prefix);
}

std::string uri(const std::string& bucket, const std::string& prefix) { return "s3://" + bucket + "/" + prefix; }

void put_object(const std::string& bucket, const std::string& key, const std::string& bytes) {
  tether::testing::TempDir tmp("tether-icechunk-s3");
  fs::path f = tmp.path() / "body";
  std::ofstream(f, std::ios::binary) << bytes;
  ProcessResult r = aws({"s3", "cp", "--quiet", f.string(), "s3://" + bucket + "/" + key});
  REQUIRE_MESSAGE(r.ok(), r.err);
}

// The fixture directory; nullopt (and a message) when it is not there.
std::optional<fs::path> fixtures() {
  fs::path d = env("TETHER_ICECHUNK_FIXTURES");
  if (d.empty() || !fs::exists(d / "expected.json")) {
    MESSAGE("icechunk fixtures not found (TETHER_ICECHUNK_FIXTURES): case skipped");
    return std::nullopt;
  }
  return d;
}

// ---- real Icechunk -------------------------------------------------------------------------

bool have_icechunk() {
  static bool ok = [] {
    std::string node = env("TETHER_ICECHUNK_NODE");
    if (node.empty() || env("TETHER_ICECHUNK_ORACLE").empty()) return false;
    return run_process({node, "-e", "process.exit(0)"}).ok();
  }();
  if (!ok) MESSAGE("the real Icechunk runtime is not usable (tests/icechunk/setup-runtime): case skipped");
  return ok;
}

json icechunk(const std::vector<std::string>& args) {
  std::vector<std::string> argv{env("TETHER_ICECHUNK_NODE"), env("TETHER_ICECHUNK_ORACLE")};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = run_process(argv);
  INFO(tether::support::join_argv(argv), ": ", r.err);
  REQUIRE(r.ok());
  return json::parse(r.out);
}

std::string snap(const json& j) { return j.at("snapshot").get<std::string>(); }

void same_history(const Repository& a, const Repository& b, const std::string& id) {
  auto x = a.ancestry(id), y = b.ancestry(id);
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(x[i].id == y[i].id);
    CHECK(x[i].parent == y[i].parent);
    CHECK(x[i].message == y[i].message);
    CHECK(x[i].flushed_at_us == y[i].flushed_at_us);
  }
}

}  // namespace

TEST_CASE("every fixture reads the same from a bucket as from its directory") {
  auto dir = fixtures();
  if (!dir) return;
  std::string b = new_bucket("fixtures");
  ProcessResult up = aws({"s3", "cp", "--quiet", "--recursive", dir->string(), "s3://" + b + "/in/some/prefix/"});
  REQUIRE_MESSAGE(up.ok(), up.err);
  json expected = json::parse(std::ifstream(*dir / "expected.json"));
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    const std::string name = it.key();  // not a structured binding: clang 14 cannot capture one
    const json& want = it.value();
    CAPTURE(name);
    Repository local = Repository::open((*dir / name).string());
    Repository remote = Repository::open(s3(b, "in/some/prefix/" + name));
    CHECK(remote.root() == uri(b, "in/some/prefix/" + name));
    CHECK(remote.format() == want["format"].get<int>());
    CHECK(remote.branches() == local.branches());
    CHECK(remote.tags() == local.tags());
    CHECK(remote.deleted_tags() == local.deleted_tags());
    CHECK(remote.branches() == want["branches"].get<std::map<std::string, std::string>>());
    std::vector<std::string> ops_a, ops_b;
    for (const auto& u : local.ops_log()) ops_a.push_back(u.type);
    for (const auto& u : remote.ops_log()) ops_b.push_back(u.type);
    CHECK(ops_a == ops_b);
    for (const auto& [branch, id] : local.branches()) {
      same_history(local, remote, id);
      Snapshot sl = local.read_snapshot(id), sr = remote.read_snapshot(id);
      REQUIRE(sl.nodes.size() == sr.nodes.size());
      for (std::size_t i = 0; i < sl.nodes.size(); ++i) {
        CHECK(sl.nodes[i].path == sr.nodes[i].path);
        CHECK(sl.nodes[i].user_data == sr.nodes[i].user_data);
        CHECK(sl.nodes[i].manifests == sr.nodes[i].manifests);
      }
      CHECK(check_snapshot(remote, id, true).ok == check_snapshot(local, id, true).ok);
      // Icechunk's diff from the root to the tip, through transaction logs read from the bucket.
      auto chain = local.ancestry(id);
      if (chain.size() < 2) continue;
      try {
        SnapshotDiff dl = diff_snapshots(local, chain.back().id, id);
        std::size_t reported = 0, of = 0;
        SnapshotDiff dr = diff_snapshots(remote, chain.back().id, id, [&](std::size_t done, std::size_t total) {
          CHECK(done > reported);  // windows of logs, counting up
          reported = done;
          of = total;
        });
        CHECK(reported == of);
        CHECK(dr.new_arrays == dl.new_arrays);
        CHECK(dr.new_groups == dl.new_groups);
        CHECK(dr.updated_chunks == dl.updated_chunks);
        CHECK(dr.missing_logs == dl.missing_logs);
      } catch (const BadSnapshotChain&) {
      }
    }
  }
}

TEST_CASE("tags and branches on a copied fixture, in both formats, as the local writer makes them") {
  auto dir = fixtures();
  if (!dir) return;
  for (const char* name : {"test-repo-v1", "test-repo-v2"}) {
    CAPTURE(name);
    std::string b = new_bucket("refs");
    REQUIRE(aws({"s3", "cp", "--quiet", "--recursive", (*dir / name).string(), "s3://" + b + "/r.icechunk/"}).ok());
    auto st = s3(b, "r.icechunk");
    Repository before = Repository::open(st);
    std::string main = *before.branch("main");
    auto chain = before.ancestry(main);
    REQUIRE(chain.size() > 1);
    std::string parent = chain[1].id;

    create_tag(*st, "tether.0a1b2c3d.pin", main);
    create_branch(*st, "tether.ws.0a1b2c3d.work", parent);
    reset_branch(*st, "tether.ws.0a1b2c3d.work", main, parent);
    try {
      reset_branch(*st, "tether.ws.0a1b2c3d.work", parent, parent);  // stale expectation
      FAIL("a stale expectation moved the branch");
    } catch (const RefError& e) {
      CHECK(e.kind() == RefError::Kind::Conflict);
      CHECK(e.actual() == main);
    }
    try {
      create_tag(*st, "tether.0a1b2c3d.pin", parent);
      FAIL("a tag was created twice");
    } catch (const RefError& e) {
      CHECK(e.kind() == RefError::Kind::Exists);
      CHECK(e.actual() == main);
    }
    create_tag(*st, "tether.0a1b2c3d.gone", parent);
    delete_tag(*st, "tether.0a1b2c3d.gone");
    try {
      create_tag(*st, "tether.0a1b2c3d.gone", parent);
      FAIL("a deleted tag name was reused");
    } catch (const RefError& e) {
      CHECK(e.kind() == RefError::Kind::PreviouslyDeleted);
    }
    create_branch(*st, "tether.ws.0a1b2c3d.tmp", main);
    delete_branch(*st, "tether.ws.0a1b2c3d.tmp", main);
    CHECK_THROWS_AS(create_tag(*st, "t", "0000000000000000000G"), RefError);  // no such snapshot

    // Read back through a second client with its own Store (no shared cache), and the
    // objects as the AWS CLI lists them.
    Repository after = Repository::open(s3(b, "r.icechunk"));
    CHECK(after.tag("tether.0a1b2c3d.pin") == main);
    CHECK(after.branch("tether.ws.0a1b2c3d.work") == main);
    CHECK_FALSE(after.branch("tether.ws.0a1b2c3d.tmp").has_value());
    CHECK(std::count(after.deleted_tags().begin(), after.deleted_tags().end(), "tether.0a1b2c3d.gone") == 1);
    CHECK(after.branch("main") == main);
    ProcessResult ls = aws({"s3", "ls", "--recursive", "s3://" + b + "/r.icechunk/"});
    REQUIRE(ls.ok());
    if (std::string(name) == "test-repo-v1") {
      CHECK(ls.out.find("refs/tag.tether.0a1b2c3d.pin/ref.json") != std::string::npos);
      CHECK(ls.out.find("refs/tag.tether.0a1b2c3d.gone/ref.json.deleted") != std::string::npos);
      CHECK(ls.out.find("refs/branch.tether.ws.0a1b2c3d.tmp/") == std::string::npos);
    } else {
      // one backup per rewrite of `repo`: 7 changes
      std::size_t backups = 0;
      for (std::size_t at = 0; (at = ls.out.find("/overwritten/repo.", at)) != std::string::npos; ++at) ++backups;
      std::size_t before_backups = 0;
      for (const auto& e : fs::directory_iterator(*dir / name / "overwritten")) before_backups += e.is_regular_file();
      CHECK(backups == before_backups + 7);
      auto ops = after.ops_log();
      REQUIRE(ops.size() >= 7);
      CHECK(ops[0].type == "BranchDeletedUpdate");
      for (std::size_t i = 1; i < 7; ++i) CHECK(ops[i - 1].updated_at_us > ops[i].updated_at_us);
    }
    CHECK(ls.out.find('#') == std::string::npos);  // no staging names on a store
  }
}

TEST_CASE("two writers with their own clients: exactly one create and one conditional move win") {
  std::string b = new_bucket("race");
  for (int spec : {1, 2}) {
    CAPTURE(spec);
    std::string prefix = "race-v" + std::to_string(spec);
    auto creator = s3(b, prefix);
    if (spec == 2) {
      create_repository(*creator, "tether.owner", "0a1b2c3d");
    } else {
      // A spec-1 repository: the initial snapshot of a fixture-free spec-2 one, with a
      // spec-1 ref to it (refs are all that is raced here).
      auto tmpst = s3(b, prefix + "-tmp");
      create_repository(*tmpst, "tether.owner", "0a1b2c3d");
      auto snapshot = tmpst->read(std::string("snapshots/") + kInitialSnapshotId);
      REQUIRE(creator->create(std::string("snapshots/") + kInitialSnapshotId, *snapshot));
      std::string ref = std::string("{\"snapshot\":\"") + kInitialSnapshotId + "\"}";
      REQUIRE(creator->create("refs/branch.main/ref.json", Bytes(ref.begin(), ref.end())));
    }
    REQUIRE(Repository::open(s3(b, prefix)).format() == spec);
    constexpr int kRacers = 6;
    auto race = [&](auto&& op) {
      std::vector<std::shared_ptr<Storage>> clients;
      for (int i = 0; i < kRacers; ++i) clients.push_back(s3(b, prefix));  // no lock between them
      std::barrier start(kRacers);
      std::atomic<int> wins{0}, refused{0};
      std::vector<std::thread> threads;
      for (int i = 0; i < kRacers; ++i)
        threads.emplace_back([&, i] {
          start.arrive_and_wait();
          try {
            op(*clients[i], i);
            ++wins;
          } catch (const RefError&) {
            ++refused;
          }
        });
      for (auto& t : threads) t.join();
      CHECK(wins + refused == kRacers);
      return wins.load();
    };
    const std::string s0 = kInitialSnapshotId;
    CHECK(race([&](Storage& st, int) { create_branch(st, "raced", s0); }) == 1);
    CHECK(race([&](Storage& st, int) { create_tag(st, "tether.raced", s0); }) == 1);
    // Every racer moves the branch from s0 to s0 expecting s0: all may win (the move is a
    // no-op), so race tags instead: distinct names all land, none is lost.
    CHECK(race([&](Storage& st, int i) { create_tag(st, "tether.many." + std::to_string(i), s0); }) == kRacers);
    Repository r = Repository::open(s3(b, prefix));
    CHECK(r.branch("raced") == s0);
    CHECK(r.tag("tether.raced") == s0);
    for (int i = 0; i < kRacers; ++i) CHECK(r.tag("tether.many." + std::to_string(i)) == s0);
    if (spec == 2) CHECK(r.ops_log().size() == 1 + 2 + kRacers);
  }
}

TEST_CASE("create on a bucket prefix: refused where anything is; reads back; owner marker") {
  std::string b = new_bucket("create");
  auto st = s3(b, "lab/new.icechunk");
  CHECK(st->vacant());
  CHECK(create_repository(*st, "tether.owner", "0a1b2c3d") == kInitialSnapshotId);
  CHECK_FALSE(st->vacant());
  CHECK_THROWS_WITH(create_repository(*st, "tether.owner", "ffffffff"), doctest::Contains("not empty"));
  Repository r = Repository::open(s3(b, "lab/new.icechunk"));
  CHECK(r.format() == 2);
  CHECK(r.branches() == std::map<std::string, std::string>{{"main", std::string(kInitialSnapshotId)}});
  CHECK(repository_metadata_string(*s3(b, "lab/new.icechunk"), "tether.owner") == "0a1b2c3d");
  // a sibling whose name starts the same is another place
  auto sibling = s3(b, "lab/new.icechunk2");
  CHECK(sibling->vacant());
  CHECK_THROWS_WITH(Repository::open(sibling), doctest::Contains("is not an Icechunk repository"));
  // remove_all takes exactly the repository's objects
  put_object(b, "lab/new.icechunk2/keep", "x");
  st->remove_all();
  CHECK(st->vacant());
  CHECK_FALSE(sibling->vacant());
}

TEST_CASE("hostile objects: garbage for the repo file, a snapshot, a ref, a transaction log is one line, never a crash") {
  std::string b = new_bucket("hostile");
  auto make = [&](const std::string& prefix) {
    create_repository(*s3(b, prefix), "tether.owner", "0a1b2c3d");
    return s3(b, prefix);
  };
  auto one_line = [](const std::string& m) {
    CHECK(m.find('\n') == std::string::npos);
    CHECK(m.size() < 400);
  };
  // garbage as `repo`
  make("bad-repo");
  put_object(b, "bad-repo/repo", std::string("\x00\xff garbage <xml/> ", 17) + std::string(100, 'A'));
  try {
    Repository::open(s3(b, "bad-repo"));
    FAIL("garbage opened");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(b, "bad-repo") + "/repo") != std::string::npos);
    one_line(e.what());
  }
  CHECK_THROWS_AS(create_tag(*s3(b, "bad-repo"), "tether.x", kInitialSnapshotId), FormatError);
  // a valid header with a zstd bomb-free but corrupt body as a snapshot
  auto st = make("bad-snap");
  std::string header("ICE\xF0\x9F\xA7\x8A" "CHUNK", 12);
  header += std::string("ic-2.2.2") + std::string(16, ' ') + std::string("\x02\x01\x01", 3);
  put_object(b, std::string("bad-snap/snapshots/") + kInitialSnapshotId, header + "not zstd at all");
  Repository r = Repository::open(s3(b, "bad-snap"));
  try {
    r.read_snapshot(kInitialSnapshotId);
    FAIL("garbage snapshot read");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(b, "bad-snap") + "/snapshots/" + kInitialSnapshotId) != std::string::npos);
    one_line(e.what());
  }
  auto check = check_snapshot(r, kInitialSnapshotId, true);
  CHECK_FALSE(check.ok);
  one_line(check.problem);
  // a transaction log that is garbage (another file type) in a copied fixture: the diff
  // through it fails with one line naming it
  if (auto dir = fixtures()) {
    REQUIRE(aws({"s3", "cp", "--quiet", "--recursive", (*dir / "test-repo-v2").string(), "s3://" + b + "/bad-log/"}).ok());
    Repository good = Repository::open(s3(b, "bad-log"));
    auto chain = good.ancestry(*good.branch("main"));
    REQUIRE(chain.size() >= 2);
    std::string log_header("ICE\xF0\x9F\xA7\x8A" "CHUNK", 12);
    log_header += std::string("ic-2.2.2") + std::string(16, ' ') + std::string("\x02\x02\x01", 3);  // a manifest
    put_object(b, "bad-log/transactions/" + chain[0].id, log_header + "x");
    try {
      diff_snapshots(Repository::open(s3(b, "bad-log")), chain[1].id, chain[0].id);
      FAIL("a garbage transaction log diffed");
    } catch (const BadSnapshotChain&) {
      FAIL("not a chain problem");
    } catch (const FormatError& e) {
      CHECK(std::string(e.what()).find(uri(b, "bad-log") + "/transactions/" + chain[0].id) != std::string::npos);
      one_line(e.what());
    }
  }
  // a spec-1 ref that is not JSON, and one naming no snapshot
  put_object(b, "bad-ref/snapshots/" + std::string(kInitialSnapshotId), "irrelevant");
  put_object(b, "bad-ref/refs/branch.main/ref.json", "{\"snapshot\": 12}");
  try {
    Repository::open(s3(b, "bad-ref"));
    FAIL("a bad ref opened");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(b, "bad-ref") + "/refs/branch.main/ref.json") != std::string::npos);
    one_line(e.what());
  }
  put_object(b, "bad-ref/refs/branch.main/ref.json", "{\"snapshot\": \"../../../../etc/passwd\"}");
  CHECK_THROWS_WITH(Repository::open(s3(b, "bad-ref")), doctest::Contains("which is not a snapshot id"));
}

TEST_CASE("store failures: one line naming the repository and the way out, no secret") {
  std::string b = new_bucket("fail");
  os::Options wrong = options();
  wrong.values["secret_access_key"] = "sEcReTsEcReTsEcReT";
  try {
    Repository::open(s3(b, "x.icechunk", wrong));
    FAIL("wrong keys read");
  } catch (const StorageError& e) {
    std::string m = e.what();
    CHECK(m.find("s3://" + b + "/x.icechunk") != std::string::npos);
    CHECK(m.find("access denied") != std::string::npos);
    CHECK(m.find("[uris.\"s3://" + b + "/\"]") != std::string::npos);  // the way out
    CHECK(m.find("sEcReT") == std::string::npos);
    CHECK(m.find('\n') == std::string::npos);
  }
  CHECK_THROWS_WITH_AS(Repository::open(s3("ick-no-such-bucket-" + std::to_string(::getpid()), "x.icechunk")),
                       doctest::Contains("the bucket does not exist"), StorageError);
}

TEST_CASE("real Icechunk: creates and commits in the bucket, tether pins and forks, Icechunk reads and builds on them") {
  if (!have_icechunk()) return;
  std::string b = new_bucket("oracle");
  for (int spec : {1, 2}) {
    CAPTURE(spec);
    std::string prefix = "exp/arrays-v" + std::to_string(spec) + ".icechunk";
    std::string u = uri(b, prefix);
    icechunk({"create", u, std::to_string(spec)});
    std::string s1 = snap(icechunk({"write", u, "main", "0", "first"}));
    std::string s2 = snap(icechunk({"write", u, "main", "1", "second"}));
    auto st = s3(b, prefix);
    Repository r = Repository::open(st);
    CHECK(r.format() == spec);
    CHECK(r.branch("main") == s2);
    auto hist = r.ancestry(s2);
    json theirs = icechunk({"ancestry", u, s2});
    REQUIRE(hist.size() == theirs.size());
    for (std::size_t i = 0; i < hist.size(); ++i) {
      CHECK(hist[i].id == theirs[i]["id"].get<std::string>());
      CHECK(hist[i].message == theirs[i]["message"].get<std::string>());
    }
    SnapshotDiff d = diff_snapshots(r, s1, s2);
    json their_diff = icechunk({"diff", u, s1, s2});
    CHECK(d.new_groups == their_diff["newGroups"].get<std::set<std::string>>());
    CHECK(d.new_arrays == their_diff["newArrays"].get<std::set<std::string>>());

    // tether pins and forks; real Icechunk lists both
    create_tag(*st, "tether.0a1b2c3d.pin", s2);
    create_branch(*st, "tether.ws.0a1b2c3d.work", s2);
    json refs = icechunk({"refs", u});
    CHECK(refs["tags"]["tether.0a1b2c3d.pin"] == s2);
    CHECK(refs["branches"]["tether.ws.0a1b2c3d.work"] == s2);
    // real Icechunk commits on tether's fork; tether fast-forwards main to it (CAS on s2)
    std::string s3id = snap(icechunk({"write", u, "tether.ws.0a1b2c3d.work", "2", "on the fork"}));
    reset_branch(*st, "main", s3id, s2);
    CHECK(icechunk({"refs", u})["branches"]["main"] == s3id);
    // real Icechunk commits on main after that; tether's stale CAS loses and names the tip
    std::string s4 = snap(icechunk({"write", u, "main", "3", "after the promote"}));
    try {
      reset_branch(*st, "main", s2, s3id);
      FAIL("a stale CAS moved main");
    } catch (const RefError& e) {
      CHECK(e.kind() == RefError::Kind::Conflict);
      CHECK(e.actual() == s4);
    }
    Repository now = Repository::open(s3(b, prefix));
    auto h = now.ancestry(s4);
    REQUIRE(h.size() >= 4);
    CHECK(h[1].id == s3id);
    CHECK(h[2].id == s2);
  }
}

TEST_CASE("real Icechunk: a diff through more transaction logs than one fetch window, one gone, one garbage") {
  if (!have_icechunk()) return;
  std::string b = new_bucket("window");
  std::string u = uri(b, "long.icechunk");
  icechunk({"create", u, "2"});
  // 140 commits, commit i writing chunk i of /data: the diff from the first reads the 139
  // logs after it, fetched concurrently in two windows (128 and 11).
  auto snaps = icechunk({"write-many", u, "main", "0", "140"})["snapshots"].get<std::vector<std::string>>();
  REQUIRE(snaps.size() == 140);
  const std::string from = snaps.front(), to = snaps.back();
  SnapshotDiff d = diff_snapshots(Repository::open(s3(b, "long.icechunk")), from, to);
  json theirs = icechunk({"diff", u, from, to});
  CHECK(d.new_groups == theirs["newGroups"].get<std::set<std::string>>());
  CHECK(d.new_arrays == theirs["newArrays"].get<std::set<std::string>>());
  std::set<std::vector<uint32_t>> want;
  for (uint32_t i = 1; i < 140; ++i) want.insert({i});
  CHECK(d.updated_chunks["/data"] == want);
  CHECK(d.missing_logs.empty());
  // A log gone in the middle of the first window: the rest still counts, and it is named.
  REQUIRE(aws({"s3", "rm", "--quiet", "s3://" + b + "/long.icechunk/transactions/" + snaps[70]}).ok());
  d = diff_snapshots(Repository::open(s3(b, "long.icechunk")), from, to);
  want.erase({70});
  CHECK(d.updated_chunks["/data"] == want);
  CHECK(d.missing_logs == std::vector<std::string>{snaps[70]});
  // Garbage (a manifest's header) as a log in the second window: one line naming it.
  std::string header("ICE\xF0\x9F\xA7\x8A" "CHUNK", 12);
  header += std::string("ic-2.2.2") + std::string(16, ' ') + std::string("\x02\x02\x01", 3);
  put_object(b, "long.icechunk/transactions/" + snaps[5], header + "x");
  try {
    diff_snapshots(Repository::open(s3(b, "long.icechunk")), from, to);
    FAIL("a garbage transaction log diffed");
  } catch (const BadSnapshotChain&) {
    FAIL("not a chain problem");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(u + "/transactions/" + snaps[5]) != std::string::npos);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

TEST_CASE("real Icechunk committing while tether pins on the same bucket: nothing lost, in either format") {
  if (!have_icechunk()) return;
  std::string b = new_bucket("busy");
  for (int spec : {1, 2}) {
    CAPTURE(spec);
    std::string prefix = "busy-v" + std::to_string(spec) + ".icechunk";
    std::string u = uri(b, prefix);
    icechunk({"create", u, std::to_string(spec)});
    std::string s1 = snap(icechunk({"write", u, "main", "0", "first"}));
    icechunk({"branch", u, "feature", s1});
    auto st = s3(b, prefix);
    std::vector<std::string> pins;
    std::atomic<bool> done{false};
    // Tags for as long as Icechunk is writing (at least 10, at most 300), with a pause
    // between them: a writer that rewrites `repo` back to back can starve another's
    // optimistic commits (each of Icechunk's tries would lose), which is not what is tested.
    std::thread tagger([&] {
      for (int i = 0; i < 300 && (i < 10 || !done); ++i) {
        std::string name = "tether.0a1b2c3d." + std::to_string(1000 + i);
        create_tag(*st, name, s1);
        pins.push_back(name);
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
      }
    });
    ProcessResult res = run_process(
        {env("TETHER_ICECHUNK_NODE"), env("TETHER_ICECHUNK_ORACLE"), "write-many", u, "feature", "100", "8"});
    done = true;
    tagger.join();
    INFO(res.err);
    REQUIRE(res.ok());
    auto snaps = json::parse(res.out)["snapshots"].get<std::vector<std::string>>();
    REQUIRE(snaps.size() == 8);
    Repository r = Repository::open(s3(b, prefix));
    std::size_t tags_kept = 0, commits_kept = 0;
    for (const auto& name : pins) tags_kept += r.tag(name).has_value();
    for (const auto& s : snaps) commits_kept += r.has_snapshot(s) ? 1 : 0;
    MESSAGE("spec ", spec, ": ", pins.size(), " tether tags while real Icechunk made 8 commits");
    CHECK(tags_kept == pins.size());
    CHECK(commits_kept == snaps.size());
    CHECK(r.branch("feature") == snaps.back());
    CHECK(r.ancestry(snaps.back()).size() == 8 + 2);  // + s1 and the root
    CHECK(icechunk({"refs", u})["tags"].size() == pins.size());
  }
}

int main(int argc, char** argv) {
  if (!cluster().present()) {
    std::fprintf(stderr, "icechunk s3 test: no S3 cluster (run it through tests/s3/with-cluster) -- skipped\n");
    return 77;
  }
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
