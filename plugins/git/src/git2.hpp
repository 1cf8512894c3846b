// git2: the small slice of libgit2 the git backend uses, wrapped in owning handles and one
// error type. Every handle is a unique_ptr with the matching libgit2 free function, so an
// exception anywhere releases what was opened. A Repository is opened per call: libgit2
// objects are not shared between threads.
#pragma once

#include <git2.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tether::git {

// A libgit2 call failed: `code` is its return value (GIT_ENOTFOUND, GIT_EEXISTS, ...), the
// message names what we were doing and carries libgit2's own reason.
class Git2Error : public std::runtime_error {
 public:
  Git2Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Throws Git2Error("<what>: <libgit2 message>") when rc < 0; returns rc otherwise.
int check(int rc, const std::string& what);
// libgit2's message for the last failure on this thread ("" when none).
std::string last_error_message();

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
template <class T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using Repository = Handle<git_repository, git_repository_free>;
using Reference = Handle<git_reference, git_reference_free>;
using Object = Handle<git_object, git_object_free>;
using Commit = Handle<git_commit, git_commit_free>;
using Tree = Handle<git_tree, git_tree_free>;
using Index = Handle<git_index, git_index_free>;
using Signature = Handle<git_signature, git_signature_free>;
using Diff = Handle<git_diff, git_diff_free>;
using Patch = Handle<git_patch, git_patch_free>;
using Revwalk = Handle<git_revwalk, git_revwalk_free>;
using Config = Handle<git_config, git_config_free>;
using Worktree = Handle<git_worktree, git_worktree_free>;
using TreeBuilder = Handle<git_treebuilder, git_treebuilder_free>;

// Keeps libgit2 initialised while alive (libgit2 counts init/shutdown pairs).
class Library {
 public:
  Library();
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
};

// Opens exactly `path` (no search upwards, no GIT_DIR from the environment). nullopt when
// it is not a repository; Git2Error for other failures (permissions, a corrupt config).
std::optional<Repository> open_repository(const std::string& path);

std::string oid_hex(const git_oid& oid);
std::string short_hex(const git_oid& oid);  // the first 12 hex digits
git_oid oid_from_hex(const std::string& hex);  // 40 hex digits; Git2Error otherwise

// The reference, or an empty handle when it does not exist.
Reference find_reference(git_repository* repo, const std::string& name);
// The commit a reference (after peeling tags) names; nullopt when the ref does not exist.
std::optional<git_oid> reference_commit(git_repository* repo, const std::string& name);
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

// An options struct at libgit2's defaults, through its init function (the *_INIT macros leave
// fields to zero-initialisation, which clang's -Wmissing-field-initializers reports):
// `auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);`.
template <class Options>
Options init_options(int (*init)(Options*, unsigned int), unsigned int version) {
  Options o{};
  init(&o, version);
  return o;
}

}  // namespace tether::git
