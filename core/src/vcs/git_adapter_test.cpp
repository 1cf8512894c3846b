// Tests for the git adapter against real repositories made with the git command.
#include "vcs/git_adapter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tether/errors.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/git.hpp"
#include "tether/testing/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace tether::vcs;
using tether::support::ProcessOptions;
using tether::support::run_process;

namespace {

class TempRepo {
 public:
  TempRepo() : tmp_("tether-vcs"), dir_(tmp_.path()) { git({"init", "-q", "-b", "main"}); }

  const fs::path& dir() const { return dir_; }

  std::string git(const std::vector<std::string>& args, const fs::path& cwd = {},
                  const std::vector<std::pair<std::string, std::string>>& env = {}) const {
    return tether::testing::git(cwd.empty() ? dir_ : cwd, args, env);
  }

  void write(const std::string& rel, const std::string& content) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary) << content;
  }

  std::string commit_all(const std::string& message) const {
    git({"add", "-A"});
    git({"commit", "-q", "-m", message});
    return git({"rev-parse", "HEAD"});
  }

  // Same, with fixed author and committer dates ("@<seconds> <zone>") and its own identity,
  // so a rewrite that did not carry them over shows.
  std::string commit_all_dated(const std::string& message, const std::string& author_date,
                               const std::string& committer_date) const {
    git({"add", "-A"});
    git({"commit", "-q", "-m", message}, {},
        {{"GIT_AUTHOR_DATE", author_date}, {"GIT_COMMITTER_DATE", committer_date},
         {"GIT_AUTHOR_NAME", "Ada Author"}, {"GIT_AUTHOR_EMAIL", "ada@example.invalid"}});
    return git({"rev-parse", "HEAD"});
  }

  // Content of `path` at `rev`; nullopt when absent.
  std::optional<std::string> show(const std::string& rev, const std::string& path) const {
    std::vector<std::string> argv = {"git", "cat-file", "-p", rev + ":" + path};
    ProcessOptions options;
    options.cwd = dir_;
    auto r = run_process(argv, options);
    if (!r.ok()) return std::nullopt;
    return r.out;
  }

  std::string read(const std::string& rel) const {
    std::ifstream in(dir_ / rel, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

  // Every ref, HEAD, the index and the working tree's status: equal before and after an
  // operation that must change nothing.
  std::string state() const {
    return git({"for-each-ref", "--format=%(refname) %(objectname)"}) + "\n" + git({"rev-parse", "--symbolic-full-name", "HEAD"}) +
           " " + git({"rev-parse", "HEAD"}) + "\n" + git({"ls-files", "-s"}) + "\n" +
           git({"status", "--porcelain"});
  }

  std::vector<std::string> files_in(const std::string& rev) const {
    std::istringstream in(git({"ls-tree", "-r", "--name-only", rev}));
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

 private:
  tether::testing::TempDir tmp_;
  fs::path dir_;
};

}  // namespace

TEST_CASE("detect_vcs finds the work tree from a subdirectory and computes rel") {
  TempRepo repo;
  repo.write("data/set/tether.toml", "version = 5\n");
  repo.commit_all("first");
  auto vcs = detect_vcs(repo.dir() / "data" / "set");
  CHECK(vcs->kind() == "git");
  CHECK(vcs->root() == repo.dir());
  CHECK(vcs->rel() == "data/set");
  CHECK(fs::equivalent(vcs->shared_dir(), repo.dir() / ".git"));
  CHECK(detect_vcs(repo.dir())->rel() == "");
}

TEST_CASE("detect_vcs outside any repository names the path") {
  std::string tmpl = (fs::temp_directory_path() / "tether-novcs-XXXXXX").string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  // A ceiling is not needed: /tmp is not inside a repository on the machines we test on.
  CHECK_THROWS_WITH_AS(detect_vcs(tmpl), ("no git repository found at or above " + tmpl).c_str(), tether::VcsError);
  fs::remove_all(tmpl);
}

TEST_CASE("resolve understands git revision syntax and rejects unknown revisions") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.git({"tag", "-a", "v1", "-m", "annotated"});
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  repo.git({"branch", "side", c1});
  repo.write("a.txt", "3");
  std::string c3 = repo.commit_all("three");
  auto vcs = detect_vcs(repo.dir());
  CHECK(vcs->resolve("HEAD") == c3);
  CHECK(vcs->resolve("HEAD~2") == c1);
  CHECK(vcs->resolve("HEAD^") == c2);
  CHECK(vcs->resolve("main") == c3);
  CHECK(vcs->resolve("side") == c1);
  CHECK(vcs->resolve("v1") == c1);  // an annotated tag peels to its commit
  CHECK(vcs->resolve(c2.substr(0, 8)) == c2);
  CHECK(vcs->resolve(c2) == c2);
  CHECK_THROWS_WITH_AS(vcs->resolve("nope"), "unknown revision 'nope'", tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->resolve("--all"), "unknown revision '--all'", tether::VcsError);
  CHECK_THROWS_AS(vcs->resolve("HEAD~5"), tether::VcsError);
  CHECK(vcs->is_ancestor(c1, c3));
  CHECK(vcs->is_ancestor(c3, c3));
  CHECK_FALSE(vcs->is_ancestor(c3, c1));
  CHECK(vcs->branches() == std::map<std::string, std::string>{{"main", c3}, {"side", c1}});
}

TEST_CASE("head and current_branch on unborn, attached and detached HEAD") {
  TempRepo repo;
  auto vcs = detect_vcs(repo.dir());
  CHECK_FALSE(vcs->head().has_value());
  CHECK(vcs->current_branch() == std::optional<std::string>("main"));
  CHECK_THROWS_WITH_AS(vcs->resolve("HEAD"), "unknown revision 'HEAD'", tether::VcsError);
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  CHECK(vcs->head() == std::optional<std::string>(c1));
  repo.git({"switch", "-q", "--detach", "HEAD"});
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK_FALSE(vcs->current_branch().has_value());

  vcs->create_branch_and_switch("trunk");
  CHECK(vcs->current_branch() == std::optional<std::string>("trunk"));
  CHECK(repo.git({"symbolic-ref", "--short", "HEAD"}) == "trunk");
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK_THROWS_AS(vcs->create_branch_and_switch("-x"), tether::VcsError);
  CHECK_THROWS_AS(vcs->create_branch_and_switch("a..b"), tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->create_branch_and_switch("main"),
                       doctest::Contains("command failed (git switch --create=main): fatal:"), tether::VcsError);
}

TEST_CASE("read_file and manifests_at return the content at a revision") {
  TempRepo repo;
  repo.write("ds/.tether/objects/a.toml", "a1");
  repo.write("ds/.tether/objects/nested/b.toml", "b1");
  repo.write("ds/other.txt", "x");
  std::string c1 = repo.commit_all("one");
  repo.write("ds/.tether/objects/a.toml", "a2");
  fs::remove(repo.dir() / "ds/.tether/objects/nested/b.toml");
  repo.commit_all("two");
  repo.write("ds/.tether/objects/a.toml", "uncommitted");
  auto vcs = detect_vcs(repo.dir() / "ds");

  CHECK(vcs->read_file(c1, "ds/.tether/objects/a.toml") == std::optional<std::string>("a1"));
  CHECK(vcs->read_file("HEAD", "ds/.tether/objects/a.toml") == std::optional<std::string>("a2"));
  CHECK_FALSE(vcs->read_file("HEAD", "ds/.tether/objects/nested/b.toml").has_value());
  CHECK_FALSE(vcs->read_file("HEAD", "ds/.tether").has_value());  // a directory is not a file
  CHECK_FALSE(vcs->read_file("HEAD", "").has_value());

  FileMap at1 = *vcs->manifests_at("HEAD~1", "ds/.tether/objects");
  CHECK(at1 == FileMap{{"a.toml", "a1"}, {"nested/b.toml", "b1"}});
  CHECK(*vcs->manifests_at("HEAD", "ds/.tether/objects") == FileMap{{"a.toml", "a2"}});
  CHECK(vcs->manifests_at("HEAD", "ds/missing")->empty());
  CHECK(vcs->manifests_at("HEAD", "ds/other.txt")->empty());  // not a directory
  CHECK(vcs->manifests_at("HEAD", "")->size() == 2);
  CHECK_THROWS_AS(vcs->manifests_at("nope", "ds"), tether::VcsError);
}

TEST_CASE("manifests_at reads each tree and blob once across a history walk") {
  TempRepo repo;
  repo.write("ds/.tether/objects/a.toml", "a");
  repo.write("ds/.tether/objects/deep/b.toml", "b");
  std::string c1 = repo.commit_all("one");
  repo.write("ds/unrelated.txt", "change outside the manifests");
  std::string c2 = repo.commit_all("two");
  repo.write("ds/.tether/objects/a.toml", "a2");
  std::string c3 = repo.commit_all("three");

  GitAdapter vcs(repo.dir() / "ds", "");
  auto m1 = vcs.manifests_at(c1, "ds/.tether/objects");
  auto stats1 = vcs.cache_stats();
  CHECK(stats1.trees_read == 2);
  CHECK(stats1.blobs_read == 2);
  auto m2 = vcs.manifests_at(c2, "ds/.tether/objects");
  CHECK(m2.get() == m1.get());  // the same subtree: the cached map itself
  CHECK(vcs.cache_stats().trees_read == 2);
  CHECK(vcs.cache_stats().blobs_read == 2);
  CHECK(vcs.cache_stats().tree_hits == stats1.tree_hits + 1);

  auto m3 = vcs.manifests_at(c3, "ds/.tether/objects");
  CHECK(*m3 == FileMap{{"a.toml", "a2"}, {"deep/b.toml", "b"}});
  // Only the changed top tree and the new blob are read; `deep/` comes from the cache.
  CHECK(vcs.cache_stats().trees_read == 3);
  CHECK(vcs.cache_stats().blobs_read == 3);
  CHECK(*m1 == FileMap{{"a.toml", "a"}, {"deep/b.toml", "b"}});
  // A fresh adapter (empty cache) reads the same.
  CHECK(*m1 == *GitAdapter(repo.dir() / "ds", "").manifests_at(c1, "ds/.tether/objects"));
}

TEST_CASE("history is newest first, limited, path-filtered and walks every ref with all") {
  TempRepo repo;
  repo.write("ds/m.toml", "1");
  std::string c1 = repo.commit_all("one\n\nbody of one");
  repo.write("elsewhere.txt", "x");
  std::string c2 = repo.commit_all("two");
  repo.write("ds/m.toml", "2");
  std::string c3 = repo.commit_all("three");
  repo.git({"switch", "-q", "-c", "side", c1});
  repo.write("side.txt", "s");
  std::string s1 = repo.commit_all("side one");
  repo.git({"tag", "lightweight"});
  repo.git({"switch", "-q", "main"});
  repo.git({"branch", "-D", "side"});  // the tag keeps s1 reachable
  auto vcs = detect_vcs(repo.dir());

  auto ids = [](const std::vector<CommitInfo>& cs) {
    std::vector<std::string> out;
    for (const auto& c : cs) out.push_back(c.id);
    return out;
  };
  auto h = vcs->history({});
  CHECK(ids(h) == std::vector<std::string>{c3, c2, c1});
  CHECK(h[0].summary == "three");
  CHECK(h[0].parents == std::vector<std::string>{c2});
  CHECK(h[2].parents.empty());
  CHECK(h[2].summary == "one");
  CHECK(h[2].message == "one\n\nbody of one\n");
  CHECK(h[2].author_name == "Tether Test");
  CHECK(h[2].author_email == "test@tether.invalid");
  CHECK(h[0].time > 0);

  CHECK(ids(vcs->history({.rev = "HEAD", .all = false, .limit = 2, .paths = {}})) == std::vector<std::string>{c3, c2});
  CHECK(ids(vcs->history({.rev = "HEAD~1", .all = false, .limit = 0, .paths = {}})) ==
        std::vector<std::string>{c2, c1});
  CHECK(ids(vcs->history({.rev = "HEAD", .all = false, .limit = 0, .paths = {"ds"}})) ==
        std::vector<std::string>{c3, c1});
  CHECK(ids(vcs->history({.rev = "HEAD", .all = false, .limit = 0, .paths = {"ds/m.toml"}})) ==
        std::vector<std::string>{c3, c1});

  auto all = ids(vcs->history({.rev = "", .all = true, .limit = 0, .paths = {}}));
  CHECK(std::set<std::string>(all.begin(), all.end()) == std::set<std::string>{c1, c2, c3, s1});
  CHECK(all.back() == c1);  // parents after children
}

TEST_CASE("all_commit_ids and history_digest agree with git rev-list --all, worktrees included") {
  TempRepo repo;
  repo.write("a", "1");
  repo.commit_all("one");
  repo.write("a", "2");
  std::string c2 = repo.commit_all("two");
  repo.git({"tag", "-a", "rel/v2", "-m", "nested annotated tag"});
  repo.git({"switch", "-q", "-c", "feature/x"});
  repo.write("b", "1");
  repo.commit_all("feature");
  repo.git({"switch", "-q", "main"});
  // A linked worktree with a detached commit that no ref names: only its HEAD keeps it.
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "--detach", wt.string(), c2});
  repo.write("../" + repo.dir().filename().string() + "-wt/c", "wt");
  repo.git({"add", "c"}, wt);
  repo.git({"commit", "-q", "-m", "worktree only"}, wt);
  std::string wt_commit = repo.git({"rev-parse", "HEAD"}, wt);

  std::istringstream in(repo.git({"rev-list", "--all"}));
  std::set<std::string> expected;
  for (std::string line; std::getline(in, line);) expected.insert(line);
  REQUIRE(expected.count(wt_commit) == 1);

  for (const fs::path& start : {repo.dir(), wt}) {
    auto vcs = detect_vcs(start);
    auto ids = vcs->all_commit_ids();
    CHECK(std::set<std::string>(ids.begin(), ids.end()) == expected);
    CHECK(ids.size() == expected.size());
    // In history()'s order, which verify --all-history lists its records in.
    HistoryQuery all;
    all.all = true;
    std::vector<std::string> in_history;
    for (const auto& c : vcs->history(all)) in_history.push_back(c.id);
    CHECK(ids == in_history);
    // The tips key changes when a ref moves, and only then.
    const auto key = vcs->tips_key();
    REQUIRE(key);
    CHECK(vcs->tips_key() == key);
    repo.git({"branch", "tips-moved", c2});
    CHECK(vcs->tips_key() != key);
    repo.git({"branch", "-D", "tips-moved"});
    CHECK(vcs->tips_key() == key);
    // Independent digest: sort, join without the trailing newline, sha256sum.
    ProcessOptions options;
    options.cwd = start;
    auto r = run_process({"sh", "-c", "printf '%s' \"$(git rev-list --all | LC_ALL=C sort)\" | sha256sum"}, options);
    REQUIRE(r.ok());
    CHECK(vcs->history_digest() == r.out.substr(0, 16));
  }
  auto in_wt = detect_vcs(wt);
  CHECK(in_wt->root() == fs::canonical(wt));
  CHECK(in_wt->head() == std::optional<std::string>(wt_commit));
  CHECK(fs::equivalent(in_wt->shared_dir(), repo.dir() / ".git"));
  fs::remove_all(wt);
}

TEST_CASE("is_dirty sees changes and untracked files under the paths only") {
  TempRepo repo;
  repo.write("ds/tether.toml", "v");
  repo.write("ds/.tether/objects/a.toml", "a");
  repo.write(".gitignore", "*.ignored\n");
  repo.write("outside.txt", "o");
  repo.commit_all("one");
  auto vcs = detect_vcs(repo.dir() / "ds");
  std::vector<std::string> paths = {"ds/.tether/objects", "ds/tether.toml"};
  CHECK_FALSE(vcs->is_dirty(paths));

  repo.write("outside.txt", "changed");
  repo.write("elsewhere/new.txt", "n");
  repo.write("ds/.tether/objects/x.ignored", "i");
  CHECK_FALSE(vcs->is_dirty(paths));  // outside the paths or ignored

  repo.write("ds/.tether/objects/sub/new.toml", "n");
  CHECK(vcs->is_dirty(paths));  // untracked, in a new directory
  fs::remove_all(repo.dir() / "ds/.tether/objects/sub");
  CHECK_FALSE(vcs->is_dirty(paths));

  repo.write("ds/tether.toml", "v2");
  CHECK(vcs->is_dirty(paths));
  repo.git({"add", "ds/tether.toml"});
  CHECK(vcs->is_dirty(paths));  // staged counts too
  repo.git({"commit", "-q", "-m", "two", "--", "ds/tether.toml"});
  CHECK_FALSE(vcs->is_dirty(paths));

  fs::remove(repo.dir() / "ds/.tether/objects/a.toml");
  CHECK(vcs->is_dirty(paths));  // a deletion
}

TEST_CASE("tracked reports files and directories the index holds") {
  TempRepo repo;
  repo.write("ds/.tether/objects/a.toml", "a");
  repo.write("ds/.tether/secrets.toml", "s");
  repo.commit_all("one");
  repo.write("ds/.tether/ops.jsonl", "untracked");
  auto vcs = detect_vcs(repo.dir() / "ds");
  CHECK(vcs->tracked({"ds/.tether/secrets.toml", "ds/.tether/ops.jsonl", "ds/.tether/objects", "ds/.teth",
                      "ds/.tether/objects/a.toml", "nothing"}) ==
        std::vector<std::string>{"ds/.tether/secrets.toml", "ds/.tether/objects", "ds/.tether/objects/a.toml"});
  repo.git({"rm", "-q", "--cached", "ds/.tether/secrets.toml"});
  CHECK(vcs->tracked({"ds/.tether/secrets.toml"}).empty());
}

TEST_CASE("commit records exactly the given paths and leaves the rest of the index alone") {
  TempRepo repo;
  repo.write("ds/tether.toml", "v1");
  repo.write("ds/.tether/objects/a.toml", "a1");
  repo.write("ds/.tether/objects/gone.toml", "g");
  repo.write("staged.txt", "s1");
  repo.write("unstaged.txt", "u1");
  std::string base = repo.commit_all("base");

  repo.write("ds/tether.toml", "v2");
  repo.write("ds/.tether/objects/new/b.toml", "b1");
  fs::remove(repo.dir() / "ds/.tether/objects/gone.toml");
  repo.write("staged.txt", "s2");
  repo.git({"add", "staged.txt"});
  repo.write("unstaged.txt", "u2");
  repo.write("untracked.txt", "t");

  auto vcs = detect_vcs(repo.dir() / "ds");
  std::vector<std::string> paths = {"ds/.tether/objects", "ds/.tether/.gitignore", "ds/tether.toml",
                                    "ds/.tether/listings"};
  auto id = vcs->commit(paths, "-m looks like an option");
  REQUIRE(id.has_value());
  CHECK(*id == repo.git({"rev-parse", "HEAD"}));
  CHECK(repo.git({"rev-parse", "HEAD^"}) == base);
  CHECK(repo.git({"log", "-1", "--format=%B"}) == "-m looks like an option");
  CHECK(repo.git({"diff", "--name-status", "HEAD^", "HEAD"}) ==
        "D\tds/.tether/objects/gone.toml\nA\tds/.tether/objects/new/b.toml\nM\tds/tether.toml");
  // Still staged, still modified, still untracked.
  CHECK(repo.git({"diff", "--cached", "--name-only"}) == "staged.txt");
  CHECK(repo.git({"diff", "--name-only"}) == "unstaged.txt");
  CHECK(repo.git({"ls-files", "--others", "--exclude-standard"}) == "untracked.txt");
  CHECK(vcs->read_file(*id, "ds/.tether/objects/new/b.toml") == std::optional<std::string>("b1"));
  CHECK_FALSE(vcs->is_dirty(paths));

  // Nothing changed under the paths: no commit.
  CHECK_FALSE(vcs->commit(paths, "again").has_value());
  CHECK(repo.git({"rev-parse", "HEAD"}) == *id);
}

TEST_CASE("commit makes the first commit of an unborn branch") {
  TempRepo repo;
  repo.write("tether.toml", "v1");
  repo.write(".tether/objects/a.toml", "a");
  repo.write("other.txt", "not ours");
  auto vcs = detect_vcs(repo.dir());
  auto id = vcs->commit({".tether/objects", "tether.toml"}, "init");
  REQUIRE(id.has_value());
  CHECK(vcs->head() == id);
  CHECK(repo.files_in("HEAD") == std::vector<std::string>{".tether/objects/a.toml", "tether.toml"});
  CHECK(repo.git({"ls-files", "--others"}) == "other.txt");
}

TEST_CASE("a commit the hook rejects is an error quoting git and unstages our paths") {
  TempRepo repo;
  repo.write("tether.toml", "v1");
  repo.write("keep.txt", "k1");
  std::string base = repo.commit_all("base");
  repo.write(".git/hooks/pre-commit", "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n");
  fs::permissions(repo.dir() / ".git/hooks/pre-commit", fs::perms::owner_all);
  repo.write("tether.toml", "v2");
  repo.write("keep.txt", "k2");
  repo.git({"add", "keep.txt"});

  auto vcs = detect_vcs(repo.dir());
  CHECK_THROWS_WITH_AS(vcs->commit({"tether.toml"}, "msg"), doctest::Contains("hook says no"), tether::VcsError);
  CHECK(repo.git({"rev-parse", "HEAD"}) == base);
  CHECK(repo.git({"diff", "--cached", "--name-only"}) == "keep.txt");
  CHECK(repo.git({"diff", "--name-only"}) == "tether.toml");
}

TEST_CASE("commit runs the given git executable and reports a missing one") {
  TempRepo repo;
  repo.write("tether.toml", "v1");
  GitAdapter vcs(repo.dir(), "/nonexistent/git");
  CHECK_THROWS_WITH_AS(vcs.commit({"tether.toml"}, "m"), "executable not found: /nonexistent/git", tether::VcsError);
}

TEST_CASE("the git environment of an outer process cannot redirect tether's git") {
  TempRepo repo;
  TempRepo decoy;
  repo.write("tether.toml", "v1");
  ::setenv("GIT_DIR", (decoy.dir() / ".git").c_str(), 1);
  ::setenv("GIT_INDEX_FILE", (decoy.dir() / ".git" / "index").c_str(), 1);
  std::optional<std::string> id;
  try {
    id = detect_vcs(repo.dir())->commit({"tether.toml"}, "m");
  } catch (...) {
    ::unsetenv("GIT_DIR");
    ::unsetenv("GIT_INDEX_FILE");
    throw;
  }
  ::unsetenv("GIT_DIR");
  ::unsetenv("GIT_INDEX_FILE");
  REQUIRE(id.has_value());
  CHECK(repo.git({"rev-parse", "HEAD"}) == *id);
  CHECK(decoy.git({"rev-list", "--all"}).empty());
}

TEST_CASE("parse_git_version reads git banners") {
  CHECK(parse_git_version("git version 2.39.5") == std::optional<std::vector<int>>({2, 39, 5}));
  CHECK(parse_git_version("git version 2.38") == std::optional<std::vector<int>>({2, 38, 0}));
  CHECK(parse_git_version("git version 2.50.1.windows.1") == std::optional<std::vector<int>>({2, 50, 1}));
  CHECK(parse_git_version("git version 3.0.0 (Apple Git-1)") == std::optional<std::vector<int>>({3, 0, 0}));
  CHECK_FALSE(parse_git_version("not a version").has_value());
  CHECK_FALSE(parse_git_version("git 2").has_value());
}

TEST_CASE("sha256_hex matches a known vector") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // FIPS 180-2's two-block vector and its million a's.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("reads from several threads at once see the same content") {
  TempRepo repo;
  std::vector<std::string> commits;
  for (int i = 0; i < 12; ++i) {
    repo.write("ds/.tether/objects/k" + std::to_string(i % 3) + ".toml", "v" + std::to_string(i));
    repo.write("ds/.tether/objects/fixed/f.toml", "fixed");
    commits.push_back(repo.commit_all("c" + std::to_string(i)));
  }
  std::vector<FileMap> expected;
  {
    GitAdapter reference(repo.dir() / "ds", "");  // another cache: the threads below fill theirs
    for (const auto& c : commits) expected.push_back(*reference.manifests_at(c, "ds/.tether/objects"));
  }
  GitAdapter vcs(repo.dir() / "ds", "");
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        std::size_t i = static_cast<std::size_t>((round + t) % static_cast<int>(commits.size()));
        if (*vcs.manifests_at(commits[i], "ds/.tether/objects") != expected[i]) ++mismatches;
        if (vcs.resolve(commits[i].substr(0, 10)) != commits[i]) ++mismatches;
        if (vcs.history({.rev = commits[i], .all = false, .limit = 0, .paths = {}}).size() != i + 1) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(mismatches.load() == 0);
  CHECK(expected.back() == FileMap{{"fixed/f.toml", "fixed"}, {"k0.toml", "v9"}, {"k1.toml", "v10"}, {"k2.toml", "v11"}});
}

TEST_CASE("a walk over 1,000 commits reads each distinct manifest blob once") {
  TempRepo repo;
  // 1,000 commits through fast-import: 20 manifests, one rewritten every 50th commit, an
  // unrelated file changed in every commit.
  std::string script;
  int distinct = 20;
  for (int i = 0; i < 1000; ++i) {
    script += "commit refs/heads/main\ncommitter T <t@t.invalid> " + std::to_string(1700000000 + i) + " +0000\n";
    script += "data 2\nc\n";
    if (i == 0) {
      for (int k = 0; k < 20; ++k) {
        std::string body = "k" + std::to_string(k) + " v0\n";
        script += "M 100644 inline ds/.tether/objects/k" + std::to_string(k) + ".toml\ndata " +
                  std::to_string(body.size()) + "\n" + body;
      }
    } else if (i % 50 == 0) {
      std::string body = "k" + std::to_string(i % 20) + " v" + std::to_string(i) + "\n";
      script += "M 100644 inline ds/.tether/objects/k" + std::to_string(i % 20) + ".toml\ndata " +
                std::to_string(body.size()) + "\n" + body;
      ++distinct;
    }
    std::string other = "noise " + std::to_string(i) + "\n";
    script += "M 100644 inline ds/data.txt\ndata " + std::to_string(other.size()) + "\n" + other + "\n";
  }
  ProcessOptions options;
  options.cwd = repo.dir();
  options.stdin_data = script;
  auto imported = run_process({"git", "fast-import", "--quiet"}, options);
  REQUIRE_MESSAGE(imported.ok(), imported.err);
  repo.git({"reset", "-q", "--hard", "main"});

  GitAdapter vcs(repo.dir() / "ds", "");
  auto history = vcs.history({.rev = "HEAD", .all = true, .limit = 0, .paths = {}});
  REQUIRE(history.size() == 1000);
  CHECK(history.front().summary == "c");
  CHECK(history.front().time == 1700000999);
  std::size_t records = 0;
  for (const auto& c : history) records += vcs.manifests_at(c.id, "ds/.tether/objects")->size();
  CHECK(records == 20 * 1000);
  auto stats = vcs.cache_stats();
  CHECK(stats.blobs_read == static_cast<std::size_t>(distinct));
  CHECK(stats.trees_read == static_cast<std::size_t>(distinct - 19));  // one objects/ tree per manifest change
  CHECK(stats.tree_hits == 1000 - stats.trees_read);
  CHECK(vcs.history({.rev = "HEAD", .all = false, .limit = 0, .paths = {"ds/.tether/objects"}}).size() == 20);
}

TEST_CASE("bookmarks and current_bookmark leave out tether/ parking branches") {
  TempRepo repo;
  auto vcs = detect_vcs(repo.dir());
  CHECK(vcs->current_bookmark() == std::optional<std::string>("main"));  // unborn still counts
  CHECK(vcs->bookmarks().empty());
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  std::string park = "tether/" + c1.substr(0, 12);
  repo.git({"branch", park});
  repo.git({"branch", "side"});
  repo.git({"branch", "not-tether/x"});
  CHECK(vcs->bookmarks() == std::map<std::string, std::string>{{"main", c1}, {"not-tether/x", c1}, {"side", c1}});
  CHECK(vcs->branches().size() == 4);
  repo.git({"switch", "-q", park});
  CHECK(vcs->current_branch() == std::optional<std::string>(park));
  CHECK_FALSE(vcs->current_bookmark().has_value());
  repo.git({"switch", "-q", "side"});
  CHECK(vcs->current_bookmark() == std::optional<std::string>("side"));
  repo.git({"switch", "-q", "--detach"});
  CHECK_FALSE(vcs->current_bookmark().has_value());
}

TEST_CASE("new_bookmark creates and checks out a bookmark at a revision, carrying local changes") {
  TempRepo repo;
  repo.write("a.txt", "a1");
  repo.write("b.txt", "b1");
  std::string c1 = repo.commit_all("one");
  repo.write("b.txt", "b2");
  std::string c2 = repo.commit_all("two");
  repo.write("a.txt", "local");
  auto vcs = detect_vcs(repo.dir());

  vcs->new_bookmark("feature", std::nullopt);
  CHECK(vcs->current_bookmark() == std::optional<std::string>("feature"));
  CHECK(vcs->head() == std::optional<std::string>(c2));
  vcs->new_bookmark("older", "HEAD~1");
  CHECK(vcs->current_bookmark() == std::optional<std::string>("older"));
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK(vcs->bookmarks() == std::map<std::string, std::string>{{"feature", c2}, {"main", c2}, {"older", c1}});
  CHECK(repo.git({"diff", "--name-only"}) == "a.txt");  // the uncommitted change came along

  CHECK_THROWS_WITH_AS(vcs->new_bookmark("main", std::nullopt), "bookmark 'main' exists", tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->new_bookmark("feature", c1), "bookmark 'feature' exists", tether::VcsError);
  CHECK_THROWS_AS(vcs->new_bookmark("-f", std::nullopt), tether::VcsError);
  CHECK_THROWS_AS(vcs->new_bookmark("a..b", std::nullopt), tether::VcsError);
  CHECK_THROWS_AS(vcs->new_bookmark("tether/x", std::nullopt), tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->new_bookmark("x", "--orphan"), "unknown revision '--orphan'", tether::VcsError);

  // A change the switch would overwrite: refused, and no bookmark is left behind.
  repo.write("b.txt", "mine");
  CHECK_THROWS_WITH_AS(vcs->new_bookmark("fresh", "main"), doctest::Contains("would be overwritten"), tether::VcsError);
  CHECK_FALSE(vcs->branches().contains("fresh"));
  CHECK(vcs->current_bookmark() == std::optional<std::string>("older"));
  CHECK(vcs->head() == std::optional<std::string>(c1));
}

TEST_CASE("switch_to switches to a bookmark and parks any other revision on tether/<sha12>") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  repo.git({"branch", "side", c1});
  auto vcs = detect_vcs(repo.dir());
  const std::string park = "tether/" + c1.substr(0, 12);

  vcs->switch_to("HEAD~1");
  CHECK(vcs->current_branch() == std::optional<std::string>(park));
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK_FALSE(vcs->current_bookmark().has_value());
  CHECK(vcs->bookmarks() == std::map<std::string, std::string>{{"main", c2}, {"side", c1}});
  CHECK(vcs->branches().at(park) == c1);
  vcs->switch_to(c1);  // already parked there: nothing to do
  CHECK(vcs->current_branch() == std::optional<std::string>(park));

  // A commit made while parked moves the parking branch off c1 ...
  repo.write("a.txt", "parked work");
  std::string c3 = repo.commit_all("three");
  CHECK(vcs->branches().at(park) == c3);
  vcs->switch_to("main");
  CHECK(vcs->current_bookmark() == std::optional<std::string>("main"));
  CHECK(vcs->head() == std::optional<std::string>(c2));
  // ... so the next park on c1 takes the next free name, and reuses it afterwards.
  vcs->switch_to(c1.substr(0, 10));
  CHECK(vcs->current_branch() == std::optional<std::string>(park + "-2"));
  CHECK(vcs->head() == std::optional<std::string>(c1));
  vcs->switch_to("side");
  CHECK(vcs->current_bookmark() == std::optional<std::string>("side"));
  vcs->switch_to(c1);
  CHECK(vcs->current_branch() == std::optional<std::string>(park + "-2"));
  CHECK(vcs->branches().at(park) == c3);
  // A parking branch is a revision like any other: switching to it parks on its commit.
  vcs->switch_to(park);
  CHECK(vcs->current_branch() == std::optional<std::string>("tether/" + c3.substr(0, 12)));
  CHECK(vcs->head() == std::optional<std::string>(c3));

  CHECK_THROWS_WITH_AS(vcs->switch_to("nope"), "unknown revision 'nope'", tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->switch_to("--detach"), "unknown revision '--detach'", tether::VcsError);
  repo.write("a.txt", "uncommitted");
  CHECK_THROWS_WITH_AS(vcs->switch_to("main"), doctest::Contains("would be overwritten"), tether::VcsError);
  CHECK(vcs->head() == std::optional<std::string>(c3));
}

TEST_CASE("switch_to does not park on a branch another worktree is on") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  repo.commit_all("two");
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "--detach", wt.string(), "main"});
  auto in_wt = detect_vcs(wt);
  in_wt->switch_to(c1);
  const std::string park = "tether/" + c1.substr(0, 12);
  CHECK(in_wt->current_branch() == std::optional<std::string>(park));
  auto vcs = detect_vcs(repo.dir());
  vcs->switch_to(c1);
  CHECK(vcs->current_branch() == std::optional<std::string>(park + "-2"));
  CHECK(vcs->head() == std::optional<std::string>(c1));
  fs::remove_all(wt);
  repo.git({"worktree", "prune"});
}

TEST_CASE("bookmark_set moves a bookmark only from the expected commit") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  repo.git({"branch", "side", c1});
  auto vcs = detect_vcs(repo.dir());

  vcs->bookmark_set("side", c2, c1);
  CHECK(vcs->bookmarks().at("side") == c2);
  CHECK_THROWS_WITH_AS(vcs->bookmark_set("side", c1, c1),
                       ("bookmark 'side' moved: expected " + c1.substr(0, 12) + ", found " + c2.substr(0, 12)).c_str(),
                       tether::VcsError);
  CHECK(vcs->bookmarks().at("side") == c2);
  vcs->bookmark_set("side", "HEAD~1", c2);  // the target may be any revision
  CHECK(vcs->bookmarks().at("side") == c1);

  CHECK_THROWS_WITH_AS(vcs->bookmark_set("gone", c2, c1),
                       ("bookmark 'gone' does not exist (expected at " + c1.substr(0, 12) + ")").c_str(),
                       tether::VcsError);
  CHECK_FALSE(vcs->branches().contains("gone"));
  CHECK_THROWS_WITH_AS(vcs->bookmark_set("side", c2, "main"),
                       "cannot move bookmark 'side': expected 'main' is not a full commit id", tether::VcsError);
  CHECK_THROWS_AS(vcs->bookmark_set("side", "nope", c1), tether::VcsError);
  CHECK_THROWS_AS(vcs->bookmark_set("tether/x", c2, c1), tether::VcsError);
  CHECK(vcs->bookmarks().at("side") == c1);
  CHECK(vcs->current_bookmark() == std::optional<std::string>("main"));
  CHECK(vcs->head() == std::optional<std::string>(c2));
}

TEST_CASE("bookmark_set of the checked-out bookmark keeps uncommitted changes") {
  TempRepo repo;
  repo.write("a.txt", "a1");
  repo.write("b.txt", "b1");
  std::string c1 = repo.commit_all("one");
  repo.write("b.txt", "b2");
  std::string c2 = repo.commit_all("two");
  repo.write("a.txt", "mine");
  auto vcs = detect_vcs(repo.dir());

  CHECK_THROWS_WITH_AS(vcs->bookmark_set("main", c1, c1),
                       ("bookmark 'main' moved: expected " + c1.substr(0, 12) + ", found " + c2.substr(0, 12)).c_str(),
                       tether::VcsError);
  CHECK(vcs->head() == std::optional<std::string>(c2));

  vcs->bookmark_set("main", c1, c2);
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK(vcs->current_bookmark() == std::optional<std::string>("main"));
  CHECK(vcs->bookmarks().at("main") == c1);
  CHECK(repo.git({"diff", "--name-only", "HEAD"}) == "a.txt");
  CHECK(repo.git({"show", ":b.txt"}) == "b1");  // index and files follow the bookmark

  // A local change the move would overwrite: refused, nothing moves.
  repo.write("b.txt", "mine too");
  CHECK_THROWS_AS(vcs->bookmark_set("main", c2, c1), tether::VcsError);
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK(repo.git({"diff", "--name-only", "HEAD"}) == "a.txt\nb.txt");
}

TEST_CASE("bookmark_set refuses a bookmark checked out in another worktree") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "-b", "side", wt.string(), c1});
  auto vcs = detect_vcs(repo.dir());
  auto in_wt = detect_vcs(wt);

  CHECK_THROWS_WITH_AS(vcs->bookmark_set("side", c2, c1),
                       ("bookmark 'side' is checked out in the worktree at " + wt.string() +
                        "; move it from there").c_str(),
                       tether::VcsError);
  CHECK(vcs->bookmarks().at("side") == c1);
  CHECK_THROWS_WITH_AS(in_wt->bookmark_set("main", c1, c2),
                       ("bookmark 'main' is checked out in the worktree at " + repo.dir().string() +
                        "; move it from there").c_str(),
                       tether::VcsError);
  in_wt->bookmark_set("side", c2, c1);  // from its own checkout it moves
  CHECK(in_wt->head() == std::optional<std::string>(c2));
  CHECK(vcs->bookmarks().at("side") == c2);

  fs::remove_all(wt);  // still registered until pruned: still refused
  CHECK_THROWS_WITH_AS(vcs->bookmark_set("side", c1, c2), doctest::Contains("its directory is gone"), tether::VcsError);
  repo.git({"worktree", "prune"});
  vcs->bookmark_set("side", c1, c2);
  CHECK(vcs->bookmarks().at("side") == c1);
}

TEST_CASE("workspace_roots lists the main and every live linked worktree") {
  TempRepo repo;
  auto vcs = detect_vcs(repo.dir());
  CHECK(vcs->workspace_roots() == std::vector<fs::path>{repo.dir()});
  repo.write("a.txt", "1");
  repo.commit_all("one");
  fs::path wt1 = repo.dir().string() + "-wt1";
  fs::path wt2 = repo.dir().string() + "-wt2";
  repo.git({"worktree", "add", "-q", "--detach", wt2.string()});
  repo.git({"worktree", "add", "-q", "-b", "w1", wt1.string()});
  std::vector<fs::path> all = {repo.dir(), wt1, wt2};
  CHECK(vcs->workspace_roots() == all);
  CHECK(detect_vcs(wt2 / ".")->workspace_roots() == all);

  fs::remove_all(wt2);
  CHECK(vcs->workspace_roots() == std::vector<fs::path>{repo.dir(), wt1});
  CHECK(detect_vcs(wt1)->workspace_roots() == std::vector<fs::path>{repo.dir(), wt1});
  fs::remove_all(wt1);
}

// ---- history surgery ----

namespace {

const std::string kKeep = ".tether/objects";

std::string meta(const TempRepo& repo, const std::string& rev) {
  return repo.git({"log", "-1", "--format=%an|%ae|%ad|%cn|%ce|%cd|%B", "--date=raw", rev});
}

std::string parents_of(const TempRepo& repo, const std::string& rev) {
  std::string line = repo.git({"rev-list", "--parents", "-n", "1", rev});
  return line.size() > 41 ? line.substr(41) : "";
}

}  // namespace

TEST_CASE("alive_commits keeps only commits some ref or worktree HEAD still reaches") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  auto vcs = detect_vcs(repo.dir());
  CHECK(vcs->alive_commits({c1, c2}) == std::set<std::string>{c1, c2});
  CHECK(vcs->alive_commits({}).empty());

  repo.git({"reset", "-q", "--hard", c1});  // c2 only in the reflog now: not alive
  CHECK(vcs->alive_commits({c1, c2}) == std::set<std::string>{c1});
  repo.git({"tag", "keep", c2});
  CHECK(vcs->alive_commits({c2}) == std::set<std::string>{c2});
  repo.git({"tag", "-d", "keep"});
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "--detach", wt.string(), c2});  // a detached HEAD elsewhere
  CHECK(vcs->alive_commits({c2}) == std::set<std::string>{c2});
  repo.git({"worktree", "remove", wt.string()});
  CHECK(vcs->alive_commits({c2, "0123456789012345678901234567890123456789"}).empty());
}

TEST_CASE("uncommit undoes the checked-out commit only, keeping its files") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  repo.write("b.txt", "new");
  std::string c2 = repo.commit_all("two");
  auto vcs = detect_vcs(repo.dir());

  const std::string before = repo.state();
  CHECK_FALSE(vcs->uncommit(c1));  // not HEAD: nothing changes
  CHECK(repo.state() == before);

  CHECK(vcs->uncommit(c2));
  CHECK(vcs->head() == std::optional<std::string>(c1));
  CHECK(vcs->current_branch() == std::optional<std::string>("main"));
  CHECK(repo.read("a.txt") == "2");
  CHECK(repo.read("b.txt") == "new");
  CHECK(repo.git({"diff", "--cached", "--name-only"}) == "a.txt\nb.txt");  // staged, as reset --soft leaves them

  // The root commit: the branch becomes unborn, the files stay staged.
  CHECK(vcs->uncommit(c1));
  CHECK_FALSE(vcs->head().has_value());
  CHECK(vcs->current_branch() == std::optional<std::string>("main"));
  CHECK(vcs->branches().empty());
  CHECK(repo.read("a.txt") == "2");
  CHECK(repo.git({"ls-files"}) == "a.txt\nb.txt");
}

TEST_CASE("uncommit refuses the root commit on a detached HEAD") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.git({"switch", "-q", "--detach", "HEAD"});
  auto vcs = detect_vcs(repo.dir());
  CHECK_THROWS_WITH_AS(vcs->uncommit(c1), doctest::Contains("detached HEAD"), tether::VcsError);
  CHECK(repo.git({"rev-parse", "HEAD"}) == c1);  // HEAD is still there
  CHECK(vcs->head() == std::optional<std::string>(c1));
}

TEST_CASE("abandon drops a middle commit; descendants keep their own manifests (snapshot semantics)") {
  TempRepo repo;
  repo.write(kKeep + "/m.toml", "v1\n");
  repo.write("data.txt", "d1\n");
  std::string c1 = repo.commit_all("one");
  repo.write(kKeep + "/m.toml", "v2\n");      // conflicts with c3's change once c2 is gone
  repo.write(kKeep + "/n.toml", "added\n");   // c3 holds it, so c3' keeps it
  repo.write("outside.txt", "o\n");           // outside keep_dir: dropped from descendants
  std::string c2 = repo.commit_all("two");
  repo.write(kKeep + "/m.toml", "v3\n");
  repo.write("later.txt", "l\n");
  std::string c3 = repo.commit_all_dated("three\n\nbody line\n", "@1600000000 +0200", "@1600000100 -0130");
  auto vcs = detect_vcs(repo.dir());

  AbandonResult r = vcs->abandon({"HEAD~1"}, kKeep);
  CHECK(r.abandoned == std::vector<std::string>{c2});
  REQUIRE(r.rewritten.size() == 1);
  REQUIRE(r.rewritten.contains(c3));
  const std::string n3 = r.rewritten.at(c3);
  CHECK(n3 != c3);
  CHECK(vcs->head() == std::optional<std::string>(n3));
  CHECK(vcs->current_branch() == std::optional<std::string>("main"));
  CHECK(parents_of(repo, n3) == c1);
  CHECK(meta(repo, n3) == meta(repo, c3));  // author, committer, dates and message kept

  // keep_dir exactly as c3 held it; outside it, c2's change is gone and c3's stays.
  CHECK(*vcs->manifests_at(n3, kKeep) == *vcs->manifests_at(c3, kKeep));
  CHECK(repo.show(n3, kKeep + "/m.toml") == std::optional<std::string>("v3\n"));
  CHECK(repo.show(n3, kKeep + "/n.toml") == std::optional<std::string>("added\n"));
  CHECK_FALSE(repo.show(n3, "outside.txt").has_value());
  CHECK(repo.show(n3, "later.txt") == std::optional<std::string>("l\n"));
  CHECK(repo.show(n3, "data.txt") == std::optional<std::string>("d1\n"));

  // The working tree and index follow; c2 and c3 are no longer reachable.
  CHECK(repo.git({"status", "--porcelain"}).empty());
  CHECK_FALSE(fs::exists(repo.dir() / "outside.txt"));
  CHECK(repo.read(kKeep + "/m.toml") == "v3\n");
  CHECK(vcs->alive_commits({c1, c2, c3}) == std::set<std::string>{c1});
  CHECK_FALSE(fs::exists(repo.dir() / ".git" / "rebase-merge"));
}

TEST_CASE("abandon of several commits, of HEAD itself, and on a detached HEAD") {
  TempRepo repo;
  repo.write("sub/" + kKeep + "/m.toml", "v1\n");
  std::string c1 = repo.commit_all("one");
  repo.write("x.txt", "x\n");
  std::string c2 = repo.commit_all("two");
  repo.write("sub/" + kKeep + "/m.toml", "v3\n");
  std::string c3 = repo.commit_all("three");
  repo.write("y.txt", "y\n");
  std::string c4 = repo.commit_all("four");
  repo.write("sub/" + kKeep + "/m.toml", "v5\n");
  std::string c5 = repo.commit_all("five");
  auto vcs = detect_vcs(repo.dir());

  SUBCASE("two non-adjacent commits") {
    AbandonResult r = vcs->abandon({c4, c2}, "sub/" + kKeep + "/");
    CHECK(r.abandoned == std::vector<std::string>{c4, c2});
    REQUIRE(r.rewritten.size() == 2);
    const std::string n3 = r.rewritten.at(c3), n5 = r.rewritten.at(c5);
    CHECK(parents_of(repo, n3) == c1);
    CHECK(parents_of(repo, n5) == n3);
    CHECK(vcs->head() == std::optional<std::string>(n5));
    CHECK(repo.files_in(n5) == std::vector<std::string>{"sub/" + kKeep + "/m.toml"});
    CHECK(repo.show(n3, "sub/" + kKeep + "/m.toml") == std::optional<std::string>("v3\n"));
    CHECK(repo.show(n5, "sub/" + kKeep + "/m.toml") == std::optional<std::string>("v5\n"));
    CHECK_FALSE(fs::exists(repo.dir() / "x.txt"));
    CHECK_FALSE(fs::exists(repo.dir() / "y.txt"));
  }
  SUBCASE("two adjacent commits") {
    AbandonResult r = vcs->abandon({c3, c4}, "sub/" + kKeep);
    REQUIRE(r.rewritten.size() == 1);
    CHECK(parents_of(repo, r.rewritten.at(c5)) == c2);
    CHECK(repo.files_in("HEAD") == std::vector<std::string>{"sub/" + kKeep + "/m.toml", "x.txt"});
  }
  SUBCASE("HEAD with no descendants: the branch moves to its parent") {
    AbandonResult r = vcs->abandon({c5}, kKeep);
    CHECK(r.abandoned == std::vector<std::string>{c5});
    CHECK(r.rewritten.empty());
    CHECK(vcs->head() == std::optional<std::string>(c4));
    CHECK(vcs->current_branch() == std::optional<std::string>("main"));
    CHECK(repo.read("sub/" + kKeep + "/m.toml") == "v3\n");
    CHECK(repo.git({"status", "--porcelain"}).empty());
  }
  SUBCASE("detached HEAD moves, the branch left behind stays") {
    repo.git({"switch", "-q", "--detach", "HEAD"});
    AbandonResult r = vcs->abandon({c4}, kKeep);
    const std::string n5 = r.rewritten.at(c5);
    CHECK(vcs->head() == std::optional<std::string>(n5));
    CHECK_FALSE(vcs->current_branch().has_value());
    // main pointed at c5, a rewritten commit: it follows.
    CHECK(vcs->branches().at("main") == n5);
  }
}

TEST_CASE("abandon moves the other branches at rewritten commits and leaves the rest") {
  TempRepo repo;
  repo.write(kKeep + "/m.toml", "v1\n");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "a\n");
  std::string c2 = repo.commit_all("two");
  repo.write(kKeep + "/m.toml", "v3\n");
  std::string c3 = repo.commit_all("three");
  repo.write("b.txt", "b\n");
  std::string c4 = repo.commit_all("four");
  repo.git({"branch", "at-c3", c3});
  repo.git({"branch", "at-c1", c1});
  repo.git({"branch", "at-c2", c2});
  repo.git({"tag", "t3", c3});
  auto vcs = detect_vcs(repo.dir());

  AbandonResult r = vcs->abandon({c2}, kKeep);
  CHECK(vcs->branches().at("at-c3") == r.rewritten.at(c3));
  CHECK(vcs->branches().at("main") == r.rewritten.at(c4));
  CHECK(vcs->branches().at("at-c1") == c1);
  CHECK(vcs->branches().at("at-c2") == c2);  // the abandoned commit's own branch is the caller's
  CHECK(repo.git({"rev-parse", "t3^{commit}"}) == c3);  // tags never move
  CHECK(vcs->current_branch() == std::optional<std::string>("main"));
}

TEST_CASE("abandon replays a merge onto the rewritten side") {
  TempRepo repo;
  repo.write(kKeep + "/m.toml", "v1\n");
  std::string c1 = repo.commit_all("one");
  repo.git({"switch", "-q", "-c", "side"});
  repo.write("side.txt", "s\n");
  std::string s1 = repo.commit_all("side");
  repo.git({"switch", "-q", "main"});
  repo.write("drop.txt", "d\n");
  std::string c2 = repo.commit_all("two");
  repo.write(kKeep + "/m.toml", "v3\n");
  std::string c3 = repo.commit_all("three");
  repo.git({"merge", "-q", "--no-edit", "side"});
  std::string m = repo.git({"rev-parse", "HEAD"});
  auto vcs = detect_vcs(repo.dir());

  AbandonResult r = vcs->abandon({c2}, kKeep);
  REQUIRE(r.rewritten.size() == 2);
  const std::string n3 = r.rewritten.at(c3), nm = r.rewritten.at(m);
  CHECK(parents_of(repo, nm) == n3 + " " + s1);
  CHECK(repo.files_in(nm) == std::vector<std::string>{kKeep + "/m.toml", "side.txt"});
  CHECK(repo.show(nm, kKeep + "/m.toml") == std::optional<std::string>("v3\n"));
  CHECK(vcs->branches().at("side") == s1);
  CHECK(vcs->head() == std::optional<std::string>(nm));
}

TEST_CASE("abandon refuses, changing nothing") {
  TempRepo repo;
  repo.write(kKeep + "/m.toml", "v1\n");
  repo.write("a.txt", "1\n");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2\n");
  std::string c2 = repo.commit_all("two");
  repo.write("a.txt", "3\n");  // conflicts with c2 going away
  repo.write(kKeep + "/m.toml", "v3\n");
  std::string c3 = repo.commit_all("three");
  repo.git({"branch", "other", c3});
  auto vcs = detect_vcs(repo.dir());
  const std::string before = repo.state();

  SUBCASE("a conflict outside keep_dir") {
    CHECK_THROWS_WITH_AS(vcs->abandon({c2}, kKeep), "git: abandoning conflicts outside the dataset (a.txt); resolve by hand",
                         tether::VcsError);
    CHECK(repo.state() == before);
    CHECK_FALSE(fs::exists(repo.dir() / ".git" / "rebase-merge"));
    CHECK_FALSE(fs::exists(repo.dir() / ".git" / "rebase-apply"));
    // The same conflict is no conflict when it lies inside keep_dir: "" is the whole tree.
    AbandonResult r = vcs->abandon({c2}, "");
    CHECK(repo.files_in("HEAD") == repo.files_in(c3));
    CHECK(repo.show("HEAD", "a.txt") == std::optional<std::string>("3\n"));
    CHECK(parents_of(repo, r.rewritten.at(c3)) == c1);
  }
  SUBCASE("a dirty tree") {
    repo.write("a.txt", "dirty\n");
    const std::string dirty = repo.state();
    CHECK_THROWS_WITH_AS(vcs->abandon({c2}, kKeep), "git: commit or stash your changes before abandoning",
                         tether::VcsError);
    CHECK(repo.state() == dirty);
    repo.git({"add", "a.txt"});  // staged counts too
    CHECK_THROWS_WITH_AS(vcs->abandon({c2}, kKeep), "git: commit or stash your changes before abandoning",
                         tether::VcsError);
  }
  SUBCASE("a commit not on the current branch") {
    repo.git({"switch", "-q", "-c", "side", c1});
    repo.write("s.txt", "s\n");
    std::string s1 = repo.commit_all("side");
    repo.git({"switch", "-q", "main"});
    const std::string now = repo.state();
    CHECK_THROWS_WITH_AS(vcs->abandon({s1}, kKeep),
                         ("git: " + s1.substr(0, 12) +
                          " is not on the current branch; tether can only abandon commits of the checked-out history")
                             .c_str(),
                         tether::VcsError);
    CHECK(repo.state() == now);
  }
  SUBCASE("the root commit") {
    CHECK_THROWS_WITH_AS(vcs->abandon({c2, c1}, kKeep), ("git: cannot abandon the root commit " + c1.substr(0, 12)).c_str(),
                         tether::VcsError);
    CHECK(repo.state() == before);
  }
  SUBCASE("a rewritten branch checked out in another worktree") {
    fs::path wt = repo.dir().string() + "-wt";
    repo.git({"worktree", "add", "-q", wt.string(), "other"});
    const std::string now = repo.state();
    CHECK_THROWS_WITH_AS(vcs->abandon({c2}, ""), doctest::Contains("branch 'other'"), tether::VcsError);
    CHECK(repo.state() == now);
    repo.git({"worktree", "remove", wt.string()});
  }
  SUBCASE("an unknown revision") {
    CHECK_THROWS_WITH_AS(vcs->abandon({"nope"}, kKeep), "unknown revision 'nope'", tether::VcsError);
    CHECK(repo.state() == before);
  }
}

TEST_CASE("abandon ignores untracked files that are not in the way") {
  TempRepo repo;
  repo.write("a.txt", "1\n");
  repo.commit_all("one");
  repo.write("b.txt", "2\n");
  std::string c2 = repo.commit_all("two");
  repo.write("c.txt", "3\n");
  std::string c3 = repo.commit_all("three");
  repo.write("untracked.txt", "u\n");
  auto vcs = detect_vcs(repo.dir());
  AbandonResult r = vcs->abandon({c2}, kKeep);
  CHECK(repo.files_in("HEAD") == std::vector<std::string>{"a.txt", "c.txt"});
  CHECK(repo.read("untracked.txt") == "u\n");
  CHECK(r.rewritten.contains(c3));
}

TEST_CASE("exclusive_commits lists what only the bookmark reaches, oldest first") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.git({"switch", "-q", "-c", "feat"});
  repo.write("f.txt", "1");
  std::string f1 = repo.commit_all("f1");
  repo.write("f.txt", "2");
  std::string f2 = repo.commit_all("f2");
  repo.write("f.txt", "3");
  std::string f3 = repo.commit_all("f3");
  repo.git({"switch", "-q", "main"});
  repo.write("a.txt", "2");
  repo.commit_all("two");
  auto vcs = detect_vcs(repo.dir());

  CHECK(vcs->exclusive_commits("feat") == std::vector<std::string>{f1, f2, f3});
  repo.git({"tag", "-a", "v1", "-m", "annotated", f1});  // a tag keeps f1 alive
  CHECK(vcs->exclusive_commits("feat") == std::vector<std::string>{f2, f3});
  repo.git({"tag", "light", f2});
  CHECK(vcs->exclusive_commits("feat") == std::vector<std::string>{f3});
  repo.git({"tag", "-a", "tree-tag", "-m", "a tree", "HEAD^{tree}"});  // reaches no commit
  CHECK(vcs->exclusive_commits("feat") == std::vector<std::string>{f3});
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "--detach", wt.string(), f3});  // another checkout's HEAD
  CHECK(vcs->exclusive_commits("feat").empty());
  repo.git({"worktree", "remove", wt.string()});
  CHECK(vcs->exclusive_commits("main").size() == 1);
  CHECK(vcs->exclusive_commits("feat") == std::vector<std::string>{f3});
  CHECK_THROWS_WITH_AS(vcs->exclusive_commits("nope"), "no bookmark 'nope'", tether::VcsError);
  (void)c1;
}

TEST_CASE("delete_bookmark deletes only from the expected commit and never a checked-out one") {
  TempRepo repo;
  repo.write("a.txt", "1");
  std::string c1 = repo.commit_all("one");
  repo.write("a.txt", "2");
  std::string c2 = repo.commit_all("two");
  repo.git({"branch", "side", c1});
  auto vcs = detect_vcs(repo.dir());

  CHECK_THROWS_WITH_AS(vcs->delete_bookmark("side", c2),
                       ("bookmark 'side' moved: expected " + c2.substr(0, 12) + ", found " + c1.substr(0, 12)).c_str(),
                       tether::VcsError);
  CHECK(vcs->branches().at("side") == c1);
  CHECK_THROWS_WITH_AS(vcs->delete_bookmark("side", "side"),
                       "cannot delete bookmark 'side': expected 'side' is not a full commit id", tether::VcsError);
  CHECK_THROWS_WITH_AS(vcs->delete_bookmark("main", c2), "bookmark 'main' is checked out here; switch away first",
                       tether::VcsError);
  CHECK(vcs->branches().at("main") == c2);
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", wt.string(), "side"});
  CHECK_THROWS_WITH_AS(vcs->delete_bookmark("side", c1),
                       ("bookmark 'side' is checked out in the worktree at " + wt.string()).c_str(), tether::VcsError);
  repo.git({"worktree", "remove", wt.string()});

  vcs->delete_bookmark("side", c1);
  CHECK_FALSE(vcs->branches().contains("side"));
  CHECK_THROWS_WITH_AS(vcs->delete_bookmark("side", c1),
                       ("bookmark 'side' does not exist (expected at " + c1.substr(0, 12) + ")").c_str(),
                       tether::VcsError);
}

TEST_CASE("remote_counterparts lists the remote-tracking refs of a bookmark") {
  TempRepo upstream;
  upstream.write("a.txt", "1");
  upstream.commit_all("one");
  upstream.git({"branch", "feat"});
  upstream.git({"branch", "team/feat"});
  TempRepo repo;
  repo.write("b.txt", "1");
  repo.commit_all("mine");
  auto vcs = detect_vcs(repo.dir());
  CHECK(vcs->remote_counterparts("feat").empty());

  repo.git({"remote", "add", "origin", upstream.dir().string()});
  repo.git({"remote", "add", "team/up", upstream.dir().string()});  // a remote name with a slash
  repo.git({"fetch", "-q", "origin"});
  repo.git({"fetch", "-q", "team/up"});
  CHECK(vcs->remote_counterparts("feat") == std::vector<std::string>{"origin/feat", "team/up/feat"});
  CHECK(vcs->remote_counterparts("main") == std::vector<std::string>{"origin/main", "team/up/main"});
  CHECK(vcs->remote_counterparts("team/feat") == std::vector<std::string>{"origin/team/feat", "team/up/team/feat"});
  CHECK(vcs->remote_counterparts("up/feat").empty());  // not origin's "team/up/feat"
  CHECK(vcs->remote_counterparts("nope").empty());
}

TEST_CASE("forget_workspace removes a linked worktree and leaves the main one") {
  TempRepo repo;
  repo.write("a.txt", "1");
  repo.commit_all("one");
  fs::path wt = repo.dir().string() + "-wt";
  repo.git({"worktree", "add", "-q", "-b", "w", wt.string()});
  auto vcs = detect_vcs(repo.dir());
  REQUIRE(vcs->workspace_roots().size() == 2);

  CHECK_FALSE(vcs->forget_workspace(repo.dir()).has_value());  // the main worktree stays
  CHECK_FALSE(vcs->forget_workspace(repo.dir() / "not-a-worktree").has_value());
  auto done = vcs->forget_workspace(wt / ".");
  REQUIRE(done.has_value());
  CHECK(done->find(wt.string()) != std::string::npos);
  CHECK_FALSE(fs::exists(wt));
  CHECK(vcs->workspace_roots() == std::vector<fs::path>{repo.dir()});
  CHECK(repo.git({"worktree", "list", "--porcelain"}).find(wt.string()) == std::string::npos);
  CHECK(vcs->branches().contains("w"));  // its branch stays

  // One whose directory is gone is forgotten too.
  repo.git({"worktree", "add", "-q", "--detach", wt.string()});
  fs::remove_all(wt);
  CHECK(vcs->forget_workspace(wt).has_value());
  CHECK(repo.git({"worktree", "list", "--porcelain"}).find(wt.string()) == std::string::npos);
}

TEST_CASE("forget_workspace of a bare repository's worktrees and of the current checkout") {
  TempRepo repo;
  repo.write("a.txt", "1");
  repo.commit_all("one");
  tether::testing::TempDir tmp("tether-bare");
  const fs::path bare = tmp.path() / "bare.git", w1 = tmp.path() / "w1", w2 = tmp.path() / "w2";
  repo.git({"clone", "-q", "--bare", repo.dir().string(), bare.string()});
  repo.git({"worktree", "add", "-q", "-b", "b1", w1.string()}, bare);
  repo.git({"worktree", "add", "-q", "-b", "b2", w2.string()}, bare);
  auto in_w2 = detect_vcs(w2);
  REQUIRE(in_w2->workspace_roots() == std::vector<fs::path>{w1, w2});

  // No main worktree here: the first linked one is just as removable.
  CHECK(in_w2->forget_workspace(w1).has_value());
  CHECK_FALSE(fs::exists(w1));
  // Removing the checkout tether runs in would pull the floor from under it.
  CHECK_THROWS_WITH_AS(in_w2->forget_workspace(w2), doctest::Contains("runs in"), tether::VcsError);
  CHECK(fs::exists(w2));
}

// ---- rewrite_history ----

TEST_CASE("rewrite_history rewrites the files under dir in every branch's commits, and only there") {
  TempRepo repo;
  repo.write("sub/.tether/objects/a.toml", "pin = \"old.1\"\n");
  repo.write("sub/.tether/objects/deep/b.toml", "keep\n");
  repo.write("readme.txt", "old.1 outside the directory\n");
  std::string c1 = repo.commit_all_dated("one", "@1000000000 +0000", "@1000000100 +0000");
  repo.write("code.txt", "no manifest change\n");
  std::string c2 = repo.commit_all("two");
  repo.git({"branch", "side", c2});
  repo.write("sub/.tether/objects/a.toml", "pin = \"old.2\"\n");
  std::string c3 = repo.commit_all("three");
  repo.git({"checkout", "-q", "side"});
  repo.write("side.txt", "s\n");
  std::string s1 = repo.commit_all("side one");
  repo.git({"checkout", "-q", "main"});
  repo.git({"merge", "-q", "--no-edit", "side"});
  std::string m = repo.git({"rev-parse", "HEAD"});
  repo.git({"tag", "t1", c1});
  repo.write("untracked.txt", "stays\n");
  auto vcs = detect_vcs(repo.dir());

  std::vector<std::string> seen;
  auto r = vcs->rewrite_history("sub/.tether/objects/", [&](const std::string& path, const std::string& text)
                                                            -> std::optional<std::string> {
    seen.push_back(path);
    auto at = text.find("old.");
    if (at == std::string::npos) return std::nullopt;
    std::string out = text;
    out.replace(at, 4, "new.");
    return out;
  });
  // Every commit is rewritten: c1 holds a changed file, the rest descend from it.
  CHECK(r.size() == 5);
  for (const auto& c : {c1, c2, c3, s1, m}) CHECK(r.count(c) == 1);
  CHECK(repo.show(r.at(c1), "sub/.tether/objects/a.toml") == std::optional<std::string>("pin = \"new.1\"\n"));
  CHECK(repo.show(r.at(c3), "sub/.tether/objects/a.toml") == std::optional<std::string>("pin = \"new.2\"\n"));
  CHECK(repo.show(r.at(c1), "sub/.tether/objects/deep/b.toml") == std::optional<std::string>("keep\n"));
  CHECK(repo.show(r.at(c1), "readme.txt") == std::optional<std::string>("old.1 outside the directory\n"));
  // Authors, dates and messages carry over; the merge keeps both parents, rewritten.
  CHECK(repo.git({"log", "-1", "--format=%an %ad %cd %s", "--date=raw", r.at(c1)}) ==
        repo.git({"log", "-1", "--format=%an %ad %cd %s", "--date=raw", c1}));
  CHECK(repo.git({"rev-parse", r.at(m) + "^1"}) == r.at(c3));
  CHECK(repo.git({"rev-parse", r.at(m) + "^2"}) == r.at(s1));
  // Branches follow; the checked-out one with its files; tags stay; untracked files stay.
  CHECK(vcs->branches().at("main") == r.at(m));
  CHECK(vcs->branches().at("side") == r.at(s1));
  CHECK(repo.git({"rev-parse", "t1^{commit}"}) == c1);
  CHECK(repo.read("sub/.tether/objects/a.toml") == "pin = \"new.2\"\n");
  CHECK(repo.read("untracked.txt") == "stays\n");
  CHECK(repo.git({"status", "--porcelain", "--untracked-files=no"}).empty());
  // Each distinct text is transformed once, however many commits hold it.
  CHECK(std::count(seen.begin(), seen.end(), "sub/.tether/objects/deep/b.toml") == 1);

  // Nothing to change: nothing rewritten, nothing moved.
  const std::string before = repo.state();
  CHECK(vcs->rewrite_history("sub/.tether/objects", [](const std::string&, const std::string&) {
    return std::optional<std::string>();
  }).empty());
  CHECK(repo.state() == before);
}

TEST_CASE("rewrite_history refuses a dirty tree and a branch checked out in another worktree, changing nothing") {
  TempRepo repo;
  repo.write(".tether/objects/a.toml", "old\n");
  std::string c1 = repo.commit_all("one");
  repo.git({"branch", "elsewhere", c1});
  auto vcs = detect_vcs(repo.dir());
  auto bump = [](const std::string&, const std::string& text) -> std::optional<std::string> { return text + "x\n"; };

  repo.write(".tether/objects/a.toml", "edited\n");
  const std::string dirty = repo.state();
  CHECK_THROWS_WITH_AS(vcs->rewrite_history(".tether/objects", bump), doctest::Contains("commit or stash"), tether::VcsError);
  CHECK(repo.state() == dirty);
  repo.git({"checkout", "-q", "--", "."});

  tether::testing::TempDir wt_parent("tether-vcs-wt");
  repo.git({"worktree", "add", "-q", (wt_parent.path() / "wt").string(), "elsewhere"});
  const std::string before = repo.state();
  CHECK_THROWS_WITH_AS(vcs->rewrite_history(".tether/objects", bump), doctest::Contains("checked out in the worktree"),
                       tether::VcsError);
  CHECK(repo.state() == before);
  CHECK(vcs->branches().at("main") == c1);
}
