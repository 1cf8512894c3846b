// The reader and the writer on repositories in Azure Blob storage: Microsoft's emulator,
// Azurite (tests/azure/with-azurite; exits 77, skipped, without it). Each test case makes its
// own container. There is no independent Azure client on this machine, so fixtures are
// copied in and hostile objects planted with tether's own objstore client through a Store of
// its own (no cache shared with the storage under test); the checks are on what the reader
// and writer make of them, and on the objects as listed afterwards. The case marked "real
// Icechunk" also needs tests/icechunk's runtime and says so when it is missing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "diff.hpp"
#include "ids.hpp"
#include "repository.hpp"
#include "storage.hpp"
#include "writer.hpp"
#include "tether/support/objstore.hpp"
#include "tether/support/process.hpp"

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

os::Options options() {
  os::Options o;
  o.values["endpoint"] = env("TETHER_TEST_AZURE_ENDPOINT");
  o.values["account_name"] = env("TETHER_TEST_AZURE_ACCOUNT");
  o.values["account_key"] = env("TETHER_TEST_AZURE_KEY");
  o.values["allow_http"] = "true";
  return o;
}

os::Environment no_env() {
  os::Environment e;
  e.getenv = [](const std::string&) { return std::optional<std::string>(); };
  return e;
}

std::shared_ptr<os::Store> store_of(const std::string& container, const os::Options& o = options()) {
  return os::open(*os::parse_location("az://" + container + "/"), o, no_env());
}

// A new container (3-63 of a-z, 0-9, '-').
std::string new_container(const std::string& stem) {
  static std::atomic<int> n{0};
  std::string c = "ick-" + stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  store_of(c)->create_bucket();
  return c;
}

std::string uri(const std::string& container, const std::string& prefix) { return "az://" + container + "/" + prefix; }

// A fresh storage (its own Store, its own cache) for the repository under `prefix`.
std::shared_ptr<Storage> az(const std::string& container, const std::string& prefix, const os::Options& o = options(),
                            uint64_t read_part_bytes = 0) {
  return object_storage(store_of(container, o), prefix, uri(container, prefix), read_part_bytes);
}

void put_object(const std::string& container, const std::string& key, const std::string& bytes) {
  store_of(container)->put(key, bytes);
}

// Every file under `dir`, as objects under `prefix/`.
void upload(const fs::path& dir, const std::string& container, const std::string& prefix) {
  auto store = store_of(container);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    store->put(prefix + "/" + e.path().lexically_relative(dir).string(), bytes);
  }
}

std::vector<std::string> keys_under(const std::string& container, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& o : store_of(container)->list_all(prefix)) out.push_back(o.key);
  return out;
}

std::size_t count_with(const std::vector<std::string>& keys, const std::string& part) {
  return static_cast<std::size_t>(
      std::count_if(keys.begin(), keys.end(), [&](const std::string& k) { return k.find(part) != std::string::npos; }));
}

std::optional<fs::path> fixtures() {
  fs::path d = env("TETHER_ICECHUNK_FIXTURES");
  if (d.empty() || !fs::exists(d / "expected.json")) {
    MESSAGE("icechunk fixtures not found (TETHER_ICECHUNK_FIXTURES): case skipped");
    return std::nullopt;
  }
  return d;
}

void one_line(const std::string& m) {
  CHECK(m.find('\n') == std::string::npos);
  CHECK(m.size() < 500);
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

}  // namespace

TEST_CASE("create on a container prefix: refused where anything is; reads back; owner marker; remove_all") {
  std::string c = new_container("create");
  auto st = az(c, "lab/new.icechunk");
  CHECK(st->vacant());
  CHECK(create_repository(*st, "tether.owner", "0a1b2c3d") == kInitialSnapshotId);
  CHECK_FALSE(st->vacant());
  CHECK_THROWS_WITH(create_repository(*st, "tether.owner", "ffffffff"), doctest::Contains("not empty"));
  Repository r = Repository::open(az(c, "lab/new.icechunk"));
  CHECK(r.root() == uri(c, "lab/new.icechunk"));
  CHECK(r.format() == 2);
  CHECK(r.branches() == std::map<std::string, std::string>{{"main", std::string(kInitialSnapshotId)}});
  CHECK(r.read_snapshot(kInitialSnapshotId).info.message == "Repository initialized");
  CHECK(repository_metadata_string(*az(c, "lab/new.icechunk"), "tether.owner") == "0a1b2c3d");
  auto keys = keys_under(c, "lab/new.icechunk/");
  CHECK(count_with(keys, "lab/new.icechunk/repo") == 1);
  CHECK(count_with(keys, std::string("lab/new.icechunk/snapshots/") + kInitialSnapshotId) == 1);
  CHECK(count_with(keys, std::string("lab/new.icechunk/transactions/") + kInitialSnapshotId) == 1);
  // a sibling whose name starts the same is another place
  auto sibling = az(c, "lab/new.icechunk2");
  CHECK(sibling->vacant());
  CHECK_THROWS_WITH(Repository::open(sibling), doctest::Contains("is not an Icechunk repository"));
  put_object(c, "lab/new.icechunk2/keep", "x");
  st->remove_all();
  CHECK(st->vacant());
  CHECK_FALSE(sibling->vacant());
}

TEST_CASE("the ref lifecycle on a repository tether created: pin, fork, fast-forward with If-Match, stale moves lose") {
  std::string c = new_container("life");
  const std::string prefix = "exp/life.icechunk";
  auto st = az(c, prefix);
  // Only the initial snapshot here (tether makes no commits); the fixture case below moves
  // refs across real history.
  const std::string s0 = create_repository(*st, "tether.owner", "0a1b2c3d");
  create_tag(*st, "tether.0a1b2c3d.pin", s0);
  create_branch(*st, "tether.ws.0a1b2c3d.work", s0);
  try {
    create_tag(*st, "tether.0a1b2c3d.pin", s0);
    FAIL("a tag was created twice");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::Exists);
  }
  try {
    create_branch(*st, "tether.ws.0a1b2c3d.work", s0);
    FAIL("a branch was created twice");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::Exists);
  }
  // gc: a pin's tag deleted, its name never reused
  create_tag(*st, "tether.0a1b2c3d.gone", s0);
  delete_tag(*st, "tether.0a1b2c3d.gone");
  try {
    create_tag(*st, "tether.0a1b2c3d.gone", s0);
    FAIL("a deleted tag name was reused");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::PreviouslyDeleted);
  }
  try {
    delete_tag(*st, "tether.0a1b2c3d.gone");
    FAIL("a deleted tag was deleted again");
  } catch (const RefError& e) {
    CHECK(e.kind() == RefError::Kind::NotFound);
  }
  delete_branch(*st, "tether.ws.0a1b2c3d.work", s0);
  CHECK_THROWS_AS(create_tag(*st, "t", "0000000000000000000G"), RefError);  // no such snapshot

  // Another client, no shared cache: every change is there, each `repo` rewrite kept its
  // predecessor under overwritten/ (create_repository wrote the first `repo`).
  Repository r = Repository::open(az(c, prefix));
  CHECK(r.tag("tether.0a1b2c3d.pin") == s0);
  CHECK_FALSE(r.tag("tether.0a1b2c3d.gone").has_value());
  CHECK(r.deleted_tags() == std::vector<std::string>{"tether.0a1b2c3d.gone"});
  CHECK_FALSE(r.branch("tether.ws.0a1b2c3d.work").has_value());
  auto ops = r.ops_log();
  REQUIRE(ops.size() == 6);
  CHECK(ops[0].type == "BranchDeletedUpdate");
  CHECK(ops[1].type == "TagDeletedUpdate");
  CHECK(ops[5].type == "RepoInitializedUpdate");
  auto keys = keys_under(c, prefix + "/");
  CHECK(count_with(keys, "/overwritten/repo.") == 5);
  CHECK(count_with(keys, "#") == 0);  // no staging names on a store
}

TEST_CASE("tags and branches on a copied fixture, in both formats, as the local writer makes them") {
  auto dir = fixtures();
  if (!dir) return;
  for (const char* name : {"test-repo-v1", "test-repo-v2"}) {
    CAPTURE(name);
    std::string c = new_container("refs");
    upload(*dir / name, c, "r.icechunk");
    auto st = az(c, "r.icechunk");
    Repository before = Repository::open(st);
    Repository local = Repository::open((*dir / name).string());
    CHECK(before.branches() == local.branches());
    CHECK(before.tags() == local.tags());
    std::string main = *before.branch("main");
    auto chain = before.ancestry(main);
    REQUIRE(chain.size() > 1);
    CHECK(chain.size() == local.ancestry(main).size());
    std::string parent = chain[1].id;

    // pin, fork at the parent, then promote: the fork fast-forwards to main with If-Match on
    // what was read; a stale expectation loses and names where the branch is
    create_tag(*st, "tether.0a1b2c3d.pin", main);
    create_branch(*st, "tether.ws.0a1b2c3d.work", parent);
    reset_branch(*st, "tether.ws.0a1b2c3d.work", main, parent);
    try {
      reset_branch(*st, "tether.ws.0a1b2c3d.work", parent, parent);
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
    // main itself moves back and forth under If-Match
    reset_branch(*st, "main", parent, main);
    reset_branch(*st, "main", main, parent);

    Repository after = Repository::open(az(c, "r.icechunk"));
    CHECK(after.tag("tether.0a1b2c3d.pin") == main);
    CHECK(after.branch("tether.ws.0a1b2c3d.work") == main);
    CHECK_FALSE(after.branch("tether.ws.0a1b2c3d.tmp").has_value());
    CHECK(std::count(after.deleted_tags().begin(), after.deleted_tags().end(), "tether.0a1b2c3d.gone") == 1);
    CHECK(after.branch("main") == main);
    auto keys = keys_under(c, "r.icechunk/");
    if (std::string(name) == "test-repo-v1") {
      CHECK(count_with(keys, "refs/tag.tether.0a1b2c3d.pin/ref.json") == 1);
      CHECK(count_with(keys, "refs/tag.tether.0a1b2c3d.gone/ref.json.deleted") == 1);
      CHECK(count_with(keys, "refs/branch.tether.ws.0a1b2c3d.tmp/") == 0);
    } else {
      std::size_t before_backups = 0;
      for (const auto& e : fs::directory_iterator(*dir / name / "overwritten")) before_backups += e.is_regular_file();
      CHECK(count_with(keys, "/overwritten/repo.") == before_backups + 9);  // one per change
    }
    CHECK(count_with(keys, "#") == 0);
  }
}

TEST_CASE("two writers with their own clients: exactly one create and one conditional move win") {
  std::string c = new_container("race");
  for (int spec : {1, 2}) {
    CAPTURE(spec);
    std::string prefix = "race-v" + std::to_string(spec);
    auto creator = az(c, prefix);
    if (spec == 2) {
      create_repository(*creator, "tether.owner", "0a1b2c3d");
    } else {
      // A spec-1 repository: the initial snapshot of a spec-2 one, with a spec-1 ref to it.
      auto tmpst = az(c, prefix + "-tmp");
      create_repository(*tmpst, "tether.owner", "0a1b2c3d");
      auto snapshot = tmpst->read(std::string("snapshots/") + kInitialSnapshotId);
      REQUIRE(creator->create(std::string("snapshots/") + kInitialSnapshotId, *snapshot));
      std::string ref = std::string("{\"snapshot\":\"") + kInitialSnapshotId + "\"}";
      REQUIRE(creator->create("refs/branch.main/ref.json", Bytes(ref.begin(), ref.end())));
    }
    REQUIRE(Repository::open(az(c, prefix)).format() == spec);
    constexpr int kRacers = 6;
    auto race = [&](auto&& op) {
      std::vector<std::shared_ptr<Storage>> clients;
      for (int i = 0; i < kRacers; ++i) clients.push_back(az(c, prefix));  // no lock between them
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
    CHECK(race([&](Storage& st, int i) { create_tag(st, "tether.many." + std::to_string(i), s0); }) == kRacers);
    // Spec 2: each racer deletes the branch it read at s0 by rewriting `repo` with If-Match:
    // exactly one finds it. (A spec-1 delete is a check then an unconditional delete.)
    if (spec == 2) CHECK(race([&](Storage& st, int) { delete_branch(st, "raced", s0); }) == 1);
    Repository r = Repository::open(az(c, prefix));
    CHECK(r.branch("raced").has_value() == (spec == 1));
    CHECK(r.tag("tether.raced") == s0);
    for (int i = 0; i < kRacers; ++i) CHECK(r.tag("tether.many." + std::to_string(i)) == s0);
    if (spec == 2) CHECK(r.ops_log().size() == 1 + 2 + kRacers + 1);
  }
}

TEST_CASE("hostile objects: garbage for the repo file, a snapshot, a ref is one line naming it, never a crash") {
  std::string c = new_container("hostile");
  create_repository(*az(c, "bad-repo"), "tether.owner", "0a1b2c3d");
  put_object(c, "bad-repo/repo", std::string("\x00\xff garbage <xml/> ", 17) + std::string(100, 'A'));
  try {
    Repository::open(az(c, "bad-repo"));
    FAIL("garbage opened");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(c, "bad-repo") + "/repo") != std::string::npos);
    one_line(e.what());
  }
  CHECK_THROWS_AS(create_tag(*az(c, "bad-repo"), "tether.x", kInitialSnapshotId), FormatError);

  create_repository(*az(c, "bad-snap"), "tether.owner", "0a1b2c3d");
  std::string header("ICE\xF0\x9F\xA7\x8A" "CHUNK", 12);
  header += std::string("ic-2.2.2") + std::string(16, ' ') + std::string("\x02\x01\x01", 3);
  put_object(c, std::string("bad-snap/snapshots/") + kInitialSnapshotId, header + "not zstd at all");
  Repository r = Repository::open(az(c, "bad-snap"));
  try {
    r.read_snapshot(kInitialSnapshotId);
    FAIL("garbage snapshot read");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(c, "bad-snap") + "/snapshots/" + kInitialSnapshotId) != std::string::npos);
    one_line(e.what());
  }
  auto check = check_snapshot(r, kInitialSnapshotId, true);
  CHECK_FALSE(check.ok);
  one_line(check.problem);

  put_object(c, "bad-ref/snapshots/" + std::string(kInitialSnapshotId), "irrelevant");
  put_object(c, "bad-ref/refs/branch.main/ref.json", "{\"snapshot\": 12}");
  try {
    Repository::open(az(c, "bad-ref"));
    FAIL("a bad ref opened");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find(uri(c, "bad-ref") + "/refs/branch.main/ref.json") != std::string::npos);
    one_line(e.what());
  }
  put_object(c, "bad-ref/refs/branch.main/ref.json", "{\"snapshot\": \"../../../../etc/passwd\"}");
  CHECK_THROWS_WITH(Repository::open(az(c, "bad-ref")), doctest::Contains("which is not a snapshot id"));
}

TEST_CASE("store failures: a missing container and a wrong key are one line naming the repository and the way out, no key") {
  std::string c = new_container("fail");
  create_repository(*az(c, "x.icechunk"), "tether.owner", "0a1b2c3d");
  const std::string wrong = "V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5MDA=";
  os::Options bad = options();
  bad.values["account_key"] = wrong;
  for (auto op : {0, 1, 2}) {
    CAPTURE(op);
    try {
      auto st = az(c, "x.icechunk", bad);
      if (op == 0) Repository::open(st);
      if (op == 1) create_tag(*st, "tether.x", kInitialSnapshotId);
      if (op == 2) st->vacant();
      FAIL("a wrong key was accepted");
    } catch (const StorageError& e) {
      std::string m = e.what();
      CHECK(m.find(uri(c, "x.icechunk")) != std::string::npos);
      CHECK(m.find("access denied") != std::string::npos);
      CHECK(m.find("[uris.\"az://" + c + "/\"] (account_name, account_key or sas_token)") != std::string::npos);
      CHECK(m.find(wrong.substr(0, 16)) == std::string::npos);
      CHECK(m.find(env("TETHER_TEST_AZURE_KEY").substr(0, 16)) == std::string::npos);
      CHECK(m.find("AWS_") == std::string::npos);
      one_line(m);
    }
  }
  const std::string missing = "ick-no-such-container-" + std::to_string(::getpid());
  for (auto op : {0, 1, 2}) {
    CAPTURE(op);
    try {
      auto st = az(missing, "x.icechunk");
      if (op == 0) Repository::open(st);
      if (op == 1) create_repository(*st, "tether.owner", "0a1b2c3d");
      if (op == 2) st->vacant();
      FAIL("a missing container was used");
    } catch (const StorageError& e) {
      std::string m = e.what();
      CHECK(m.find(uri(missing, "x.icechunk")) != std::string::npos);
      CHECK(m.find("the container does not exist") != std::string::npos);
      CHECK(m.find("create it, or point `endpoint` in .tether/secrets.toml [uris.\"az://" + missing + "/\"]") !=
            std::string::npos);
      CHECK(m.find(env("TETHER_TEST_AZURE_KEY").substr(0, 16)) == std::string::npos);
      one_line(m);
    }
  }
}

TEST_CASE("large metadata files are read as concurrent ranged parts, byte for byte") {
  std::string c = new_container("parts");
  constexpr uint64_t kPart = 64 << 10;
  std::mt19937_64 rng(42);
  std::string big(1'000'000 + 12'345, '\0');
  for (auto& ch : big) ch = static_cast<char>(rng());
  const std::string id = "0123456789ABCDEFGHJK";
  put_object(c, "p.icechunk/transactions/" + id, big);
  put_object(c, "p.icechunk/transactions/EXACTLY0NEPART00000", std::string(kPart, 'x'));
  put_object(c, "p.icechunk/transactions/SMA11000000000000000", "small");
  put_object(c, "p.icechunk/transactions/EMPTY000000000000000", "");

  auto st = az(c, "p.icechunk", options(), kPart);
  auto got = st->read_immutable("transactions/" + id);
  REQUIRE(got);
  CHECK(got->size() == big.size());
  CHECK(std::string(got->begin(), got->end()) == big);
  const uint64_t parts = (big.size() + kPart - 1) / kPart;
  CHECK(st->ranged_reads() == parts);
  st->read_immutable("transactions/" + id);  // cached: no request
  CHECK(st->ranged_reads() == parts);

  CHECK(st->read_immutable("transactions/EXACTLY0NEPART00000")->size() == kPart);
  CHECK(st->ranged_reads() == parts + 1);
  auto small = st->read_immutable("transactions/SMA11000000000000000");
  CHECK(std::string(small->begin(), small->end()) == "small");
  CHECK(st->ranged_reads() == parts + 2);
  CHECK(st->read_immutable("transactions/EMPTY000000000000000")->empty());
  CHECK_FALSE(st->read_immutable("transactions/ABSENT00000000000000").has_value());

  // The default part size reads the same object in one request.
  auto whole = az(c, "p.icechunk");
  CHECK(whole->read_immutable("transactions/" + id) == got);
  CHECK(whole->ranged_reads() == 1);

  // A real repository read through parts of 100 bytes: every snapshot parses.
  if (auto dir = fixtures()) {
    upload(*dir / "test-repo-v2", c, "v2.icechunk");
    auto tiny = az(c, "v2.icechunk", options(), 100);
    Repository local = Repository::open((*dir / "test-repo-v2").string());
    Repository remote = Repository::open(tiny);
    for (const auto& s : remote.ancestry(*remote.branch("main"))) {
      CAPTURE(s.id);
      CHECK(remote.read_snapshot(s.id).nodes.size() == local.read_snapshot(s.id).nodes.size());
      CHECK(check_snapshot(remote, s.id, true).ok == check_snapshot(local, s.id, true).ok);
    }
    CHECK(tiny->ranged_reads() > 10);
  }
}

TEST_CASE("a metadata file rewritten while it is read in parts: one version whole, never a mix") {
  // Icechunk never rewrites these files (spec-1 expiration aside); a hostile or confused
  // writer may. Two versions of different sizes alternate under a reader using 64 KiB parts:
  // every read is exactly one of them, or one line saying the file changed.
  std::string c = new_container("mix");
  constexpr uint64_t kPart = 64 << 10;
  const std::string a(700'000, 'a'), b(1'000'003, 'b');
  const std::string rel = "transactions/CHANGING000000000000";
  put_object(c, "m.icechunk/" + rel, a);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    auto store = store_of(c);
    for (int i = 0; !stop; ++i) store->put("m.icechunk/" + rel, i % 2 ? a : b);
  });
  int whole_a = 0, whole_b = 0, refused = 0, mixed = 0;
  for (int i = 0; i < 40; ++i) {
    try {
      auto got = az(c, "m.icechunk", options(), kPart)->read_immutable(rel);  // a fresh cache each time
      std::string s = got ? std::string(got->begin(), got->end()) : std::string("absent");
      if (s == a) ++whole_a;
      else if (s == b) ++whole_b;
      else ++mixed;
    } catch (const StorageError& e) {
      CHECK(std::string(e.what()).find(uri(c, "m.icechunk") + "/" + rel + ": changed while tether read it") == 0);
      one_line(e.what());
      ++refused;
    }
  }
  stop = true;
  writer.join();
  MESSAGE(whole_a, " reads of one version, ", whole_b, " of the other, ", refused, " refused");
  CHECK(mixed == 0);
  CHECK(whole_a + whole_b + refused == 40);
}

TEST_CASE("real Icechunk: reads the tag and the branch tether writes in the container") {
  if (!have_icechunk()) return;
  std::string c = new_container("oracle");
  for (int spec : {1, 2}) {
    CAPTURE(spec);
    std::string prefix = "exp/arrays-v" + std::to_string(spec) + ".icechunk";
    std::string u = uri(c, prefix);
    icechunk({"create", u, std::to_string(spec)});
    std::string s1 = snap(icechunk({"write", u, "main", "0", "first"}));
    std::string s2 = snap(icechunk({"write", u, "main", "1", "second"}));
    auto st = az(c, prefix);
    Repository r = Repository::open(st);
    CHECK(r.format() == spec);
    CHECK(r.branch("main") == s2);
    create_tag(*st, "tether.0a1b2c3d.pin", s1);
    create_branch(*st, "tether.ws.0a1b2c3d.work", s1);
    json refs = icechunk({"refs", u});
    CHECK(refs["tags"]["tether.0a1b2c3d.pin"] == s1);
    CHECK(refs["branches"]["tether.ws.0a1b2c3d.work"] == s1);
    // real Icechunk commits on tether's fork; tether moves main there only if main is still s2
    std::string s3 = snap(icechunk({"write", u, "tether.ws.0a1b2c3d.work", "2", "on the fork"}));
    try {
      reset_branch(*st, "main", s3, s1);
      FAIL("a stale CAS moved main");
    } catch (const RefError& e) {
      CHECK(e.kind() == RefError::Kind::Conflict);
      CHECK(e.actual() == s2);
    }
    reset_branch(*st, "main", s3, s2);
    CHECK(icechunk({"refs", u})["branches"]["main"] == s3);
  }
}

int main(int argc, char** argv) {
  if (env("TETHER_TEST_AZURE_ENDPOINT").empty()) {
    std::fprintf(stderr, "icechunk azure test: no Azurite (run it through tests/azure/with-azurite) -- skipped\n");
    return 77;
  }
  doctest::Context ctx;
  ctx.applyCommandLine(argc, argv);
  return ctx.run();
}
