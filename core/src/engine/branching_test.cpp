// Unit tests of `new`, `open` and `restore` (branching.cpp): which working branch each object
// gets and when it is created, what a dry run leaves alone, and the refusal to reset a branch
// holding writes no commit pinned. Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/open.hpp"
#include "tether/engine/restore.hpp"
#include "tether/model/workspace.hpp"
#include "tether/testing/errors.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;

namespace {

// A dataset with memory object m over sys1, committed once (pinned at sys1:s0).
struct Committed {
  Dataset ds;
  std::string id;  // the dataset id
  Committed() {
    ds.add_memory("m", "sys1");
    auto repo = ds.open();
    CommitOptions o;
    o.message = "first";
    tether::engine::commit(*repo, o);
    id = repo->dataset_id();
  }
  std::string fork(const std::string& bookmark) const { return "tether.ws." + id + "." + bookmark; }
};

NewResult start(const Dataset& ds, const std::string& bookmark, std::optional<bool> eager = std::nullopt,
                bool dry_run = false, bool discard = false) {
  NewOptions o;
  o.bookmark = bookmark;
  o.eager = eager;
  o.dry_run = dry_run;
  o.discard = discard;
  return tether::engine::new_workspace(*ds.open(), o);
}

// `tether new NAME`: back onto an existing bookmark.
NewResult join(const Dataset& ds, const std::string& bookmark, bool discard = false) {
  NewOptions o;
  o.rev = bookmark;
  o.discard = discard;
  o.eager = true;
  return tether::engine::new_workspace(*ds.open(), o);
}

}  // namespace

TEST_CASE("new decides a lazy fork; the first writable open creates it at the pin") {
  Committed c;
  const auto r = start(c.ds, "x");
  CHECK(r.applied);
  REQUIRE(r.bookmark);
  CHECK(*r.bookmark == "x");
  CHECK(r.pending_forks == std::map<std::string, std::string>{{"m", c.fork("x")}});
  CHECK(c.ds.git({"branch", "--show-current"}) == "x");
  CHECK(c.ds.branches("sys1").count(c.fork("x")) == 0);  // decided, not created

  auto repo = c.ds.open();
  const auto handle = tether::engine::open_object(*repo, "m", std::nullopt, std::nullopt);
  CHECK_FALSE(handle.read_only);
  CHECK(handle.display == "memory://sys1/" + c.fork("x"));
  CHECK(c.ds.branches("sys1").at(c.fork("x")) == "sys1:s0");
  CHECK(repo->workspace().working_refs.at("m") == c.fork("x"));
  CHECK(repo->workspace().pending_forks.empty());
  // A second open finds the branch: one fork in the journal.
  tether::engine::open_object(*c.ds.open(), "m", std::nullopt, std::nullopt);
  int forks = 0;
  for (const auto& line : c.ds.op_log()) forks += contains(line, "\"command\":\"fork\"");
  CHECK(forks == 1);
}

TEST_CASE("new --eager forks at once; --dry-run plans and changes nothing") {
  Committed c;
  const auto eager = start(c.ds, "y", true);
  CHECK(eager.working_refs == std::map<std::string, std::string>{{"m", c.fork("y")}});
  CHECK(c.ds.branches("sys1").at(c.fork("y")) == "sys1:s0");

  const std::string head = c.ds.head();
  const auto log = c.ds.op_log();
  const auto dry = start(c.ds, "z", std::nullopt, /*dry_run=*/true);
  CHECK_FALSE(dry.applied);
  REQUIRE(dry.plan.actions.size() == 1);
  CHECK(dry.plan.actions[0].op == PlanOp::DeferFork);
  CHECK(dry.plan.actions[0].target == c.fork("z"));
  CHECK(c.ds.op_log() == log);
  CHECK(c.ds.head() == head);
  CHECK(c.ds.git({"branch", "--show-current"}) == "y");
  CHECK(c.ds.branches("sys1").count(c.fork("z")) == 0);
  CHECK(c.ds.git({"branch", "--list", "z"}).empty());
}

TEST_CASE("new refuses to reset a branch holding unpinned writes unless told --discard") {
  Committed c;
  start(c.ds, "x", true);
  start(c.ds, "y", true);
  const std::string w1 = c.ds.advance("sys1", c.fork("x"));
  const auto log = c.ds.op_log();
  const std::string error = tether::testing::error_of([&] { join(c.ds, "x"); });
  CHECK(contains(error, "refusing to reset working branches with unpinned writes"));
  CHECK(contains(error, "m: " + c.fork("x") + " has writes since this workspace last committed"));
  CHECK(contains(error, "--discard"));
  CHECK(c.ds.branches("sys1").at(c.fork("x")) == w1);
  CHECK(c.ds.op_log() == log);
  CHECK(c.ds.git({"branch", "--show-current"}) == "y");

  join(c.ds, "x", /*discard=*/true);
  CHECK(c.ds.branches("sys1").at(c.fork("x")) == "sys1:s0");
  CHECK(c.ds.git({"branch", "--show-current"}) == "x");
}

TEST_CASE("restore puts a working branch back at a committed state") {
  Committed c;
  start(c.ds, "x", true);
  c.ds.advance("sys1", c.fork("x"));
  const auto second = c.ds.commit("on x");
  REQUIRE(second.vcs_commit);
  const std::string w2 = c.ds.advance("sys1", c.fork("x"));  // unpinned writes

  RestoreOptions r;
  r.keys = {"m"};
  r.from = "HEAD~1";
  const std::string error = tether::testing::error_of([&] { tether::engine::restore(*c.ds.open(), r); });
  CHECK(contains(error, "--discard"));
  CHECK(c.ds.branches("sys1").at(c.fork("x")) == w2);

  r.discard = true;
  const auto done = tether::engine::restore(*c.ds.open(), r);
  CHECK(done.applied);
  CHECK(c.ds.branches("sys1").at(c.fork("x")) == "sys1:s0");
}
