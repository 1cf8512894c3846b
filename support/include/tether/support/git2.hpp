// tether/support/git2.hpp: libgit2 wrapped once for core's git adapter, the git plugin and its
// conformance harness: owning handles (a unique_ptr with the matching free function, so an
// exception anywhere releases what was opened), the error of a failed call, and the few helpers
// every caller needs. Includes <git2.h>: only code that calls libgit2 includes this header.
#pragma once

#include <git2.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace tether::support::git2 {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
template <class T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using Blob = Handle<git_blob, git_blob_free>;
using BranchIterator = Handle<git_branch_iterator, git_branch_iterator_free>;
using Commit = Handle<git_commit, git_commit_free>;
using Config = Handle<git_config, git_config_free>;
using ConflictIterator = Handle<git_index_conflict_iterator, git_index_conflict_iterator_free>;
using Diff = Handle<git_diff, git_diff_free>;
using Index = Handle<git_index, git_index_free>;
using Object = Handle<git_object, git_object_free>;
using Patch = Handle<git_patch, git_patch_free>;
using RefIterator = Handle<git_reference_iterator, git_reference_iterator_free>;
using Reference = Handle<git_reference, git_reference_free>;
using Repository = Handle<git_repository, git_repository_free>;
using Revwalk = Handle<git_revwalk, git_revwalk_free>;
using Signature = Handle<git_signature, git_signature_free>;
using StatusList = Handle<git_status_list, git_status_list_free>;
using Tree = Handle<git_tree, git_tree_free>;
using TreeBuilder = Handle<git_treebuilder, git_treebuilder_free>;
using TreeEntry = Handle<git_tree_entry, git_tree_entry_free>;
using Worktree = Handle<git_worktree, git_worktree_free>;

// A libgit2 call failed: `code` is its return value (GIT_ENOTFOUND, GIT_EEXISTS, ...), the
// message names what we were doing and carries libgit2's own reason. Core turns it into its
// own error type; plugins report it through the SDK's.
class Git2Error : public std::runtime_error {
 public:
  Git2Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Throws Git2Error("<what>: <libgit2 message>", or "<what> failed" without one) when rc < 0;
// returns rc otherwise.
int check(int rc, const std::string& what);
// libgit2's message for the last failure on this thread ("" when none).
std::string last_error_message();

// The 40 hex digits of an object id.
std::string oid_hex(const git_oid& oid);

// Keeps libgit2 initialised while alive (libgit2 counts init/shutdown pairs).
class Library {
 public:
  Library();
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
};

// An options struct at libgit2's defaults, through its init function (the *_INIT macros leave
// fields to zero-initialisation, which clang's -Wmissing-field-initializers reports):
// `auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);`.
template <class Options>
Options init_options(int (*init)(Options*, unsigned int), unsigned int version) {
  Options o{};
  init(&o, version);
  return o;
}

}  // namespace tether::support::git2
