// vcs/git2_util.hpp: owning handles and error text for libgit2, shared by the adapter's
// libgit2 code (git_reader.cpp, git_abandon.cpp). Private: includes <git2.h>.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "tether/errors.hpp"

namespace tether::vcs::git2 {

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;

using Object = Owned<git_object, git_object_free>;
using Commit = Owned<git_commit, git_commit_free>;
using Tree = Owned<git_tree, git_tree_free>;
using TreeEntry = Owned<git_tree_entry, git_tree_entry_free>;
using Blob = Owned<git_blob, git_blob_free>;
using Revwalk = Owned<git_revwalk, git_revwalk_free>;
using Reference = Owned<git_reference, git_reference_free>;
using RefIterator = Owned<git_reference_iterator, git_reference_iterator_free>;
using BranchIterator = Owned<git_branch_iterator, git_branch_iterator_free>;
using StatusList = Owned<git_status_list, git_status_list_free>;
using Index = Owned<git_index, git_index_free>;
using ConflictIterator = Owned<git_index_conflict_iterator, git_index_conflict_iterator_free>;
using Repository = Owned<git_repository, git_repository_free>;
using WorktreeHandle = Owned<git_worktree, git_worktree_free>;

inline std::string last_error() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

[[noreturn]] inline void fail(const std::string& what) { throw VcsError(what + ": " + last_error()); }

inline std::string hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

}  // namespace tether::vcs::git2
