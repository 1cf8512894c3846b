// Unit tests of `new` and `open` (branching.cpp): the branching decisions (docs/concepts.md;
// docs/cli.md, `new` and `open`) against the in-memory reference backend, whose store this
// test edits as another writer would: lazy and eager forks, branches shared by objects of one
// system, resets agreed by `new` (and --discard), a writable open that never resets unreviewed
// writes, live checkouts holding a bookmark, stale working copies, the trunk. Each case drives
// a real Repo in a real git repository (engine/testing/dataset.hpp).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/testing/dataset.hpp"
#include "tether/engine/commit.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/open.hpp"
#include "tether/errors.hpp"
#include "tether/model/checkout.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/testing/git.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using tether::engine::PlanOp;
using tether::engine::Repo;

namespace {

void git(const fs::path& dir, const std::vector<std::string>& args) { tether::testing::git(dir, args); }
std::string git_out(const fs::path& dir, const std::vector<std::string>& args) { return tether::testing::git(dir, args); }

// The shared dataset fixture, with the vocabulary of these cases.
struct Dataset {
  tether::engine::testing::Dataset fixture;
  fs::path ds = fixture.root();
  std::string id = fixture.open()->dataset_id();

  std::unique_ptr<Repo> open() const { return fixture.open(); }
  void add(const std::string& key, const std::string& system) const { fixture.add_memory(key, system); }
  void commit(const std::string& message) const {
    tether::engine::CommitOptions o;
    o.message = message;
    tether::engine::commit(*open(), o);
  }
  tether::engine::NewResult new_(std::optional<std::string> rev, std::optional<std::string> bookmark = std::nullopt,
                                 bool eager = false, bool discard = false, bool shared = false) const {
    tether::engine::NewOptions o;
    o.rev = std::move(rev);
    o.bookmark = std::move(bookmark);
    o.eager = eager;
    o.discard = discard;
    o.shared = shared;
    return tether::engine::new_workspace(*open(), o);
  }
  std::string fork_name(const std::string& bookmark) const { return tether::model::working_ref_name(id, bookmark); }

  // Object m of system sys1, committed on the trunk.
  void baseline() const {
    add("m", "sys1");
    commit("baseline");
  }
  // ... then on bookmark `bookmark` with m's fork created by a writable open.
  void forked(const std::string& bookmark) const {
    baseline();
    new_(std::nullopt, bookmark);
    tether::engine::open_object(*open(), "m", std::nullopt, true);
  }
  // The head snapshot of a branch in a system, or "" when there is no such branch.
  std::string branch(const std::string& system, const std::string& name) const {
    const auto branches = fixture.branches(system);
    const auto it = branches.find(name);
    return it == branches.end() ? "" : it->second;
  }
  std::size_t branch_count(const std::string& system) const { return fixture.branches(system).size(); }
  // Another writer commits to a branch of a system.
  std::string write(const std::string& system, const std::string& name) const { return fixture.advance(system, name); }
};

}  // namespace

TEST_CASE("new -b decides lazy forks; the first writable open creates the branch at the pin") {
  Dataset d;
  d.baseline();
  auto r = d.new_(std::nullopt, "x");
  CHECK(r.bookmark == "x");
  CHECK(r.pending_forks.at("m") == d.fork_name("x"));
  CHECK(r.working_refs.empty());
  CHECK(d.branch("sys1", d.fork_name("x")).empty());
  CHECK(git_out(d.ds, {"symbolic-ref", "--short", "HEAD"}) == "x");

  auto repo = d.open();
  auto h = tether::engine::open_object(*repo, "m", std::nullopt, std::nullopt);  // writable: the default for Forkable
  CHECK_FALSE(h.read_only);
  CHECK(d.branch("sys1", d.fork_name("x")) == "sys1:s0");
  CHECK(repo->workspace().working_refs.at("m") == d.fork_name("x"));
  CHECK(repo->workspace().pending_forks.empty());
  CHECK(repo->workspace().fork_points.at("m") == json{{"snapshot_id", "sys1:s0"}});
}

TEST_CASE("--eager forks every branch at once; objects of one system share one branch") {
  Dataset d;
  d.add("a", "sys1");
  d.add("b", "sys1");
  d.commit("baseline");
  auto r = d.new_(std::nullopt, "y", /*eager=*/true);
  CHECK(r.pending_forks.empty());
  CHECK(r.working_refs.at("a") == d.fork_name("y"));
  CHECK(r.working_refs.at("b") == d.fork_name("y"));
  CHECK(d.branch("sys1", d.fork_name("y")) == "sys1:s0");
  int shares = 0;
  for (const auto& a : r.plan.actions) shares += a.op == PlanOp::Share && a.key == "b";
  CHECK(shares == 1);
}

TEST_CASE("a branch with writes new did not review is refused; --discard agrees to reset it") {
  Dataset d;
  d.forked("x");
  std::string w = d.write("sys1", d.fork_name("x"));  // uncommitted writes on the fork

  CHECK_THROWS_WITH_AS(d.new_("x"), doctest::Contains("has writes since this workspace last committed"),
                       tether::TetherError);
  CHECK(d.branch("sys1", d.fork_name("x")) == w);

  auto r = d.new_("x", std::nullopt, false, /*discard=*/true);
  CHECK(r.pending_forks.at("m") == d.fork_name("x"));
  CHECK(d.open()->workspace().pending_resets.at("m") == json{{"snapshot_id", w}});
  CHECK(d.branch("sys1", d.fork_name("x")) == w);  // deferred: not reset yet
  tether::engine::open_object(*d.open(), "m", std::nullopt, true);
  CHECK(d.branch("sys1", d.fork_name("x")) == "sys1:s0");
}

TEST_CASE("a writable open never resets writes made after new reviewed the branch") {
  Dataset d;
  d.forked("x");
  d.write("sys1", d.fork_name("x"));
  d.new_("x", std::nullopt, false, /*discard=*/true);
  std::string later = d.write("sys1", d.fork_name("x"));
  CHECK_THROWS_WITH_AS(tether::engine::open_object(*d.open(), "m", std::nullopt, true), doctest::Contains("that `new` did not see"),
                       tether::StaleWorkingCopyError);
  CHECK(d.branch("sys1", d.fork_name("x")) == later);
}

TEST_CASE("a branch already at the committed state is reused") {
  Dataset d;
  d.baseline();
  d.new_(std::nullopt, "x", /*eager=*/true);
  auto r = d.new_("x");
  bool reused = false;
  for (const auto& a : r.plan.actions) reused |= a.op == PlanOp::Reuse && a.key == "m";
  CHECK(reused);
  CHECK(r.working_refs.at("m") == d.fork_name("x"));
}

TEST_CASE("a bookmark another live checkout works on is refused unless --shared") {
  Dataset d;
  d.baseline();
  git(d.ds, {"branch", "x"});
  fs::path other = d.fixture.scratch() / "other";
  git(d.ds, {"worktree", "add", "-q", "-b", "w", other.string()});
  auto ws = tether::model::fresh_workspace();
  ws.bookmark = "x";
  tether::model::write_workspace(tether::model::tether_path(other, "workspace.toml"), ws);

  std::string held = "is held by live workspace(s) " + ws.short_id();
  CHECK_THROWS_WITH_AS(d.new_("x"), doctest::Contains(held.c_str()), tether::TetherError);
  CHECK(git_out(d.ds, {"symbolic-ref", "--short", "HEAD"}) == "main");
  auto r = d.new_("x", std::nullopt, false, false, /*shared=*/true);
  CHECK(r.bookmark == "x");
  // The trunk is never held.
  ws.bookmark = "main";
  tether::model::write_workspace(tether::model::tether_path(other, "workspace.toml"), ws);
  CHECK(d.new_("main").bookmark == "main");
}

TEST_CASE("a working copy whose manifests moved under its branch is stale until new reforks") {
  Dataset d;
  d.forked("x");
  d.write("sys1", d.fork_name("x"));
  d.commit("work");
  CHECK(d.open()->stale_keys().empty());
  git(d.ds, {"reset", "-q", "--hard", "HEAD~1"});  // the bookmark moved back by hand

  CHECK(d.open()->stale_keys() == std::vector<std::string>{"m"});
  CHECK_THROWS_AS(tether::engine::open_object(*d.open(), "m", std::nullopt, true), tether::StaleWorkingCopyError);
  CHECK_THROWS_AS(d.commit("more"), tether::StaleWorkingCopyError);
  CHECK(tether::engine::open_object(*d.open(), "m", std::nullopt, false).read_only);  // reading is fine

  d.new_(std::nullopt);
  CHECK(d.open()->stale_keys().empty());
  tether::engine::open_object(*d.open(), "m", std::nullopt, true);
  CHECK(d.branch("sys1", d.fork_name("x")) == "sys1:s0");
}

TEST_CASE("on the trunk the working refs are the upstream branches; no fork is made") {
  Dataset d;
  d.baseline();
  auto r = d.new_("main");
  CHECK(r.trunk);
  CHECK(r.working_refs.at("m") == "main");
  CHECK(r.pending_forks.empty());
  CHECK(d.branch_count("sys1") == 1);
}

TEST_CASE("new on a revision no bookmark names leaves a read-only working copy") {
  Dataset d;
  d.baseline();
  d.write("sys1", "main");
  d.commit("second");
  std::string first = git_out(d.ds, {"rev-parse", "HEAD~1"});
  auto r = d.new_(first);
  CHECK_FALSE(r.bookmark.has_value());
  CHECK(git_out(d.ds, {"symbolic-ref", "--short", "HEAD"}) == "tether/" + first.substr(0, 12));
  CHECK_THROWS_WITH_AS(tether::engine::open_object(*d.open(), "m", std::nullopt, true), doctest::Contains("on no bookmark"),
                       tether::StaleWorkingCopyError);
}

TEST_CASE("new -b refuses an existing bookmark and a name whose branch would look like a sibling") {
  Dataset d;
  CHECK_THROWS_WITH_AS(d.new_(std::nullopt, "main"), doctest::Contains("bookmark 'main' exists; `tether new main` joins it"),
                       tether::ConfigError);
  CHECK_THROWS_WITH_AS(d.new_(std::nullopt, "2024"), doctest::Contains("ends in `.<number>`"), tether::ConfigError);
  CHECK(d.new_(std::nullopt, "v2024").bookmark == "v2024");
}

TEST_CASE("a saved new plan whose context has a field of the wrong type is refused, naming the field") {
  Dataset d;
  d.baseline();
  tether::engine::NewOptions o;
  o.bookmark = "x";
  o.dry_run = true;
  const tether::engine::Plan saved = tether::engine::plan_from_json(
      tether::engine::new_workspace(*d.open(), o).plan.to_json(), "new", tether::engine::required_preconditions("new"),
      "new.json");
  auto apply = [&](const tether::engine::Plan& p) {
    tether::engine::NewOptions a;
    a.saved = p;
    return tether::engine::new_workspace(*d.open(), a);
  };
  const std::string head = git_out(d.ds, {"rev-parse", "HEAD"});
  const auto before = d.open()->workspace().bookmark;

  tether::engine::Plan bad = saved;
  bad.context["bookmark"] = 42;
  CHECK_THROWS_WITH_AS(apply(bad), "the new plan's \"bookmark\" is not a string or null; re-run the plan",
                       tether::StalePlanError);
  bad = saved;
  bad.context["eager"] = 1;
  CHECK_THROWS_WITH_AS(apply(bad), "the new plan's \"eager\" is not true or false; re-run the plan", tether::StalePlanError);
  CHECK(d.open()->workspace().bookmark == before);
  CHECK(git_out(d.ds, {"branch", "--list", "x"}).empty());
  CHECK(git_out(d.ds, {"rev-parse", "HEAD"}) == head);

  const auto r = apply(saved);
  CHECK(r.applied);
  CHECK(r.bookmark == std::optional<std::string>("x"));
}
