// vcs/git2_util.hpp: the adapter's libgit2 code (git_reader.cpp, git_abandon.cpp) on support's
// handles (tether/support/git2.hpp), with core's error type for a failed call. Private:
// includes <git2.h>.
#pragma once

#include <string>

#include "tether/errors.hpp"
#include "tether/support/git2.hpp"

namespace tether::vcs::git2 {

using namespace support::git2;  // handles, oid_hex(), Library

// Throws VcsError "<what>: <libgit2's message for this thread's last failure>".
[[noreturn]] inline void fail(const std::string& what) {
  const std::string message = last_error_message();
  throw VcsError(what + ": " + (message.empty() ? "unknown libgit2 error" : message));
}

// The object id a full hex id names; VcsError for anything else.
inline git_oid parse_oid(const std::string& id) {
  git_oid oid;
  if (git_oid_fromstr(&oid, id.c_str()) != 0) fail("not a commit id: " + id);
  return oid;
}

}  // namespace tether::vcs::git2
