// Tests for the native index scan (vcs/git_index.hpp): on indexes git writes in versions 2, 3
// and 4 its answers equal libgit2's (asked directly here, as GitReader asked before the scan),
// it declines what libgit2 must decide (a split index, a match only without case or only at a
// conflict stage), hostile bytes never crash it, and GitReader::tracked answers from it
// without opening libgit2.
#include "vcs/git_index.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tether/errors.hpp"
#include "tether/support/git2.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/git.hpp"
#include "tether/testing/temp_dir.hpp"
#include "vcs/git_reader.hpp"

namespace fs = std::filesystem;
using namespace tether::vcs;

namespace {

std::string git(const fs::path& dir, const std::vector<std::string>& args) { return tether::testing::git(dir, args); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

unsigned version_of(const std::string& bytes) {
  REQUIRE(bytes.size() >= 12);
  return static_cast<unsigned char>(bytes[7]);
}

// The question as GitReader put it to libgit2 before the scan: stage 0 at the path, or any
// entry under "path/".
std::vector<std::string> via_libgit2(const fs::path& dir, const std::vector<std::string>& paths) {
  static tether::support::git2::Library library;
  git_repository* raw = nullptr;
  REQUIRE(git_repository_open(&raw, dir.c_str()) == 0);
  tether::support::git2::Repository repo(raw);
  git_index* index = nullptr;
  REQUIRE(git_repository_index(&index, raw) == 0);
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::size_t pos = 0;
    std::string prefix = p + "/";
    if (git_index_get_bypath(index, p.c_str(), 0) != nullptr ||
        (git_index_find_prefix(&pos, index, prefix.c_str()) == 0 && git_index_entrycount(index) > 0))
      out.push_back(p);
  }
  git_index_free(index);
  return out;
}

// A repository whose index holds `entries` (paths, no files needed: `--cacheinfo`), at stage
// 0 unless given as "<stage>:<path>".
struct IndexRepo {
  tether::testing::TempDir tmp{"tether-index"};
  fs::path dir = tmp.path();
  std::string blob;
  explicit IndexRepo(const std::vector<std::string>& entries) {
    git(dir, {"init", "-q", "-b", "main"});
    tmp.file("blob.txt", "content\n");
    blob = git(dir, {"hash-object", "-w", "blob.txt"});
    std::string info;
    for (const auto& e : entries) {
      std::string stage = "0", path = e;
      if (e.size() > 2 && e[1] == ':') stage = e.substr(0, 1), path = e.substr(2);
      info += "100644 " + blob + " " + stage + "\t" + path + "\n";
    }
    tether::support::ProcessOptions options;
    options.cwd = dir;
    options.stdin_data = info;
    auto r = tether::support::run_process({"git", "update-index", "--add", "--index-info"}, options);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  std::string bytes() const { return read(dir / ".git" / "index"); }
};

const std::vector<std::string> kProbes = {
    ".tether/secrets.toml", ".tether/workspace.toml", ".tether/ops.jsonl", ".tether/lock", ".tether/cache",
    "sub/.tether/lock",     "sub/.tether/cache",      "a",                 "a/b",          "a/b/c.txt",
    "ab",                   "zz",                     ".tether",           "sub"};

}  // namespace

TEST_CASE("index scan: versions 2, 3 and 4 answer as libgit2 does") {
  const std::string long_name(300, 'x');
  std::string long_path;  // over 4095 bytes: the name-length field saturates
  for (int i = 0; i < 16; ++i) long_path += long_name.substr(0, 250) + "/";
  long_path += "leaf";
  IndexRepo r({".tether/secrets.toml", ".tether/cache/file-hashes.bin", "a/b/c.txt", "ab", "a.txt", "sub/.tether/lock",
               "zz/" + long_path, "sub/file"});
  for (unsigned version : {2u, 3u, 4u}) {
    CAPTURE(version);
    git(r.dir, {"update-index", "--index-version", std::to_string(version)});
    if (version == 3) {
      // Version 3 only when an entry has extended flags: an intent-to-add entry has.
      r.tmp.file("new.txt", "n\n");
      git(r.dir, {"add", "-N", "new.txt"});
    }
    std::string bytes = r.bytes();
    CHECK(version_of(bytes) == version);
    auto answer = index::tracked_paths(bytes, kProbes);
    REQUIRE(answer.has_value());
    CHECK(*answer == via_libgit2(r.dir, kProbes));
    CHECK(*answer == std::vector<std::string>{".tether/secrets.toml", ".tether/cache", "sub/.tether/lock", "a", "a/b",
                                              "a/b/c.txt", "ab", "zz", ".tether", "sub"});
    auto deep = index::tracked_paths(bytes, {"zz/" + long_path, "zz/" + long_path.substr(0, 250)});
    REQUIRE(deep.has_value());
    CHECK(deep->size() == 2);
  }
}

TEST_CASE("index scan: an empty index and one without .tether") {
  IndexRepo r({"data/x.csv"});
  auto answer = index::tracked_paths(r.bytes(), kProbes);
  REQUIRE(answer.has_value());
  CHECK(answer->empty());
  CHECK(via_libgit2(r.dir, kProbes).empty());
}

TEST_CASE("index scan declines what libgit2 must decide") {
  SUBCASE("a match only without case (core.ignorecase decides)") {
    IndexRepo r({".Tether/Lock", "other"});
    CHECK_FALSE(index::tracked_paths(r.bytes(), {".tether/lock"}).has_value());
    CHECK_FALSE(index::tracked_paths(r.bytes(), {".tether"}).has_value());
    // Where the answer is the same either way, it answers.
    auto other = index::tracked_paths(r.bytes(), {"other", "none"});
    REQUIRE(other.has_value());
    CHECK(*other == std::vector<std::string>{"other"});
  }
  SUBCASE("a path only at a conflict stage") {
    IndexRepo r({"1:.tether/lock", "2:.tether/lock", "3:.tether/lock"});
    CHECK_FALSE(index::tracked_paths(r.bytes(), {".tether/lock"}).has_value());
    // Under a directory, any stage counts, as for libgit2.
    auto dir = index::tracked_paths(r.bytes(), {".tether"});
    REQUIRE(dir.has_value());
    CHECK(*dir == via_libgit2(r.dir, {".tether"}));
  }
  SUBCASE("a split index") {
    IndexRepo r({".tether/lock", "data/x"});
    git(r.dir, {"update-index", "--split-index"});
    CHECK_FALSE(index::tracked_paths(r.bytes(), {".tether/lock"}).has_value());
    // GitReader then asks libgit2, as before (libgit2 1.5 cannot read a split index).
    GitReader reader(r.dir);
    CHECK_THROWS_AS(reader.tracked({".tether/lock"}), tether::VcsError);
  }
}

TEST_CASE("index scan: hostile bytes never crash it; what it answers is among the paths asked") {
  IndexRepo r({".tether/lock", ".tether/cache/x", "a/b", "c"});
  git(r.dir, {"add", "blob.txt"});
  git(r.dir, {"commit", "-q", "-m", "one"});  // a TREE extension
  for (unsigned version : {2u, 4u}) {
    CAPTURE(version);
    git(r.dir, {"update-index", "--index-version", std::to_string(version)});
    const std::string good = r.bytes();
    const std::vector<std::string> asked = {".tether/lock", ".tether/cache", "c", "nope"};
    auto whole = index::tracked_paths(good, asked);
    REQUIRE(whole.has_value());
    CHECK(*whole == std::vector<std::string>{".tether/lock", ".tether/cache", "c"});
    auto within = [&](const std::optional<std::vector<std::string>>& got) {
      if (!got) return true;
      for (const auto& p : *got)
        if (std::find(asked.begin(), asked.end(), p) == asked.end()) return false;
      return true;
    };
    // Every truncation: nothing past the end is read (ASan would say), and it declines, or
    // (cut where the entries end and 20 more bytes pass for the hash: the checksum is not
    // verified, as git does not) answers from all the entries, as before.
    for (std::size_t n = 0; n < good.size(); ++n) {
      auto got = index::tracked_paths(good.substr(0, n), asked);
      CAPTURE(n);
      CHECK((!got || *got == *whole));
    }
    // Every byte changed, three ways.
    for (std::size_t i = 0; i < good.size(); ++i)
      for (unsigned char v : {0x00, 0xff, 0x2f}) {
        std::string bad = good;
        bad[i] = static_cast<char>(v);
        CHECK(within(index::tracked_paths(bad, asked)));
      }
    // A huge entry count, a mandatory extension, an unknown version.
    std::string bad = good;
    bad[8] = bad[9] = bad[10] = bad[11] = '\xff';
    CHECK_FALSE(index::tracked_paths(bad, asked).has_value());
    std::string v5 = good;
    v5[7] = 5;
    CHECK_FALSE(index::tracked_paths(v5, asked).has_value());
  }
  // A mandatory extension after the entries ("link" is split index's).
  std::string bytes = r.bytes();
  std::string with_link = bytes.substr(0, bytes.size() - 20) + std::string("link\0\0\0\0", 8) + bytes.substr(bytes.size() - 20);
  CHECK_FALSE(index::tracked_paths(with_link, {".tether/lock"}).has_value());
  std::string with_opt = bytes.substr(0, bytes.size() - 20) + std::string("ZZZZ\0\0\0\0", 8) + bytes.substr(bytes.size() - 20);
  CHECK(index::tracked_paths(with_opt, {".tether/lock"}) == std::optional<std::vector<std::string>>({".tether/lock"}));
}

TEST_CASE("GitReader::tracked reads the index without libgit2, and agrees with it") {
  IndexRepo r({".tether/ops.jsonl", "data/a.csv"});
  GitReader reader(r.dir);
  const std::vector<std::string> asked = {".tether/secrets.toml", ".tether/ops.jsonl", ".tether/cache"};
  CHECK(reader.tracked(asked) == std::vector<std::string>{".tether/ops.jsonl"});
  CHECK(reader.cache_stats().repository_opens == 0);
  CHECK(reader.tracked(asked) == via_libgit2(r.dir, asked));
  // The index changes under it: read again.
  git(r.dir, {"rm", "-q", "--cached", ".tether/ops.jsonl"});
  CHECK(reader.tracked(asked).empty());
  CHECK(reader.cache_stats().repository_opens == 0);
}
