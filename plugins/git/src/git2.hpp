// git2: the libgit2 reads the git backend makes, on the owning handles, Git2Error, check()
// and init_options() of tether/support/git2.hpp (shared with core's git adapter). A
// Repository is opened per call: libgit2 objects are not shared between threads.
#pragma once

#include <git2.h>

#include <optional>
#include <string>
#include <vector>

#include "tether/support/git2.hpp"

namespace tether::git {

using namespace support::git2;

// Opens exactly `path` (no search upwards, no GIT_DIR from the environment). nullopt when
// it is not a repository; Git2Error for other failures (permissions, a corrupt config).
std::optional<Repository> open_repository(const std::string& path);

std::string short_hex(const git_oid& oid);  // the first 12 hex digits
git_oid oid_from_hex(const std::string& hex);  // 40 hex digits; Git2Error otherwise

// The reference, or an empty handle when it does not exist.
Reference find_reference(git_repository* repo, const std::string& name);
// The commit a reference (after peeling tags) names; nullopt when the ref does not exist.
std::optional<git_oid> reference_commit(git_repository* repo, const std::string& name);
// The same answer, cheaper when the reference points straight at a commit whose id starts
// with `expected` (lower-case hex): that id, after a look at the object's header (it exists
// and is a commit) instead of reading and parsing the commit. Anything else (an annotated
// tag, another id, a symbolic ref, a missing object, not a commit) takes reference_commit's
// full peel, so its answers and errors stay what they were.
std::optional<git_oid> reference_commit_expecting(git_repository* repo, const std::string& name,
                                                  const std::string& expected);
// reference_commit_expecting's shortcut for a reference straight at `id`: whether `id` starts
// with `expected` (lower-case hex, 1 to 40 digits) and the object's header says it exists
// and is a commit. False: take the full peel.
bool is_expected_commit(git_repository* repo, const git_oid& id, const std::string& expected);
// git_revparse_single + peel to a commit; nullopt when the spec names nothing.
std::optional<git_oid> revparse_commit(git_repository* repo, const std::string& spec);
// A full or abbreviated (>= 4 hex) commit id looked up in the object database; nullopt when
// no such commit exists.
std::optional<git_oid> lookup_commit_prefix(git_repository* repo, const std::string& hex);

Commit lookup_commit(git_repository* repo, const git_oid& oid);
Tree commit_tree(const git_commit* commit);

// Names of references matching a glob (e.g. "refs/tags/tether.*"), in libgit2's order.
std::vector<std::string> reference_names(git_repository* repo, const std::string& glob);

// The branch HEAD points at (short name), or nullopt when HEAD is detached. An unborn HEAD
// still names its branch.
std::optional<std::string> checked_out_branch(git_repository* repo);

struct Checkout {
  std::string branch;    // short name
  std::string worktree;  // the working directory that has it checked out
};
// Every branch checked out in the repository's main working tree or any linked worktree.
std::vector<Checkout> checkouts(git_repository* repo);

// Whether the working tree differs from HEAD (staged, unstaged or untracked files). A bare
// repository is never dirty.
bool working_tree_dirty(git_repository* repo);

// "2026-11-29T21:09:21+01:00" for a commit time and its offset in minutes.
std::string iso8601(git_time_t seconds, int offset_minutes);

// The commit's first line.
std::string summary_line(const git_commit* commit);

// libgit2's signature from the repository's user.name/user.email, else tether's own.
Signature default_signature(git_repository* repo);

}  // namespace tether::git
