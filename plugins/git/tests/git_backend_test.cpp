// The git backend as the host sees it: the built tether-backend-git.so loaded through the
// plugin host, driven against real repositories made and inspected with the `git` command
// (so every check compares with what git itself reports).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

#include "tether/errors.hpp"
#include "tether/host/plugin.hpp"
#include "tether/host/proxy.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/errors.hpp"
#include "tether/testing/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using tether::sdk::Expected;
using tether::sdk::Json;
using tether::sdk::Source;
using tether::testing::TempDir;

constexpr const char* kEmptyRoot = "5a2cfa770badaceb6c6de5171fdf82c871fa40de";

// Runs git in `dir`; the command must succeed. Returns stdout without the final newline.
std::string git(const fs::path& dir, std::vector<std::string> args) {
  std::vector<std::string> argv{"git", "-C", dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  tether::support::ProcessOptions opts;
  opts.set_env = {{"GIT_AUTHOR_NAME", "t"},       {"GIT_AUTHOR_EMAIL", "t@example.invalid"},
                  {"GIT_COMMITTER_NAME", "t"},    {"GIT_COMMITTER_EMAIL", "t@example.invalid"},
                  {"GIT_CONFIG_NOSYSTEM", "1"},   {"HOME", dir.string()}};
  auto r = tether::support::run_process(argv, opts);
  INFO(tether::support::join_argv(argv), ": ", r.err);
  REQUIRE(r.ok());
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool git_ok(const fs::path& dir, std::vector<std::string> args) {
  std::vector<std::string> argv{"git", "-C", dir.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return tether::support::run_process(argv).ok();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A repository with `main` checked out and one commit.
fs::path make_repo(const TempDir& tmp, const std::string& name) {
  fs::path dir = tmp.dir(name);
  git(dir, {"init", "-q", "-b", "main"});
  write(dir / "README", "hello\n");
  git(dir, {"add", "README"});
  git(dir, {"commit", "-q", "-m", "first"});
  return dir;
}

std::string commit_file(const fs::path& dir, const std::string& file, const std::string& text,
                        const std::string& msg = "change") {
  write(dir / file, text);
  git(dir, {"add", "-A"});
  git(dir, {"commit", "-q", "-m", msg});
  return git(dir, {"rev-parse", "HEAD"});
}

// Commits `file` on `branch` (not checked out) through a temporary worktree, as another
// writer would; returns the new sha.
std::string commit_on_branch(const fs::path& repo, const std::string& branch, const std::string& file,
                             const std::string& text) {
  fs::path wt = repo.parent_path() / (repo.filename().string() + "-wt");
  git(repo, {"worktree", "add", "-q", wt.string(), branch});
  std::string sha = commit_file(wt, file, text);
  git(repo, {"worktree", "remove", wt.string()});
  return sha;
}

struct Backend {
  Backend() {
    const char* path = std::getenv("TETHER_GIT_PLUGIN");
    REQUIRE_MESSAGE(path, "TETHER_GIT_PLUGIN is not set (run through meson test)");
    proxy = std::make_unique<tether::host::BackendProxy>(tether::host::Plugin::load(path));
  }
  tether::host::BackendProxy* operator->() { return proxy.get(); }
  std::unique_ptr<tether::host::BackendProxy> proxy;
};

Json loc(const fs::path& p, Json extra = Json::object()) {
  extra["path"] = p.string();
  return extra;
}

using tether::testing::contains;
using tether::testing::error_of;

}  // namespace

TEST_CASE("describe: stable, Forkable, with the flags the issue names") {
  Backend be;
  CHECK(be->kind() == "git");
  CHECK(be->description().maturity == "stable");
  CHECK(std::string(be->tier()) == "forkable");
  for (uint32_t cap : {tether::sdk::kPin, tether::sdk::kFork, tether::sdk::kPromote, tether::sdk::kMerge,
                       tether::sdk::kConditionalRef, tether::sdk::kAtomicRef, tether::sdk::kCreate,
                       tether::sdk::kDiff, tether::sdk::kHistory, tether::sdk::kAddressable})
    CHECK(be->has_capability(cap));
}

TEST_CASE("locators the backend refuses, each with a one-line reason") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  CHECK(contains(error_of([&] { be->validate_locator(Json{{"path", "relative/dir"}}); }), "not absolute"));
  CHECK(contains(error_of([&] { be->validate_locator(Json{{"path", "https://example.com/x.git"}}); }), "local 'path'"));
  CHECK(contains(error_of([&] { be->validate_locator(loc(repo, {{"ref", "--upload-pack=x"}})); }), "looks like an option"));
  CHECK(contains(error_of([&] { be->validate_locator(loc(repo, {{"remote", "-x"}})); }), "looks like an option"));
  CHECK(contains(error_of([&] { be->validate_locator(loc(repo, {{"remote", "nowhere"}})); }),
                 "'nowhere' is not a remote configured in " + repo.string()));
  CHECK(contains(error_of([&] { be->validate_locator(loc(repo, {{"ref", "no-such-branch"}})); }),
                 "unknown revision 'no-such-branch'"));
  fs::path plain = tmp.dir("plain");
  CHECK(contains(error_of([&] { be->fingerprint(loc(plain)); }), "is not a git repository"));
  // a subdirectory of a repository is not the repository
  fs::create_directories(repo / "sub");
  CHECK(contains(error_of([&] { be->fingerprint(loc(repo / "sub")); }), "is not a git repository"));
  fs::path bare = tmp.path() / "bare.git";
  git(tmp.path(), {"clone", "-q", "--bare", repo.string(), bare.string()});
  CHECK(contains(error_of([&] { be->validate_locator(loc(bare)); }), "bare repository"));
  CHECK(be->fingerprint(loc(bare, {{"ref", "main"}}))["sha"] == git(repo, {"rev-parse", "HEAD"}));
}

TEST_CASE("a path inside the dataset checkout is refused") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path dataset = make_repo(tmp, "dataset");
  fs::path inner = dataset / "vendored";
  fs::create_directories(inner);
  git(inner, {"init", "-q", "-b", "main"});
  write(inner / "f", "f\n");
  git(inner, {"add", "f"});
  git(inner, {"commit", "-q", "-m", "f"});
  fs::path beside = make_repo(tmp, "dataset-code");
  fs::path link = tmp.dir("links") / "ds";
  fs::create_directory_symlink(dataset, link);
  Json s = be->fingerprint(loc(beside));
  Json inside_state{{"sha", git(inner, {"rev-parse", "HEAD"})}, {"dirty", false}};
  std::vector<tether::sdk::VerifyRequest> batch{{loc(inner), inside_state, std::nullopt, false},
                                                {loc(beside), s, std::nullopt, false},
                                                {loc(link / "vendored"), inside_state, std::nullopt, false},
                                                {loc(inner), inside_state, std::nullopt, false}};
  // Before a checkout is configured the inner repository is verified (and its handle kept).
  for (const auto& o : be->verify_many(batch)) {
    REQUIRE(o.report);
    CHECK(o.report->status == tether::sdk::VerifyStatus::Ok);
  }

  be->configure({"", dataset.string(), Json::object(), Json::object()});
  CHECK(contains(error_of([&] { be->validate_locator(loc(inner)); }), "inside this dataset's checkout"));
  CHECK(contains(error_of([&] { be->fingerprint(loc(dataset)); }), "inside this dataset's checkout"));
  // beside the checkout is fine
  be->validate_locator(loc(beside));
  // verify and verify_many (which resolve the checkout once per call) refuse alike, through
  // a symlink too, kept handle or not; the repository beside it is answered.
  auto many = be->verify_many(batch);
  REQUIRE(many.size() == batch.size());
  for (std::size_t i : {0, 2, 3}) {
    INFO(i);
    REQUIRE_FALSE(many[i].report);
    CHECK(contains(many[i].message, "inside this dataset's checkout"));
    std::string alone;
    try {
      be->verify(batch[i].locator, batch[i].state, std::nullopt);
    } catch (const tether::BackendError& e) {
      alone = e.bare_message();
    }
    CHECK(many[i].message == alone);
  }
  REQUIRE(many[1].report);
  CHECK(many[1].report->status == tether::sdk::VerifyStatus::Ok);
}

TEST_CASE("fingerprint: the commit a ref sits at; dirty only for the checked-out branch") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  std::string first = git(repo, {"rev-parse", "HEAD"});
  Json s = be->fingerprint(loc(repo));
  CHECK(s == Json{{"sha", first}, {"dirty", false}});
  write(repo / "untracked.txt", "x");
  CHECK(be->fingerprint(loc(repo))["dirty"] == true);
  CHECK(be->fingerprint(loc(repo))["sha"] == first);
  fs::remove(repo / "untracked.txt");
  std::string second = commit_file(repo, "a.txt", "a\n");
  CHECK(be->fingerprint(loc(repo))["sha"] == second);
  // `at` detaches at any commit-ish; another branch is never dirty
  CHECK(be->fingerprint(loc(repo, {{"at", first.substr(0, 8)}}))["sha"] == first);
  git(repo, {"branch", "side", first});
  write(repo / "untracked.txt", "x");
  CHECK(be->fingerprint(loc(repo, {{"ref", "side"}})) == Json{{"sha", first}, {"dirty", false}});
  CHECK(be->fingerprint(loc(repo, {{"ref", "main"}}))["dirty"] == true);
}

TEST_CASE("pin: a lightweight tag, idempotent, refused when the tag points elsewhere or the tree is dirty") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  auto pin = be->pin(loc(repo), s, "0a1b2c3d.0123456789abcdef");
  CHECK(pin.ref == "tether.0a1b2c3d.0123456789abcdef");
  CHECK(pin.created);
  CHECK(git(repo, {"cat-file", "-t", "refs/tags/" + pin.ref}) == "commit");  // lightweight, not annotated
  CHECK(git(repo, {"rev-parse", pin.ref}) == s["sha"]);
  auto again = be->pin(loc(repo), s, "0a1b2c3d.0123456789abcdef");
  CHECK_FALSE(again.created);
  git(repo, {"branch", "tether.ws.0a1b2c3d.b", "HEAD"});
  git(repo, {"tag", "tether.ws.0a1b2c3d.t", "HEAD"});
  CHECK(be->list_pins(loc(repo)) == std::vector<std::string>{"0a1b2c3d.0123456789abcdef"});

  Json s2{{"sha", commit_file(repo, "b.txt", "b\n")}, {"dirty", false}};
  CHECK(contains(error_of([&] { be->pin(loc(repo), s2, "0a1b2c3d.0123456789abcdef"); }), "already points at"));
  Json dirty = s2;
  dirty["dirty"] = true;
  CHECK(contains(error_of([&] { be->pin(loc(repo), dirty, "0a1b2c3d.1111111111111111"); }), "dirty working tree"));
  CHECK_FALSE(git_ok(repo, {"rev-parse", "-q", "--verify", "refs/tags/tether.0a1b2c3d.1111111111111111"}));
  CHECK(be->pin(loc(repo, {{"allow_dirty", true}}), dirty, "0a1b2c3d.1111111111111111").created);

  be->unpin(loc(repo), pin);
  CHECK_FALSE(git_ok(repo, {"rev-parse", "-q", "--verify", "refs/tags/" + pin.ref}));
  be->unpin(loc(repo), pin);  // already gone: fine
}

TEST_CASE("verify: ok, a deleted tag is missing, a moved tag has drifted") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  auto pin = be->pin(loc(repo), s, "0a1b2c3d.0123456789abcdef");
  CHECK(be->verify(loc(repo), s, pin).status == tether::sdk::VerifyStatus::Ok);
  CHECK(be->verify(loc(repo), s, std::nullopt).status == tether::sdk::VerifyStatus::Ok);
  std::string other = commit_file(repo, "b.txt", "b\n");
  git(repo, {"tag", "-f", pin.ref, other});
  auto drifted = be->verify(loc(repo), s, pin);
  CHECK(drifted.status == tether::sdk::VerifyStatus::Drifted);
  git(repo, {"tag", "-d", pin.ref});
  auto missing = be->verify(loc(repo), s, pin);
  CHECK(missing.status == tether::sdk::VerifyStatus::Missing);
  CHECK(contains(missing.message, pin.ref));
  Json ghost{{"sha", "0123456789abcdef0123456789abcdef01234567"}, {"dirty", false}};
  CHECK(be->verify(loc(repo), ghost, std::nullopt).status == tether::sdk::VerifyStatus::Missing);
}

// verify reads a lightweight tag at the recorded commit from the ref and the object's header
// alone; every other shape takes the full peel. Each answer is checked against what git
// says, through verify and verify_many alike.
TEST_CASE("verify: lightweight, annotated, moved, non-commit and dangling pin tags") {
  using tether::sdk::VerifyStatus;
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  std::string sha = s["sha"];
  std::string other = commit_file(repo, "b.txt", "b\n");
  auto pin_named = [](const std::string& hash) {
    return tether::sdk::Pin{"0a1b2c3d." + hash, "tether.0a1b2c3d." + hash};
  };
  struct Case {
    const char* what;
    Json state;
    tether::sdk::Pin pin;
    std::optional<VerifyStatus> status;  // nullopt: verify fails
    std::string message;
  };
  std::vector<Case> cases;

  auto light = pin_named("1111111111111111");
  git(repo, {"tag", light.ref, sha});
  REQUIRE(git(repo, {"cat-file", "-t", "refs/tags/" + light.ref}) == "commit");
  cases.push_back({"lightweight, at the commit", s, light, VerifyStatus::Ok, ""});
  cases.push_back({"lightweight, at the commit, an abbreviated sha", Json{{"sha", sha.substr(0, 12)}, {"dirty", false}},
                   light, VerifyStatus::Ok, ""});

  auto annotated = pin_named("2222222222222222");
  git(repo, {"tag", "-a", "-m", "annotated", annotated.ref, sha});
  REQUIRE(git(repo, {"cat-file", "-t", "refs/tags/" + annotated.ref}) == "tag");
  cases.push_back({"annotated, at the commit", s, annotated, VerifyStatus::Ok, ""});

  auto moved = pin_named("3333333333333333");
  git(repo, {"tag", moved.ref, other});
  cases.push_back({"lightweight, elsewhere", s, moved, VerifyStatus::Drifted,
                   moved.ref + " -> " + other.substr(0, 12) + ", expected " + sha.substr(0, 12)});
  auto moved_annotated = pin_named("4444444444444444");
  git(repo, {"tag", "-a", "-m", "annotated", moved_annotated.ref, other});
  cases.push_back({"annotated, elsewhere", s, moved_annotated, VerifyStatus::Drifted,
                   moved_annotated.ref + " -> " + other.substr(0, 12) + ", expected " + sha.substr(0, 12)});

  // A tag at a blob, and a state that claims the blob's id: the id matches, the type does not.
  std::string blob = git(repo, {"rev-parse", "HEAD:b.txt"});
  auto at_blob = pin_named("5555555555555555");
  git(repo, {"tag", at_blob.ref, blob});
  cases.push_back({"lightweight, at a blob", Json{{"sha", blob}, {"dirty", false}}, at_blob, std::nullopt, ""});

  // A tag file naming an object the repository does not have (git itself refuses to make one).
  std::string ghost = "0123456789abcdef0123456789abcdef01234567";
  REQUIRE_FALSE(git_ok(repo, {"cat-file", "-e", ghost}));
  auto dangling = pin_named("6666666666666666");
  write(repo / ".git" / "refs" / "tags" / dangling.ref, ghost + "\n");
  cases.push_back({"lightweight, at a missing object", Json{{"sha", ghost}, {"dirty", false}}, dangling,
                   VerifyStatus::Missing, dangling.ref + " not found in " + repo.string()});

  auto absent = pin_named("7777777777777777");
  cases.push_back({"no such tag", s, absent, VerifyStatus::Missing, absent.ref + " not found in " + repo.string()});

  std::vector<tether::sdk::VerifyRequest> batch;
  for (const auto& c : cases) batch.push_back({loc(repo), c.state, c.pin, false});
  auto many = be->verify_many(batch);
  REQUIRE(many.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    INFO(c.what);
    if (c.status) {
      auto one = be->verify(loc(repo), c.state, c.pin);
      CHECK(one.status == *c.status);
      CHECK(one.message == c.message);
      REQUIRE(many[i].report);
      CHECK(many[i].report->status == *c.status);
      CHECK(many[i].report->message == c.message);
    } else {
      std::string message;
      try {
        be->verify(loc(repo), c.state, c.pin);
      } catch (const tether::BackendError& e) {
        message = e.bare_message();
      }
      CHECK(contains(message, "does not name a commit"));
      CHECK_FALSE(many[i].report);
      CHECK(many[i].message == message);
    }
  }
}

namespace {

// What verify alone answers for one item: "<status>: <message>", or "failed: <message>".
std::string verify_alone(Backend& be, const tether::sdk::VerifyRequest& r) {
  try {
    auto rep = be->verify(r.locator, r.state, r.pin, r.deep);
    return std::string(tether::sdk::verify_status_name(rep.status)) + ": " + rep.message;
  } catch (const tether::BackendError& e) {
    return "failed: " + e.bare_message();
  }
}
std::string answer_of(const tether::sdk::VerifyOutcome& o) {
  if (o.report) return std::string(tether::sdk::verify_status_name(o.report->status)) + ": " + o.report->message;
  return "failed: " + o.message;
}

}  // namespace

// verify_many reads a repository's tags once when a call asks about several of its pins, and
// answers from that only where a lookup would find the same packed ref: a loose ref over a
// packed one, a symbolic ref, an annotated tag, a corrupt loose file, a missing tag and
// hostile names must all answer as verify does alone, in a batch long enough to use it.
TEST_CASE("verify_many with packed tags: every shape answers as verify alone does") {
  using tether::sdk::VerifyStatus;
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  std::string sha = s["sha"];
  std::string other = commit_file(repo, "b.txt", "b\n");
  Json s_other{{"sha", other}, {"dirty", false}};
  auto pin_named = [](const std::string& name) { return tether::sdk::Pin{name, "tether." + name, true}; };

  // Tags made, then packed (as `git gc` leaves them), then some written over loose.
  std::vector<tether::sdk::Pin> plain;
  for (int i = 0; i < 8; ++i) {
    plain.push_back(pin_named("c0fe5a1e.plain" + std::to_string(i)));
    git(repo, {"tag", plain.back().ref, sha});
  }
  auto annotated = pin_named("c0fe5a1e.annotated");
  git(repo, {"tag", "-a", "-m", "annotated", annotated.ref, sha});
  auto loose_here = pin_named("c0fe5a1e.loose-here");  // packed elsewhere, loose at the commit
  git(repo, {"tag", loose_here.ref, other});
  auto loose_elsewhere = pin_named("c0fe5a1e.loose-elsewhere");  // packed at the commit, loose elsewhere
  git(repo, {"tag", loose_elsewhere.ref, sha});
  auto corrupt = pin_named("c0fe5a1e.corrupt");  // packed at the commit, a broken loose file over it
  git(repo, {"tag", corrupt.ref, sha});
  auto upper = pin_named("c0fe5a1e.Upper");
  git(repo, {"tag", upper.ref, sha});
  git(repo, {"pack-refs", "--all", "--prune"});
  REQUIRE(fs::exists(repo / ".git" / "packed-refs"));
  REQUIRE_FALSE(fs::exists(repo / ".git" / "refs" / "tags" / plain[0].ref));
  git(repo, {"update-ref", "refs/tags/" + loose_here.ref, sha});
  git(repo, {"update-ref", "refs/tags/" + loose_elsewhere.ref, other});
  REQUIRE(fs::exists(repo / ".git" / "refs" / "tags" / loose_here.ref));
  write(repo / ".git" / "refs" / "tags" / corrupt.ref, "not a ref\n");
  auto symbolic = pin_named("c0fe5a1e.symbolic");  // loose, naming a packed tag
  git(repo, {"symbolic-ref", "refs/tags/" + symbolic.ref, "refs/tags/" + plain[1].ref});
  auto fresh = pin_named("c0fe5a1e.fresh");  // loose only
  git(repo, {"tag", fresh.ref, sha});

  struct Case {
    const char* what;
    Json state;
    tether::sdk::Pin pin;
    std::string expected;  // "" when only agreement with verify is checked
  };
  std::string not_found = " not found in " + repo.string();
  std::vector<Case> cases = {
      {"packed, at the commit", s, plain[0], "ok: "},
      {"packed, at the commit, abbreviated", Json{{"sha", sha.substr(0, 7)}, {"dirty", false}}, plain[2], "ok: "},
      {"packed, another commit expected", s_other, plain[3],
       "drifted: " + plain[3].ref + " -> " + sha.substr(0, 12) + ", expected " + other.substr(0, 12)},
      {"packed annotated tag", s, annotated, "ok: "},
      {"loose at the commit over packed elsewhere", s, loose_here, "ok: "},
      {"loose elsewhere over packed at the commit", s, loose_elsewhere,
       "drifted: " + loose_elsewhere.ref + " -> " + other.substr(0, 12) + ", expected " + sha.substr(0, 12)},
      {"a corrupt loose file over a packed tag", s, corrupt, ""},
      {"a symbolic ref to a packed tag", s, symbolic, ""},
      {"loose only", s, fresh, "ok: "},
      {"no such tag", s, pin_named("c0fe5a1e.absent"), "missing: tether.c0fe5a1e.absent" + not_found},
      {"another case of a packed name", s, pin_named("c0fe5a1e.upper"), "missing: tether.c0fe5a1e.upper" + not_found},
      {"the packed name in its own case", s, upper, "ok: "},
      {"a full ref name", s, tether::sdk::Pin{"x", "refs/tags/" + plain[4].ref, true}, "ok: "},
      {"a branch", s_other, tether::sdk::Pin{"x", "refs/heads/main", true}, "ok: "},
      {"not normalised", s, tether::sdk::Pin{"x", "refs/tags//" + plain[5].ref, true}, ""},
      {"a trailing slash", s, tether::sdk::Pin{"x", "refs/tags/" + plain[5].ref + "/", true}, ""},
      {"under a packed tag", s, tether::sdk::Pin{"x", plain[5].ref + "/x", true}, ""},
      {"dot-dot", s, pin_named("../../../../etc/passwd"), ""},
      {"two dots", s, pin_named("a..b"), ""},
      {"a space", s, pin_named("a b"), ""},
      {"a newline", s, pin_named("a\nb"), ""},
      {"not ASCII", s, pin_named("caf\xc3\xa9"), ""},
      {"very long", s, pin_named(std::string(4096, 'f')), ""},
      {"a long component", s, pin_named(std::string(300, 'f')), ""},
      {".lock", s, pin_named("c0fe5a1e.plain6.lock"), ""},
      {"empty", s, tether::sdk::Pin{"", "", true}, ""},
  };
  // Twice over, and after a run of plain pins: every shape is asked once the tags were read.
  std::vector<tether::sdk::VerifyRequest> batch;
  std::vector<std::string> expected;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 6; ++i) {
      batch.push_back({loc(repo), s, plain[static_cast<std::size_t>(i)], false});
      expected.push_back("ok: ");
    }
    for (const auto& c : cases) {
      batch.push_back({loc(repo), c.state, c.pin, false});
      expected.push_back(c.expected);
    }
  }
  auto many = be->verify_many(batch);
  REQUIRE(many.size() == batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    INFO(i, ": ", Json(batch[i]).dump());
    std::string alone = verify_alone(be, batch[i]);
    CHECK(answer_of(many[i]) == alone);
    if (!expected[i].empty()) CHECK(alone == expected[i]);
  }
  CHECK(verify_alone(be, batch[6 + 6]).rfind("failed: ", 0) == 0);  // the corrupt loose file fails, as libgit2 says

  // A packed-refs file libgit2 reads by binary search ("sorted") that is not sorted: the tags
  // cannot be read from it, and every answer is still the lookup's.
  fs::path file = repo / ".git" / "packed-refs";
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The records (each with its "^" line) in reverse order, under the same "sorted" header.
  std::vector<std::string> records;
  std::string header;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at) + 1;
    std::string line = text.substr(at, end - at);
    if (line[0] == '#') header += line;
    else if (line[0] == '^') records.back() += line;
    else records.push_back(line);
    at = end;
  }
  REQUIRE(header.find(" sorted ") != std::string::npos);
  std::string swapped = header;
  for (auto r = records.rbegin(); r != records.rend(); ++r) swapped += *r;
  REQUIRE(swapped.size() == text.size());
  write(file, swapped);
  auto unsorted = be->verify_many(batch);
  REQUIRE(unsorted.size() == batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    INFO(i, ": ", Json(batch[i]).dump());
    CHECK(answer_of(unsorted[i]) == verify_alone(be, batch[i]));
  }
  // libgit2's binary search no longer finds some of the packed tags that are there.
  int lost = 0;
  for (std::size_t i = 0; i < 6; ++i) lost += answer_of(unsorted[i]) == "missing: " + plain[i].ref + not_found;
  CHECK(lost > 0);
}

TEST_CASE("pins are pushed to the remote through the git command; a failed push leaves no local tag") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  fs::path bare = tmp.path() / "origin.git";
  git(tmp.path(), {"init", "-q", "--bare", bare.string()});
  git(repo, {"remote", "add", "origin", bare.string()});
  Json l = loc(repo, {{"remote", "origin"}});
  Json s = be->fingerprint(l);
  auto pin = be->pin(l, s, "0a1b2c3d.0123456789abcdef");
  CHECK(git(bare, {"rev-parse", "refs/tags/" + pin.ref}) == s["sha"]);
  be->unpin(l, pin);
  CHECK_FALSE(git_ok(bare, {"rev-parse", "-q", "--verify", "refs/tags/" + pin.ref}));

  // a URL from secrets.toml ([objects."<key>"] remote) wins over the locator's remote name
  fs::path mirror = tmp.path() / "mirror.git";
  git(tmp.path(), {"init", "-q", "--bare", mirror.string()});
  be->configure({"", "", Json::object(), Json{{repo.string(), Json{{"remote", "file://" + mirror.string()}}}}});
  auto mirrored = be->pin(l, s, "0a1b2c3d.3333333333333333");
  CHECK(git(mirror, {"rev-parse", "refs/tags/" + mirrored.ref}) == s["sha"]);
  CHECK_FALSE(git_ok(bare, {"rev-parse", "-q", "--verify", "refs/tags/" + mirrored.ref}));
  be->configure({"", "", Json::object(), Json::object()});

  git(repo, {"remote", "add", "gone", (tmp.path() / "no-such-remote.git").string()});
  Json lg = loc(repo, {{"remote", "gone"}});
  std::string err = error_of([&] { be->pin(lg, s, "0a1b2c3d.2222222222222222"); });
  CHECK(contains(err, "was not pushed to gone"));
  CHECK_FALSE(git_ok(repo, {"rev-parse", "-q", "--verify", "refs/tags/tether.0a1b2c3d.2222222222222222"}));
}

TEST_CASE("fork is compare-and-swap and never moves a branch a worktree has checked out") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  std::string wref = "tether.ws.0a1b2c3d.work";
  CHECK(be->fork(loc(repo), Source::of_state(s), wref, Expected::absent()) == wref);
  CHECK(git(repo, {"rev-parse", "refs/heads/" + wref}) == s["sha"]);
  CHECK_THROWS_AS(be->fork(loc(repo), Source::of_state(s), wref, Expected::absent()), tether::RefMovedError);
  CHECK(be->list_working_refs(loc(repo)) == std::vector<std::string>{wref});

  fs::path wt = tmp.path() / "wt";
  git(repo, {"worktree", "add", "-q", wt.string(), wref});
  std::string head = commit_file(wt, "w.txt", "w\n");
  Json h{{"sha", head}, {"dirty", false}};
  std::string err = error_of([&] { be->fork(loc(repo), Source::of_state(s), wref, Expected::at(h)); });
  CHECK(contains(err, "is checked out in " + fs::canonical(wt).string()));
  CHECK(git(repo, {"rev-parse", "refs/heads/" + wref}) == head);
  CHECK(be->working_ref_blockers(loc(repo), wref).has_value());
  CHECK_THROWS(be->delete_working_ref(loc(repo), wref));
  git(repo, {"worktree", "remove", "--force", wt.string()});
  CHECK_FALSE(be->working_ref_blockers(loc(repo), wref).has_value());
  be->fork(loc(repo), Source::of_state(s), wref, Expected::at(h));
  CHECK(git(repo, {"rev-parse", "refs/heads/" + wref}) == s["sha"]);
  be->delete_working_ref(loc(repo), wref);
  CHECK(be->list_working_refs(loc(repo)).empty());
  // the repository's own checked-out branch is not reset either
  std::string later = commit_file(repo, "later.txt", "later\n");
  CHECK(contains(error_of([&] { be->fork(loc(repo), Source::of_state(s), "main"); }),
                 "main is checked out in " + fs::canonical(repo).string()));
  CHECK(git(repo, {"rev-parse", "main"}) == later);
  CHECK(contains(error_of([&] { be->fork(loc(repo), Source::of_ref("tether.nothing"), "x"); }), "tether.nothing"));
}

TEST_CASE("open: a handle naming the path, the ref and the commit; rename_working_ref moves a branch's name") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json s = be->fingerprint(loc(repo));
  Json base = be->open(loc(repo));
  CHECK(base["path"] == fs::canonical(repo).string());
  CHECK(base["ref"] == "main");
  CHECK(base["sha"] == s["sha"]);
  CHECK(base["read_only"] == true);
  CHECK(base["address"] == fs::canonical(repo).string() + "@" + s["sha"].get<std::string>());
  auto pin = be->pin(loc(repo), s, "0a1b2c3d.0123456789abcdef");
  commit_file(repo, "later.txt", "later\n");
  Json pinned = be->open(loc(repo), Source::of_pin(pin), false);
  CHECK(pinned["sha"] == s["sha"]);
  CHECK(pinned["ref"] == pin.ref);
  CHECK(pinned["read_only"] == true);  // a pinned state is never written through
  std::string old_name = "tether.ws.0a1b2c3d.old", new_name = "tether.ws.0a1b2c3d.new";
  be->fork(loc(repo), Source::of_pin(pin), old_name);
  Json writable = be->open(loc(repo), Source::of_ref(old_name), false);
  CHECK(writable["read_only"] == false);
  CHECK(writable["ref"] == old_name);
  CHECK(be->rename_working_ref(loc(repo), old_name, new_name) == new_name);
  CHECK(be->list_working_refs(loc(repo)) == std::vector<std::string>{new_name});
  CHECK(git(repo, {"rev-parse", new_name}) == s["sha"]);
  CHECK(contains(error_of([&] { be->rename_working_ref(loc(repo), old_name, new_name); }), "does not exist"));
}

TEST_CASE("promote fast-forwards the checked-out base and its files; a diverged base is refused") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json base = be->fingerprint(loc(repo));
  std::string wref = "tether.ws.0a1b2c3d.p";
  be->fork(loc(repo), Source::of_state(base), wref);
  std::string tip = commit_on_branch(repo, wref, "new.txt", "new\n");

  CHECK_THROWS_AS(be->promote(loc(repo), Source::of_ref(wref), Expected::at(Json{{"sha", tip}})), tether::RefMovedError);
  write(repo / "scratch.txt", "uncommitted");
  CHECK(contains(error_of([&] { be->promote(loc(repo), Source::of_ref(wref), Expected::at(base)); }), "uncommitted changes"));
  fs::remove(repo / "scratch.txt");
  Json moved = be->promote(loc(repo), Source::of_ref(wref), Expected::at(base));
  CHECK(moved == Json{{"sha", tip}, {"dirty", false}});
  CHECK(git(repo, {"rev-parse", "main"}) == tip);
  CHECK(fs::exists(repo / "new.txt"));
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  // idempotent
  CHECK(be->promote(loc(repo), Source::of_ref(wref))["sha"] == tip);

  // the base moved on: not a fast-forward any more
  be->fork(loc(repo), Source::of_state(Json{{"sha", git(repo, {"rev-parse", "HEAD~1"})}}), wref);
  commit_on_branch(repo, wref, "other.txt", "other\n");
  CHECK(contains(error_of([&] { be->promote(loc(repo), Source::of_ref(wref)); }), "merge instead"));
  CHECK(git(repo, {"rev-parse", "main"}) == tip);
}

TEST_CASE("merge makes a real merge commit; conflicts name the files and leave the base untouched") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  Json base = be->fingerprint(loc(repo));
  std::string wref = "tether.ws.0a1b2c3d.m";
  be->fork(loc(repo), Source::of_state(base), wref);
  fs::path wt = tmp.path() / "wt";
  git(repo, {"worktree", "add", "-q", wt.string(), wref});
  std::string theirs = commit_file(wt, "theirs.txt", "t\n");
  std::string ours = commit_file(repo, "ours.txt", "o\n");
  Json merged = be->merge(loc(repo), Source::of_state(Json{{"sha", theirs}}), "merge the fork",
                          Expected::at(Json{{"sha", ours}}));
  std::string m = merged["sha"];
  CHECK(git(repo, {"rev-parse", "main"}) == m);
  CHECK(git(repo, {"rev-list", "--parents", "-n1", m}) == m + " " + ours + " " + theirs);
  CHECK(git(repo, {"log", "-1", "--format=%s", m}) == "merge the fork");
  CHECK(fs::exists(repo / "theirs.txt"));
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  CHECK(be->ancestor_of(loc(repo), Json{{"sha", theirs}}, Source::of_state(merged)) == true);
  CHECK(be->ancestor_of(loc(repo), merged, Source::of_state(Json{{"sha", theirs}})) == false);

  // both sides change one line of README
  commit_file(wt, "README", "theirs\n");
  std::string before = commit_file(repo, "README", "ours\n");
  try {
    be->merge(loc(repo), Source::of_ref(wref), "conflicting");
    FAIL("merge of a conflicting change went through");
  } catch (const tether::MergeConflict& e) {
    CHECK(e.conflicts() == std::vector<std::string>{"README"});
    CHECK(contains(e.what(), "README"));
  }
  CHECK(git(repo, {"rev-parse", "main"}) == before);
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  git(repo, {"worktree", "remove", "--force", wt.string()});
}

TEST_CASE("diff lists files added, removed, modified and renamed with line counts") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  write(repo / "keep.txt", "1\n2\n3\n");
  write(repo / "gone.txt", "bye\n");
  write(repo / "moved.txt", "a long enough body\nto be found as a rename\nby similarity\n");
  std::string a = commit_file(repo, "x", "x\n");
  write(repo / "keep.txt", "1\nTWO\n3\n4\n");
  fs::remove(repo / "gone.txt");
  fs::rename(repo / "moved.txt", repo / "renamed.txt");
  write(repo / "added.txt", "new\n");
  std::string b = commit_file(repo, "x", "x\n");
  auto d = be->diff(loc(repo), Json{{"sha", a}}, Json{{"sha", b}});
  CHECK(d.unit == "files");
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
  CHECK(d.modified == 2);  // renamed counts as modified
  std::map<std::string, std::pair<std::string, std::string>> got;
  for (const auto& e : d.entries) got[e.path] = {e.change, e.detail};
  CHECK(got["added.txt"] == std::make_pair(std::string("added"), std::string("+1 -0")));
  CHECK(got["gone.txt"] == std::make_pair(std::string("removed"), std::string("+0 -1")));
  CHECK(got["keep.txt"] == std::make_pair(std::string("modified"), std::string("+2 -1")));
  CHECK(got["moved.txt -> renamed.txt"].first == "renamed");
  CHECK(be->diff(loc(repo), Json{{"sha", b}}, Json{{"sha", b}}).entries.empty());
}

TEST_CASE("history: newest first, with times, subjects and the refs at each commit") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  std::string second = commit_file(repo, "a.txt", "a\n", "second commit\n\nbody text");
  git(repo, {"tag", "v1"});
  auto h = be->history(loc(repo), std::nullopt, 10);
  REQUIRE(h.size() == 2);
  CHECK(h[0].id == second);
  CHECK(h[0].message == "second commit");
  CHECK(h[1].message == "first");
  CHECK(h[0].when.value_or("") == git(repo, {"log", "-1", "--format=%cI", second}));
  CHECK(std::find(h[0].refs.begin(), h[0].refs.end(), "main") != h[0].refs.end());
  CHECK(std::find(h[0].refs.begin(), h[0].refs.end(), "v1") != h[0].refs.end());
  CHECK(be->history(loc(repo), std::nullopt, 1).size() == 1);
  CHECK(be->history(loc(repo), std::string("v1~1"), 10).size() == 1);
}

TEST_CASE("create: the fixed root commit, the owner in git config, and delete only what is ours and empty") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path path = tmp.path() / "made" / "store";
  Json s = be->create(loc(path), "0a1b2c3d");
  CHECK(s["sha"] == kEmptyRoot);
  CHECK(git(path, {"config", "--get", "tether.owner"}) == "0a1b2c3d");
  CHECK(git(path, {"rev-parse", "HEAD"}) == kEmptyRoot);
  CHECK(git(path, {"symbolic-ref", "--short", "HEAD"}) == "main");
  CHECK(git(path, {"status", "--porcelain"}).empty());
  CHECK(be->owner(loc(path)) == "0a1b2c3d");
  CHECK(be->is_ref_empty(loc(path)) == true);
  CHECK(contains(error_of([&] { be->create(loc(path), "ffffffff"); }), "never adopts"));
  write(path / "ignored-or-not.txt", "data");
  CHECK(be->is_ref_empty(loc(path)) == false);
  CHECK(contains(error_of([&] { be->delete_store(loc(path)); }), "not empty"));
  fs::remove(path / "ignored-or-not.txt");
  be->delete_store(loc(path));
  CHECK_FALSE(fs::exists(path));
  CHECK_FALSE(be->owner(loc(path)).has_value());

  fs::path theirs = make_repo(tmp, "theirs");
  CHECK_FALSE(be->owner(loc(theirs)).has_value());
  CHECK(contains(error_of([&] { be->delete_store(loc(theirs)); }), "not a repository tether created"));
  CHECK(fs::exists(theirs / "README"));
}

TEST_CASE("a hostile repository runs nothing: no hooks, no fsmonitor") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  fs::path marker = tmp.path() / "ran";
  std::string script = "#!/bin/sh\ntouch " + marker.string() + "\n";
  for (const char* hook : {"reference-transaction", "post-checkout", "post-merge", "pre-push", "post-commit"}) {
    write(repo / ".git" / "hooks" / hook, script);
    fs::permissions(repo / ".git" / "hooks" / hook, fs::perms::owner_all);
  }
  write(tmp.path() / "fsmonitor.sh", script);
  fs::permissions(tmp.path() / "fsmonitor.sh", fs::perms::owner_all);
  git(repo, {"config", "core.fsmonitor", (tmp.path() / "fsmonitor.sh").string()});
  Json s = be->fingerprint(loc(repo));
  auto pin = be->pin(loc(repo), s, "0a1b2c3d.0123456789abcdef");
  std::string wref = "tether.ws.0a1b2c3d.h";
  be->fork(loc(repo), Source::of_state(s), wref);
  be->merge(loc(repo), Source::of_ref(wref), "m");
  be->unpin(loc(repo), pin);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("an inherited GIT_DIR or GIT_CONFIG_* does not redirect reads or pushes") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  fs::path other = make_repo(tmp, "other");
  commit_file(other, "o.txt", "o\n");
  fs::path origin = tmp.path() / "origin.git";
  git(tmp.path(), {"init", "-q", "--bare", origin.string()});
  git(repo, {"remote", "add", "origin", origin.string()});
  struct Env {
    Env(const char* k, const std::string& v) : key(k) { ::setenv(k, v.c_str(), 1); }
    ~Env() { ::unsetenv(key); }
    const char* key;
  };
  Env dir("GIT_DIR", (other / ".git").string());
  Env count("GIT_CONFIG_COUNT", "1");
  Env key("GIT_CONFIG_KEY_0", "remote.origin.url");
  Env value("GIT_CONFIG_VALUE_0", (tmp.path() / "elsewhere.git").string());
  Json l = loc(repo, {{"remote", "origin"}});
  Json s = be->fingerprint(l);
  CHECK(s["sha"] == git(repo, {"--git-dir", (repo / ".git").string(), "rev-parse", "HEAD"}));
  auto pin = be->pin(l, s, "0a1b2c3d.0123456789abcdef");
  CHECK(git(origin, {"--git-dir", origin.string(), "rev-parse", "refs/tags/" + pin.ref}) == s["sha"]);
}

// A kill between the steps of a checked-out landing (landing.hpp), simulated by writing what
// the steps write: the marker, the branch, part of the files. The next call settles it.
TEST_CASE("an interrupted landing of the checked-out base is settled toward the branch; foreign content is named") {
  Backend be;
  TempDir tmp("tether-git");
  fs::path repo = make_repo(tmp, "code");
  std::string from = git(repo, {"rev-parse", "HEAD"});
  Json base = be->fingerprint(loc(repo));
  std::string wref = "tether.ws.0a1b2c3d.k";
  be->fork(loc(repo), Source::of_state(base), wref);
  fs::path wt = repo.parent_path() / "code-wt";
  git(repo, {"worktree", "add", "-q", wt.string(), wref});
  write(wt / "a.txt", "a\n");
  write(wt / "dir/b.txt", "b\n");
  write(wt / "README", "hello again\n");
  git(wt, {"add", "-A"});
  git(wt, {"commit", "-q", "-m", "three files"});
  std::string to = git(wt, {"rev-parse", "HEAD"});
  git(repo, {"worktree", "remove", wt.string()});

  // the ref moved, one file was switched, the index not yet: settle finishes forward
  write(repo / ".git/tether-landing", "main\n" + from + "\n" + to + "\n");
  git(repo, {"update-ref", "refs/heads/main", to, from});
  write(repo / "a.txt", "a\n");
  CHECK(!git(repo, {"status", "--porcelain"}).empty());
  auto blocker = be->promote_blockers(loc(repo), Source::of_ref(wref), false);
  REQUIRE(blocker.blocker);
  CHECK(contains(*blocker.blocker, "run `tether repair`"));
  CHECK(be->promote(loc(repo), Source::of_state(Json{{"sha", to}}), Expected::at(Json{{"sha", to}}))["sha"] == to);
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  CHECK(!fs::exists(repo / ".git/tether-landing"));
  CHECK(fs::exists(repo / "dir/b.txt"));

  // rewind goes back along main's history, files and index with it
  CHECK(be->rewind(loc(repo), Json{{"sha", from}}, Expected::at(Json{{"sha", to}}))["sha"] == from);
  CHECK(git(repo, {"rev-parse", "main"}) == from);
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  CHECK(!fs::exists(repo / "a.txt"));
  CHECK(!fs::exists(repo / "dir"));
  CHECK(contains(error_of([&] { be->rewind(loc(repo), Json{{"sha", to}}, Expected::at(Json{{"sha", from}})); }),
                 "does not descend"));

  // the ref had not moved yet, and someone edited a file the landing switches: named, kept
  write(repo / ".git/tether-landing", "main\n" + from + "\n" + to + "\n");
  write(repo / "README", "my own edit\n");
  CHECK(contains(error_of([&] { be->promote(loc(repo), Source::of_ref(wref), Expected::at(Json{{"sha", from}})); }),
                 "holds changes of its own in README"));
  CHECK(git(repo, {"rev-parse", "main"}) == from);
  CHECK(fs::exists(repo / ".git/tether-landing"));
  write(repo / "README", "hello\n");
  // settled (nothing to switch back), then the promote runs
  CHECK(be->promote(loc(repo), Source::of_ref(wref), Expected::at(Json{{"sha", from}}))["sha"] == to);
  CHECK(git(repo, {"status", "--porcelain"}).empty());
  CHECK(!fs::exists(repo / ".git/tether-landing"));

  // a dirty checkout is a blocker, named with its files
  Json at_to{{"sha", to}};
  commit_on_branch(repo, wref, "c.txt", "c\n");
  write(repo / "README", "dirty\n");
  auto dirty = be->promote_blockers(loc(repo), Source::of_ref(wref), false, Expected::at(at_to));
  REQUIRE(dirty.blocker);
  CHECK(contains(*dirty.blocker, "main is checked out in"));
  CHECK(contains(*dirty.blocker, "(README)"));
  write(repo / "README", "hello again\n");
  CHECK(be->promote_blockers(loc(repo), Source::of_ref(wref), false, Expected::at(at_to)).blocker == std::nullopt);
}
