// landing: moving a checked-out branch so that a kill at any instruction leaves a state the
// next call can finish. A branch checked out in the repository's own working tree moves in
// three steps:
//
//   1. the marker `<git dir>/tether-landing` records (branch, from, to), written by rename;
//   2. the ref moves from -> to under libgit2's ref lock (the compare-and-swap: the commit
//      point of the move);
//   3. every path that differs between the two commits is switched, one file at a time by
//      rename, in the working tree and then in the index (written by rename); the marker goes.
//
// A kill leaves the branch at `from` or at `to`, never elsewhere, and each path's working
// file and index entry at one side's version or the other's. `settle` finishes the job from
// the marker: it brings every differing path to the version of the commit the branch is at
// (forward when the ref had moved, back when it had not), so the working tree always ends
// consistent with the branch. A path whose content is neither side's was changed by someone
// else: settle refuses and names it instead of overwriting it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "git2.hpp"

namespace tether::git {

struct LandingMarker {
  std::string branch;  // short name
  git_oid from{}, to{};
};

std::optional<LandingMarker> read_landing(git_repository* repo);
// The lock files a kill inside step 2 or 3 leaves behind (`refs/heads/<branch>.lock` holding
// nothing or one of the marker's two commits, `index.lock`): with the marker present they are
// the interrupted landing's own, and are removed so that settling can write again.
void clear_landing_locks(git_repository* repo, const LandingMarker& m);
void write_landing(git_repository* repo, const LandingMarker& m);
void clear_landing(git_repository* repo);

// Paths differing between `from` and `to` whose working file or index entry is neither
// side's version (what a switch would overwrite); at most `limit` of them.
std::vector<std::string> switch_conflicts(git_repository* repo, const git_oid& from, const git_oid& to,
                                          std::size_t limit = 5);

// Brings every path that differs between `from` and `to` to `toward`'s version (`toward` is
// one of the two) in the working tree and the index. Git2Error naming the paths when one
// holds content that is neither side's; nothing is written then.
void switch_paths(git_repository* repo, const git_oid& from, const git_oid& to, const git_oid& toward);

// The first `limit` paths `git status` would show (staged, unstaged or untracked).
std::vector<std::string> dirty_paths(git_repository* repo, std::size_t limit = 3);

}  // namespace tether::git
