// tether/vcs/vcs.hpp: what the engine needs from the version-control system
// (docs/ARCHITECTURE.md#the-vcs).
//
// The engine depends on VcsAdapter only; detect_vcs() picks the implementation (git today).
// Paths handed to and returned by an adapter are relative to the VCS root (root()), use '/'
// as separator and never start with '/'. "" means the root itself. Revisions are opaque
// strings in the VCS's own syntax; commit ids are full lowercase hex.
//
// Every method is safe to call from several threads; the adapter serialises what needs it.
// Failures are VcsError (tether/errors.hpp) with a message naming the thing that failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tether::vcs {

// A file's content (raw bytes), immutable and shared: every tree of a history walk that holds
// the same blob holds the one copy the reader made of it, so a tree costs a pointer per file
// instead of a copy of each text. Equal blobs are one object, so `id()` identifies a text
// without hashing it (within one reader's walk). Reads like a const std::string.
class Text {
 public:
  Text() : p_(none()) {}
  Text(std::string s) : p_(std::make_shared<const std::string>(std::move(s))) {}  // NOLINT: implicit by design
  Text(const char* s) : Text(std::string(s)) {}                                   // NOLINT
  explicit Text(std::shared_ptr<const std::string> p) : p_(p ? std::move(p) : none()) {}

  const std::string& str() const { return *p_; }
  operator const std::string&() const { return *p_; }  // NOLINT
  operator std::string_view() const { return *p_; }     // NOLINT
  const std::string* id() const { return p_.get(); }
  std::size_t size() const { return p_->size(); }
  bool empty() const { return p_->empty(); }

  friend bool operator==(const Text& a, const Text& b) { return a.p_ == b.p_ || *a.p_ == *b.p_; }
  friend bool operator==(const Text& a, std::string_view b) { return *a.p_ == b; }
  friend bool operator==(const Text& a, const char* b) { return *a.p_ == b; }

 private:
  static const std::shared_ptr<const std::string>& none() {
    static const auto e = std::make_shared<const std::string>();
    return e;
  }
  std::shared_ptr<const std::string> p_;
};

// path (relative to the directory that was read) -> file content, sorted by path (as
// std::map<std::string, Text> would be): one allocation per tree, not one node per file.
using FileMap = std::vector<std::pair<std::string, Text>>;

struct CommitInfo {
  std::string id;                    // full commit id
  std::vector<std::string> parents;  // full ids, in order
  std::int64_t time = 0;             // committer time, seconds since the epoch
  std::int64_t author_time = 0;      // author time, seconds since the epoch
  std::string author_name;
  std::string author_email;
  std::string summary;               // first paragraph of the message, on one line
  std::string message;               // the whole message
};

// What abandon() did: the commits removed, and the descendants that got new ids.
struct AbandonResult {
  std::vector<std::string> abandoned;                // full ids, in the order given
  std::map<std::string, std::string> rewritten;      // old descendant id -> new id
};

// A rewrite of one file's text (its path from the repository root): nullopt keeps it.
using RewriteFn = std::function<std::optional<std::string>(const std::string& path, const std::string& text)>;

struct HistoryQuery {
  std::string rev = "HEAD";  // where to start; ignored when `all`
  bool all = false;          // every ref and every worktree's HEAD, like `git rev-list --all`
  std::size_t limit = 0;     // at most this many commits; 0 = no limit
  // Only commits that change something under one of these paths, i.e. differ there from
  // every parent (a root commit counts when it has any of them). Empty = every commit.
  std::vector<std::string> paths;
};

class VcsAdapter {
 public:
  virtual ~VcsAdapter() = default;

  // The interface holds what the engine calls and nothing more: 29 pure-virtual methods an
  // implementation (or a test double) supplies, in three groups, and four helpers derived
  // from them, the same for every VCS.

  // ---- where: fixed when the adapter is opened ----
  // "git".
  virtual std::string kind() const = 0;
  // Top of the working tree (absolute, no trailing slash).
  virtual std::filesystem::path root() const = 0;
  // The dataset root relative to root(): "" or "sub/dir".
  virtual std::string rel() const = 0;
  // Where repository-wide files live (git: the common dir, shared by worktrees).
  virtual std::filesystem::path shared_dir() const = 0;

  // ---- reads: refs, files at a revision, history, checkouts and the working tree ----
  // None changes the repository or the working tree. In-process (libgit2) except
  // exclusive_commits() and remote_counterparts(), which run `git for-each-ref`, `git
  // rev-list` and `git remote`.
  //
  // The commit a revision names. Unknown -> VcsError `unknown revision '<rev>'`.
  virtual std::string resolve(const std::string& rev) const = 0;
  // The checked-out commit; nullopt on an unborn branch (no commit yet).
  virtual std::optional<std::string> head() const = 0;
  // The checked-out branch (also when unborn); nullopt when HEAD is detached.
  virtual std::optional<std::string> current_branch() const = 0;
  // Local branches -> commit id.
  virtual std::map<std::string, std::string> branches() const = 0;
  // Tags -> the commit each names (annotated tags peeled); tags of other objects are skipped.
  virtual std::map<std::string, std::string> tags() const = 0;
  // Remote-tracking refs of bookmark `name`, as `remote/name`.
  virtual std::vector<std::string> remote_counterparts(const std::string& name) const = 0;

  // Content of one file at a revision; nullopt when absent or not a regular file.
  virtual std::optional<std::string> read_file(const std::string& rev, const std::string& path) const = 0;
  // Every regular file under `dir` at a revision, recursively, keyed by its path relative to
  // `dir`. A missing `dir` gives an empty map. Symlinks and submodules are skipped. Shared and
  // cached by tree id: call it for every commit of a history walk; unchanged directories
  // cost one lookup and each blob is read once.
  virtual std::shared_ptr<const FileMap> manifests_at(const std::string& rev, const std::string& dir) const = 0;

  // Commits newest first (children before parents, then by commit time).
  virtual std::vector<CommitInfo> history(const HistoryQuery& query) const = 0;
  // Full ids of every commit reachable from any ref or worktree HEAD (`rev-list --all`), in
  // history()'s order (children before parents, then by commit time).
  virtual std::vector<std::string> all_commit_ids() const = 0;
  // What all_commit_ids() walks from, as a key: under equal keys it gives the same answer
  // (git: every ref, every checkout's HEAD, the shallow, alternates and grafts files, read
  // without libgit2). nullopt when the VCS cannot say cheaply: then nothing may be cached by it.
  virtual std::optional<std::string> tips_key() const { return std::nullopt; }
  // Whether `ancestor` is `descendant` or one of its ancestors (both revisions).
  virtual bool is_ancestor(const std::string& ancestor, const std::string& descendant) const = 0;
  // Commits reachable from bookmark `name` and from no other ref under refs/ (nor any other
  // worktree's HEAD), oldest first (`git rev-list --reverse B ^<other refs>`).
  virtual std::vector<std::string> exclusive_commits(const std::string& name) const = 0;

  // Top directories of every live checkout of this repository (git: the main worktree and
  // every linked worktree whose directory exists), absolute, this one included.
  virtual std::vector<std::filesystem::path> workspace_roots() const = 0;
  // True when any path under `paths` differs between HEAD, the index and the working tree,
  // including untracked files that are not ignored.
  virtual bool is_dirty(const std::vector<std::string>& paths) const = 0;
  // Those of `paths` that the VCS tracks (a directory counts when it tracks a file in it).
  virtual std::vector<std::string> tracked(const std::vector<std::string>& paths) const = 0;
  // What tracked() answers from, as a stamp: equal stamps mean an equal answer, once the
  // stamp's state is older than a racy window (git: the index file's device, inode, size,
  // mtime and ctime; git replaces the index by renaming a new file over it). nullopt when
  // the VCS has no such stamp: then every caller asks tracked().
  struct IndexStamp {
    std::string id;
    int64_t changed_ns = 0;  // the later of mtime and ctime
  };
  virtual std::optional<IndexStamp> index_stamp() const { return std::nullopt; }

  // ---- writes: commits, bookmarks and checkouts, history surgery ----
  // Through the VCS executable, so hooks, signing and identity apply (abandon() builds its
  // commits in-process, then moves refs through it). The engine's tests can make any of
  // them throw (engine/testing/faulty_vcs.hpp).
  //
  // Stages exactly `paths` (additions, changes and deletions) and commits only them, leaving
  // anything else staged or modified as it was. Returns the new commit id, or nullopt when
  // the paths hold no change. Paths that neither exist nor are tracked are skipped.
  virtual std::optional<std::string> commit(const std::vector<std::string>& paths, const std::string& message) = 0;
  // Creates branch `name` at HEAD and checks it out (init on a detached HEAD).
  virtual void create_branch_and_switch(const std::string& name) = 0;

  // Bookmarks (docs/concepts.md, bookmarks): a bookmark is a local branch whose name does not
  // start with `tether/` (those are the parking branches switch_to() makes).
  //
  // Creates bookmark `name` at `rev` (HEAD when nullopt) and checks it out, carrying
  // uncommitted changes as `git switch -c` does. An existing name, or local changes the
  // switch would overwrite, are VcsError and change nothing.
  virtual void new_bookmark(const std::string& name, const std::optional<std::string>& rev) = 0;
  // Checks out `rev`: a bookmark name switches to that branch; any other revision parks the
  // working copy on branch `tether/<sha12>` at that commit (reusing one already there; when
  // that name is taken at another commit, `tether/<sha12>-<n>`, n = 2..999), so commits made
  // there stay reachable. Local changes the switch would overwrite are VcsError.
  virtual void switch_to(const std::string& rev) = 0;
  // Moves bookmark `name` to `commit` only if it is at `expected` now (compare-and-swap;
  // VcsError naming both commits otherwise). The checked-out bookmark moves with
  // `git reset --keep` (uncommitted changes kept; refused when they conflict); another one
  // with `git update-ref refs/heads/<name> <commit> <expected>`.
  virtual void bookmark_set(const std::string& name, const std::string& commit, const std::string& expected) = 0;
  // Deletes bookmark `name` if it is at `expected` (compare-and-swap). Refused (VcsError)
  // while any worktree has it checked out.
  virtual void delete_bookmark(const std::string& name, const std::string& expected) = 0;
  // Removes the linked worktree at `root` (`git worktree remove`) and says what was done;
  // nullopt for the main worktree or a root that is no worktree of this repository.
  // The checkout this adapter was opened in is refused (VcsError).
  virtual std::optional<std::string> forget_workspace(const std::filesystem::path& root) = 0;

  // History surgery (undo, abandon, drop).
  //
  // Undoes `commit` when it is the checked-out commit: the branch moves to its first parent
  // and the files stay as they are (`git reset --soft C^`; a root commit leaves the branch
  // unborn). Returns false, changing nothing, when HEAD is not `commit`. A root commit on a
  // detached HEAD (no branch to leave unborn) is VcsError.
  virtual bool uncommit(const std::string& commit) = 0;
  // Removes commits from the checked-out history (docs/ARCHITECTURE.md#the-vcs). Each must be
  // an ancestor of HEAD and not a root; the tree must be clean under the paths git tracks.
  // Descendants are replayed onto the abandoned commits' parents; under `keep_dir` every
  // replayed commit holds exactly what it held before (manifests are snapshots, not patches);
  // a conflict outside `keep_dir` aborts and changes nothing. The checked-out branch (or
  // detached HEAD) moves to the rewritten head; every other local branch pointing at a
  // rewritten commit follows it (refused when such a branch is checked out in another
  // worktree). VcsError with the reason otherwise.
  virtual AbandonResult abandon(const std::vector<std::string>& revs, const std::string& keep_dir) = 0;
  // Rewrites every commit reachable from a local branch or HEAD so that each file under `dir`
  // (a path from root(), e.g. "sub/.tether/objects") holds what `transform(path, text)`
  // returns (nullopt: as it was); a commit whose tree and parents stay the same keeps its id,
  // the others are written anew with their author, committer and message. The files under
  // `dir` must be clean (other local changes are carried along). The checked-out branch (or detached HEAD) moves to its
  // rewritten commit with the files, every other branch at a rewritten commit follows
  // (compare-and-swap; refused when such a branch is checked out in another worktree).
  // Returns old id -> new id of the commits rewritten. Used by `tether upgrade` (§5.5).
  virtual std::map<std::string, std::string> rewrite_history(const std::string& dir, const RewriteFn& transform) = 0;

  // ---- derived reads: not virtual, computed from the reads above (vcs.cpp) ----
  // Bookmark -> commit id: branches() without the `tether/` parking branches.
  std::map<std::string, std::string> bookmarks() const;
  // The bookmark the working copy is on: current_branch() (also unborn), unless detached or
  // a `tether/` parking branch.
  std::optional<std::string> current_bookmark() const;
  // docs/FORMAT.md#history-digest: sha256 of the sorted `all_commit_ids()` joined by "\n",
  // first 16 hex digits.
  std::string history_digest() const;
  // Those of `commits` still reachable from some ref or worktree HEAD (in all_commit_ids()).
  // Virtual only so an implementation can answer it without walking the whole history
  // (git keeps a cache keyed by its tips); the default computes it from all_commit_ids().
  virtual std::set<std::string> alive_commits(const std::vector<std::string>& commits) const;
};

// The parking branches switch_to() makes start with this; they are not bookmarks.
inline constexpr std::string_view kParkingPrefix = "tether/";

// sha256 of `text` as 64 lowercase hex digits (OpenSSL).
std::string sha256_hex(const std::string& text);

// The history digest of these commit ids (VcsAdapter::history_digest of a walk already
// made): a command that walks every commit anyway digests the ids it walked, in one walk.
std::string history_digest_of(std::vector<std::string> commit_ids);

// Finds the git working tree containing `dataset_root` (searching upward; linked worktrees
// work). Throws VcsError `no git repository found at or above <path>` when there is none.
// `git_executable` is what runs the writes: from secrets `[vcs] git_path` or TETHER_GIT as the
// caller resolved them; "" = `git` on PATH.
std::unique_ptr<VcsAdapter> detect_vcs(const std::filesystem::path& dataset_root,
                                       const std::string& git_executable = "");

}  // namespace tether::vcs
