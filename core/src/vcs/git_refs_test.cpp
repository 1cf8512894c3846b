// Tests for the native ref reader (vcs/git_refs.hpp): on many repository shapes made with the
// git command its answers equal libgit2's (asked directly here), hostile files never crash
// it and either make it decline or still agree, and GitReader answers what `status` and `ops`
// ask without opening libgit2, its reachability cache surviving garbage and copies.
#include "vcs/git_refs.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tether/errors.hpp"
#include "tether/support/git2.hpp"
#include "tether/testing/git.hpp"
#include "tether/testing/temp_dir.hpp"
#include "vcs/git_adapter.hpp"
#include "vcs/git_reader.hpp"

namespace fs = std::filesystem;
using namespace tether::vcs;
using tether::support::git2::oid_hex;

namespace {

std::string git(const fs::path& dir, const std::vector<std::string>& args) { return tether::testing::git(dir, args); }

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// What both readers are compared on: where the repository is and every ref, as text.
struct View {
  bool found = false;
  std::string workdir, gitdir, commondir, head;
  std::map<std::string, std::string> refs;  // name -> "<oid>[ ^<peeled>]" or "ref: <target>"
  std::string worktrees;                    // "<name> <root> <HEAD>\n" each, sorted by name
  bool operator==(const View&) const = default;
};

std::ostream& operator<<(std::ostream& os, const View& v) {
  os << "found=" << v.found << " workdir=" << v.workdir << " gitdir=" << v.gitdir << " commondir=" << v.commondir
     << " HEAD=" << v.head << " refs={";
  for (const auto& [k, r] : v.refs) os << k << "=" << r << " ";
  return os << "} worktrees={" << v.worktrees << "}";
}

std::string no_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Without packed-refs' peeled ids: core calls no libgit2 function that shows them (the test
// links only what core's lazy libgit2 forwards); they are checked against git instead.
std::string text_of(const refs::RefValue& v) {
  if (v.symbolic()) return "ref: " + v.target;
  return v.oid;
}

std::string text_of(git_reference* ref) {
  if (git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC) return std::string("ref: ") + git_reference_symbolic_target(ref);
  return oid_hex(*git_reference_target(ref));
}

// libgit2's answers, asked the way GitReader asked before the native reader existed.
View via_libgit2(const fs::path& start) {
  static tether::support::git2::Library library;
  View v;
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, start.c_str(), 0, nullptr) != 0) return v;
  tether::support::git2::Repository repo(raw);
  if (git_repository_workdir(raw) == nullptr) return v;
  v.found = true;
  v.workdir = no_slash(git_repository_workdir(raw));
  v.gitdir = no_slash(git_repository_path(raw));
  v.commondir = no_slash(git_repository_commondir(raw));
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, raw, "HEAD") == 0) {
    tether::support::git2::Reference h(head);
    v.head = text_of(head);
  }
  git_reference_iterator* it_raw = nullptr;
  if (git_reference_iterator_new(&it_raw, raw) != 0) {
    v.refs["(libgit2 cannot list the refs)"] = "";
    return v;
  }
  tether::support::git2::RefIterator it(it_raw);
  git_reference* ref = nullptr;
  while (git_reference_next(&ref, it.get()) == 0) {
    tether::support::git2::Reference r(ref);
    v.refs[git_reference_name(ref)] = text_of(ref);
  }
  git_strarray names{};
  if (git_worktree_list(&names, raw) != 0) {
    v.worktrees = "(libgit2 cannot list the worktrees)";
    return v;
  }
  std::map<std::string, std::string> wts;
  for (std::size_t i = 0; i < names.count; ++i) {
    git_worktree* wt_raw = nullptr;
    if (git_worktree_lookup(&wt_raw, raw, names.strings[i]) != 0) continue;
    tether::support::git2::Worktree wt(wt_raw);
    std::string line = std::string(names.strings[i]) + " " + no_slash(git_worktree_path(wt_raw));
    git_repository* wt_repo = nullptr;
    fs::path admin = fs::path(v.commondir) / "worktrees" / names.strings[i];
    if (git_repository_open(&wt_repo, admin.c_str()) == 0) {
      tether::support::git2::Repository held(wt_repo);
      git_reference* h = nullptr;
      if (git_reference_lookup(&h, wt_repo, "HEAD") == 0) {
        tether::support::git2::Reference hh(h);
        line += " " + text_of(h);
      }
    }
    wts[names.strings[i]] = line + "\n";
  }
  git_strarray_dispose(&names);
  for (const auto& [n, line] : wts) v.worktrees += line;
  return v;
}

// The native reader's; `declined` says it gave no answer.
View via_native(const fs::path& start, bool& declined) {
  View v;
  declined = true;
  auto layout = refs::discover(start);
  if (!layout) return v;
  auto snap = refs::read_snapshot(*layout);
  auto wts = refs::linked_worktrees(*layout);
  if (!snap || !wts) return v;
  declined = false;
  v.found = true;
  v.workdir = layout->workdir.string();
  v.gitdir = layout->gitdir.string();
  v.commondir = layout->commondir.string();
  v.head = text_of(snap->head);
  for (const auto& [name, r] : snap->refs) v.refs[name] = text_of(r);
  for (const auto& wt : *wts) v.worktrees += wt.name + " " + wt.root.string() + " " + text_of(wt.head) + "\n";
  return v;
}

void check_reader_equals_libgit2(const fs::path& start, const std::vector<std::string>& asked = {});

// The native reader answers, and exactly as libgit2 does.
void check_native_equals_libgit2(const fs::path& start, const std::vector<std::string>& asked = {}) {
  CAPTURE(start);
  bool declined = false;
  View native = via_native(start, declined);
  CHECK_FALSE(declined);
  CHECK(native == via_libgit2(start));
  check_reader_equals_libgit2(start, asked);
}

std::string text_of(const std::vector<Worktree>& wts) {
  std::string s;
  for (const auto& w : wts)
    s += w.root.string() + " " + w.branch.value_or("(detached)") + " " + std::to_string(w.current) +
         std::to_string(w.live) + std::to_string(w.main) + "\n";
  return s;
}

// GitReader with the native reader gives what it gave with libgit2 alone, for every method
// status, ops and the bookmark commands ask of refs.
// What a call gave: its value as text, or its error's message.
template <typename Fn>
std::string outcome(Fn&& fn) {
  try {
    return "ok " + fn();
  } catch (const tether::VcsError& e) {
    return std::string("error ") + e.what();
  }
}

std::string text_of(const std::optional<std::string>& v) { return v ? *v : "(none)"; }
std::string text_of(const std::map<std::string, std::string>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += k + "=" + v + " ";
  return s;
}
std::string text_of(const std::set<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += id + " ";
  return s;
}

void check_reader_equals_libgit2(const fs::path& start, const std::vector<std::string>& asked) {
  CAPTURE(start);
  GitReader native(start);
  GitReader git2(start, /*native=*/false);
  CHECK(native.root() == git2.root());
  CHECK(native.shared_dir() == git2.shared_dir());
  for (int round = 0; round < 2; ++round) {  // the second from the cache
    CHECK(outcome([&] { return text_of(native.head()); }) == outcome([&] { return text_of(git2.head()); }));
    CHECK(outcome([&] { return text_of(native.current_branch()); }) ==
          outcome([&] { return text_of(git2.current_branch()); }));
    CHECK(outcome([&] { return text_of(native.branches()); }) == outcome([&] { return text_of(git2.branches()); }));
    CHECK(outcome([&] { return text_of(native.worktrees()); }) == outcome([&] { return text_of(git2.worktrees()); }));
    CHECK(outcome([&] { return text_of(native.alive_commits(asked)); }) ==
          outcome([&] { return text_of(git2.alive_commits(asked)); }));
  }
  auto a = native.index_stamp(), b = git2.index_stamp();
  CHECK(a.has_value() == b.has_value());
  if (a && b) CHECK(a->id == b->id);
}

// The native reader declines, or agrees with libgit2 (a hostile shape).
void check_declines_or_agrees(const fs::path& start) {
  CAPTURE(start);
  bool declined = false;
  View native = via_native(start, declined);
  if (!declined) CHECK(native == via_libgit2(start));
  if (via_libgit2(start).found) check_reader_equals_libgit2(start);
}

// A repository with two commits on main, a branch and a lightweight tag.
struct Repo {
  tether::testing::TempDir tmp{"tether-refs"};
  fs::path dir = tmp.path() / "repo";
  std::string c1, c2;
  Repo() {
    fs::create_directories(dir);
    git(dir, {"init", "-q", "-b", "main"});
    write(dir / "a.txt", "1");
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "-m", "one"});
    c1 = git(dir, {"rev-parse", "HEAD"});
    write(dir / "sub" / "b.txt", "2");
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "-m", "two"});
    c2 = git(dir, {"rev-parse", "HEAD"});
    git(dir, {"branch", "side", c1});
    git(dir, {"tag", "light", c1});
  }
};

}  // namespace

TEST_CASE("native refs: loose, packed, loose over packed, peeled tags: libgit2's answers") {
  Repo r;
  check_native_equals_libgit2(r.dir, {r.c1, r.c2, "0123456789abcdef0123456789abcdef01234567"});  // loose only

  git(r.dir, {"tag", "-a", "-m", "annotated", "v1", r.c2});
  git(r.dir, {"pack-refs", "--all", "--prune"});
  CHECK_FALSE(fs::exists(r.dir / ".git/refs/heads/main"));
  CHECK(read(r.dir / ".git/packed-refs").find("\n^") != std::string::npos);  // a peeled line
  check_native_equals_libgit2(r.dir);  // packed only, with peeled tags
  auto packed = refs::read_snapshot(*refs::discover(r.dir));
  REQUIRE(packed.has_value());
  CHECK(packed->refs.at("refs/tags/v1").peeled == git(r.dir, {"rev-parse", "v1^{}"}));
  CHECK(packed->refs.at("refs/tags/v1").oid == git(r.dir, {"rev-parse", "v1"}));
  CHECK(packed->refs.at("refs/heads/main").peeled.empty());

  git(r.dir, {"update-ref", "refs/heads/side", r.c2});  // loose now overrides the packed one
  git(r.dir, {"symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main"});
  check_native_equals_libgit2(r.dir);
  bool declined = false;
  CHECK(via_native(r.dir, declined).refs.at("refs/heads/side") == r.c2);
}

TEST_CASE("native refs: HEAD unborn, detached; started in a subdirectory") {
  Repo r;
  check_native_equals_libgit2(r.dir / "sub");
  git(r.dir, {"switch", "-q", "--detach", r.c1});
  check_native_equals_libgit2(r.dir);
  git(r.dir, {"switch", "-q", "--orphan", "fresh"});
  fs::create_directories(r.dir / "sub");  // its files went with the switch
  check_native_equals_libgit2(r.dir / "sub");

  // GitReader: the unborn branch is current, HEAD names no commit.
  GitReader reader(r.dir / "sub");
  CHECK(reader.root() == r.dir);
  CHECK(reader.current_branch() == std::optional<std::string>("fresh"));
  CHECK_FALSE(reader.head().has_value());
  CHECK(reader.cache_stats().repository_opens == 0);

  tether::testing::TempDir empty("tether-refs-empty");
  git(empty.path(), {"init", "-q", "-b", "main"});  // no commit at all
  check_native_equals_libgit2(empty.path());
}

TEST_CASE("native refs: linked worktrees, live and deleted; a .git file; nested repositories") {
  Repo r;
  fs::path wt = r.tmp.path() / "wt";
  fs::path gone = r.tmp.path() / "gone";
  git(r.dir, {"worktree", "add", "-q", wt.string(), "side"});
  git(r.dir, {"worktree", "add", "-q", "--detach", gone.string(), r.c1});
  fs::remove_all(gone);  // registered until pruned
  check_native_equals_libgit2(r.dir, {r.c1, r.c2});
  check_native_equals_libgit2(wt, {r.c1, r.c2});
  bool declined = false;
  View v = via_native(wt, declined);
  CHECK(v.workdir == wt.string());
  CHECK(v.gitdir == (r.dir / ".git/worktrees/wt").string());
  CHECK(v.commondir == (r.dir / ".git").string());

  GitReader reader(wt);
  CHECK(reader.current_branch() == std::optional<std::string>("side"));
  CHECK(reader.shared_dir() == r.dir / ".git");
  CHECK(reader.cache_stats().repository_opens == 0);

  // --separate-git-dir: the checkout holds a `.git` file.
  fs::path sep = r.tmp.path() / "sep";
  fs::path sep_git = r.tmp.path() / "sep.git";
  fs::create_directories(sep);
  git(sep, {"init", "-q", "-b", "main", "--separate-git-dir", sep_git.string()});
  CHECK(fs::is_regular_file(sep / ".git"));
  check_native_equals_libgit2(sep);

  // A repository inside another's working tree: the inner one, from inside it.
  fs::path inner = r.dir / "sub" / "inner";
  fs::create_directories(inner);
  git(inner, {"init", "-q", "-b", "trunk"});
  check_native_equals_libgit2(inner);
  check_native_equals_libgit2(r.dir / "sub");
  CHECK(via_native(inner, declined).workdir == inner.string());
}

TEST_CASE("native refs: a bare repository and no repository are libgit2's to report, as before") {
  tether::testing::TempDir tmp("tether-refs-bare");
  git(tmp.path(), {"init", "-q", "--bare", "b.git"});
  CHECK_FALSE(refs::discover(tmp.path() / "b.git").has_value());
  CHECK_THROWS_WITH_AS(GitReader(tmp.path() / "b.git"), doctest::Contains("has no working tree; tether needs a checkout"),
                       tether::VcsError);
  fs::create_directories(tmp.path() / "plain");
  CHECK_FALSE(refs::discover(tmp.path() / "plain").has_value());
  CHECK_THROWS_WITH_AS(GitReader(tmp.path() / "plain"), doctest::Contains("no git repository found at or above"),
                       tether::VcsError);
}

TEST_CASE("native refs decline what they do not fully understand") {
  Repo r;
  const fs::path config = r.dir / ".git/config";
  const std::string plain = read(config);
  for (const std::string& extra : {std::string("[core]\n\tbare = true\n"), std::string("[core]\n\tworktree = /elsewhere\n"),
                                   std::string("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tnoop = true\n"),
                                   std::string("[include]\n\tpath = other\n"), std::string("[core]\n\tbare\n"),
                                   std::string("[core] bare = true\n"), std::string("[core]\n\tbare = \\\n true\n")}) {
    CAPTURE(extra);
    write(config, plain + extra);
    CHECK_FALSE(refs::discover(r.dir).has_value());
  }
  write(config, plain);
  CHECK(refs::discover(r.dir).has_value());

  // A config with odd quoting outside the keys that matter: whatever libgit2 makes of it, the
  // reader gives the same answers as with libgit2 alone.
  write(config, plain + "[remote \"o\"]\n\turl = \"unterminated\n");
  check_reader_equals_libgit2(r.dir);

  // A declined repository is still read, through libgit2 from the start.
  write(config, plain + "[core]\n\tbare = FALSE # spelled oddly\n");
  GitReader reader(r.dir);
  CHECK(reader.head() == std::optional<std::string>(r.c2));
  CHECK(reader.cache_stats().repository_opens == 1);
}

TEST_CASE("native refs: hostile ref files never crash; they decline or agree with libgit2") {
  Repo r;
  const fs::path heads = r.dir / ".git/refs/heads";
  const std::string head = read(r.dir / ".git/HEAD");
  const std::vector<std::string> garbage = {"",
                                            "ref:",
                                            "ref: refs/heads/../../config\n",
                                            "ref: HEAD\n",
                                            std::string("0123456789abcdef0123456789abcdef0123456\0\n", 42),
                                            "0123456789ABCDEF0123456789ABCDEF01234567\n",
                                            "0123456789abcdef0123456789abcdef01234567 trailing\n",
                                            std::string(100000, 'a'),
                                            "ref: refs/heads/main\nref: refs/heads/side\n"};
  for (const auto& g : garbage) {
    CAPTURE(g.size());
    write(heads / "odd", g);
    check_declines_or_agrees(r.dir);
    write(r.dir / ".git/HEAD", g);
    check_declines_or_agrees(r.dir);
    write(r.dir / ".git/HEAD", head);
    fs::remove(heads / "odd");
  }

  // packed-refs: garbage, NULs, no final newline, a peel line without a ref, huge.
  git(r.dir, {"pack-refs", "--all"});
  const std::string packed = read(r.dir / ".git/packed-refs");
  for (const auto& g : {packed.substr(0, packed.size() - 1), std::string("^") + r.c1 + "\n" + packed,
                        packed + std::string("\0\0\0", 3), packed + r.c1 + " refs/heads/../x\n", packed + "# comment\n",
                        std::string(1 << 20, '\n'), packed + r.c1 + " refs/heads/main\n"}) {
    write(r.dir / ".git/packed-refs", g);
    check_declines_or_agrees(r.dir);
  }
  write(r.dir / ".git/packed-refs", packed);
  check_native_equals_libgit2(r.dir);

  // A ref that is a directory (with nothing in it), a symlink, a name with "..".
  fs::create_directories(heads / "dir");
  check_native_equals_libgit2(r.dir);
  fs::create_symlink(r.dir / ".git/config", heads / "link");
  check_declines_or_agrees(r.dir);
  bool declined = false;
  via_native(r.dir, declined);
  CHECK(declined);  // libgit2 decides what a symlinked ref means
  fs::remove(heads / "link");
  write(heads / "..x", r.c1 + "\n");
  check_declines_or_agrees(r.dir);
  fs::remove(heads / "..x");
  check_native_equals_libgit2(r.dir);
}

TEST_CASE("byte parsers: exact formats only") {
  const std::string id = "0123456789abcdef0123456789abcdef01234567";
  CHECK(refs::parse_ref_file(id + "\n") == refs::RefValue{id, "", ""});
  CHECK(refs::parse_ref_file("ref: refs/heads/main\n") == refs::RefValue{"", "refs/heads/main", ""});
  CHECK_FALSE(refs::parse_ref_file(id).has_value());
  CHECK_FALSE(refs::parse_ref_file("ref: refs/heads/a..b\n").has_value());
  CHECK_FALSE(refs::parse_ref_file("ref: refs/heads/x.lock\n").has_value());

  auto p = refs::parse_packed_refs("# pack-refs with: peeled fully-peeled sorted \n" + id + " refs/tags/t\n^" + id + "\n");
  REQUIRE(p.has_value());
  CHECK(p->at("refs/tags/t").peeled == id);
  CHECK(refs::parse_packed_refs("")->empty());
  CHECK_FALSE(refs::parse_packed_refs(id + " refs/heads/a\r\n").has_value());
  CHECK_FALSE(refs::parse_packed_refs(id + " refs/heads/a\n" + id + " refs/heads/a\n").has_value());

  CHECK(refs::config_is_plain("[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"o\"]\n\turl = x\n"));
  CHECK_FALSE(refs::config_is_plain("[includeIf \"gitdir:/x/\"]\n\tpath = y\n"));
  CHECK_FALSE(refs::config_is_plain("[Extensions]\n\tobjectFormat = sha256\n"));
  CHECK_FALSE(refs::config_is_plain("[core]\n\trepositoryformatversion = 2\n"));
  CHECK(refs::config_is_plain("[core \"x\"]\n\tbare = true\n"));  // core.x.bare is another key
  CHECK(refs::config_is_plain("[branch \"feat/x\"]\n\tremote = origin\n\tmerge = refs/heads/feat/x\n[core]\n\tbare = no\n"));
  CHECK(refs::config_is_plain("[alias]\n\tlg = \"log --graph\"\n[core]\n\teditor = \"code --wait\"\n"));
  // Headers and keys it cannot read plainly, continued lines: declined.
  for (const char* odd : {"[core]\n\tbare = \"false\"\n", "[alias]\n\tx = a \\\n[core]\n", "[core\n", "[core] x\n", "[remote \"a\\\"b\"]\n",
                          "[core \"x\" y]\n", "[core]\n\t= value\n", "[core]\n\t1key = v\n",
                          "x = y\n", "\xef\xbb\xbf[core]\n"}) {
    CAPTURE(odd);
    CHECK_FALSE(refs::config_is_plain(odd));
  }

  CHECK(refs::parse_gitfile("gitdir: ../x/.git\n") == std::optional<std::string>("../x/.git"));
  CHECK_FALSE(refs::parse_gitfile("gitdir:\n").has_value());
  CHECK_FALSE(refs::parse_gitfile("gitdir: a\nb\n").has_value());

  refs::ReachCache c{"key\nwith lines", std::map<std::string, std::string>{{"main", id}}, {id}, {}};
  CHECK(refs::parse_reach_cache(refs::serialise_reach_cache(c))->key == c.key);
  std::string text = refs::serialise_reach_cache(c);
  CHECK_FALSE(refs::parse_reach_cache(text.substr(0, text.size() - 4)).has_value());  // truncated
  CHECK_FALSE(refs::parse_reach_cache("tether-reach-cache v1\n999999999\nx").has_value());
}

TEST_CASE("GitReader answers status's questions without libgit2, and opens it for objects") {
  Repo r;
  {
    GitReader reader(r.dir);
    CHECK(reader.root() == r.dir);
    CHECK(reader.shared_dir() == r.dir / ".git");
    CHECK(reader.head() == std::optional<std::string>(r.c2));
    CHECK(reader.current_branch() == std::optional<std::string>("main"));
    auto stamp = reader.index_stamp();
    REQUIRE(stamp.has_value());
    CHECK(stamp->id.starts_with((r.dir / ".git/index").string() + " "));
    CHECK(reader.cache_stats().repository_opens == 0);
    // First time: libgit2 answers and the cache records it.
    CHECK(reader.branches() == std::map<std::string, std::string>{{"main", r.c2}, {"side", r.c1}});
    CHECK(reader.alive_commits({r.c1, r.c2}) == std::set<std::string>{r.c1, r.c2});
    CHECK(reader.cache_stats().repository_opens == 1);
    CHECK(reader.cache_stats().walks == 1);
    CHECK(reader.resolve("HEAD~1") == r.c1);  // objects: libgit2, opened once
    CHECK(reader.cache_stats().repository_opens == 1);
  }
  GitReader again(r.dir);
  CHECK(again.branches() == std::map<std::string, std::string>{{"main", r.c2}, {"side", r.c1}});
  CHECK(again.alive_commits({r.c2, r.c1}) == std::set<std::string>{r.c1, r.c2});
  CHECK(again.cache_stats().repository_opens == 0);
  CHECK(again.cache_stats().reach_hits == 2);

  // A commit not asked before: one walk, then known.
  const std::string unknown = "0123456789abcdef0123456789abcdef01234567";
  CHECK(again.alive_commits({r.c1, unknown}) == std::set<std::string>{r.c1});
  CHECK(again.cache_stats().walks == 1);
  CHECK(again.alive_commits({unknown}).empty());
  CHECK(again.cache_stats().walks == 1);
}

TEST_CASE("reachability cache: drift after the commit is gone from history, a copied cache, garbage") {
  Repo r;
  auto alive = [&](const fs::path& dir, const std::vector<std::string>& ask) {
    GitReader reader(dir);
    auto got = reader.alive_commits(ask);
    return std::make_pair(got, reader.cache_stats().walks);
  };
  CHECK(alive(r.dir, {r.c2}) == std::make_pair(std::set<std::string>{r.c2}, std::size_t{1}));
  CHECK(alive(r.dir, {r.c2}) == std::make_pair(std::set<std::string>{r.c2}, std::size_t{0}));  // cached

  // The commit leaves history outside tether: the tips changed, so the cache says nothing.
  git(r.dir, {"reset", "-q", "--hard", "HEAD~1"});
  git(r.dir, {"reflog", "expire", "--expire=now", "--all"});
  git(r.dir, {"gc", "-q", "--prune=now"});
  CHECK(alive(r.dir, {r.c2}) == std::make_pair(std::set<std::string>{}, std::size_t{1}));
  CHECK(alive(r.dir, {r.c2}) == std::make_pair(std::set<std::string>{}, std::size_t{0}));

  // A cache copied from another repository (a copy of this one: the same refs, the same
  // commits) never matches: the key names the repository it was written in.
  const fs::path cache = r.dir / ".git" / refs::kReachCacheFile;
  REQUIRE(fs::exists(cache));
  const fs::path copy = r.tmp.path() / "copy";
  fs::copy(r.dir, copy, fs::copy_options::recursive);
  REQUIRE(read(copy / ".git" / refs::kReachCacheFile) == read(cache));
  CHECK(alive(copy, {r.c2}).second == 1);
  CHECK(alive(copy, {r.c2}).second == 0);

  // Garbage, truncation, a directory, a symlink: ignored, walked, rewritten.
  for (const std::string& g : {std::string("garbage"), read(cache).substr(0, read(cache).size() / 2), std::string()}) {
    write(cache, g);
    CHECK(alive(r.dir, {r.c2}) == std::make_pair(std::set<std::string>{}, std::size_t{1}));
    CHECK(refs::parse_reach_cache(read(cache)).has_value());
  }
  fs::remove(cache);
  fs::create_symlink(r.dir / "a.txt", cache);
  CHECK(alive(r.dir, {r.c1}) == std::make_pair(std::set<std::string>{r.c1}, std::size_t{1}));
  CHECK(read(r.dir / "a.txt") == "1");  // the symlink was replaced, not followed
  CHECK_FALSE(fs::is_symlink(cache));
}
