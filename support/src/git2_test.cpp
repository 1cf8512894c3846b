// Tests of support/git2: the error of a failed call, ids, the options helper, the handles.
#include "tether/support/git2.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace tether::support::git2;

TEST_CASE("check passes results through and throws Git2Error with libgit2's reason") {
  Library library;
  CHECK(check(0, "nothing") == 0);
  CHECK(check(3, "a count") == 3);
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, "/nonexistent/tether-git2-test", GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
  Repository repo(raw);
  REQUIRE(rc < 0);
  try {
    check(rc, "cannot open /nonexistent/tether-git2-test");
    FAIL("no error");
  } catch (const Git2Error& e) {
    CHECK(e.code() == GIT_ENOTFOUND);
    const std::string what = e.what();
    CHECK(what.rfind("cannot open /nonexistent/tether-git2-test: ", 0) == 0);
    CHECK(what.size() > std::string("cannot open /nonexistent/tether-git2-test: ").size());
  }
}

TEST_CASE("oid_hex gives 40 lower-case hex digits") {
  git_oid oid;
  REQUIRE(git_oid_fromstr(&oid, "0123456789abcdef0123456789ABCDEF01234567") == 0);
  CHECK(oid_hex(oid) == "0123456789abcdef0123456789abcdef01234567");
}

TEST_CASE("init_options fills the version the init function sets") {
  auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);
  CHECK(opts.version == GIT_STATUS_OPTIONS_VERSION);
}
