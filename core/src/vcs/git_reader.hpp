// vcs/git_reader.hpp: in-process reads of a git repository through libgit2.
//
// Owns the libgit2 repository handle and the object caches of history walks: the flattened
// file map of a tree and the content of a blob are each read once per object id, so walking
// a thousand commits whose manifests rarely change costs a lookup per commit. Caches live as
// long as the reader (objects are immutable; there is nothing to invalidate).
//
// libgit2 does not allow concurrent use of one repository handle, so every public method
// takes the reader's mutex: calls from several threads are safe and run one at a time.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <array>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tether/vcs/vcs.hpp"
#include "vcs/git_refs.hpp"

struct git_repository;
struct git_oid;
struct git_commit;

namespace tether::vcs {

struct CacheStats {
  std::size_t trees_read = 0;   // trees flattened from the object database
  std::size_t blobs_read = 0;   // blobs read from the object database
  std::size_t tree_hits = 0;    // flattened trees served from the cache
  std::size_t repository_opens = 0;  // libgit2 repository handles opened (0: answered without libgit2)
  std::size_t reach_hits = 0;        // branches()/alive_commits() answered by the reachability cache
  std::size_t walks = 0;             // whole-history walks (all_commit_ids, alive_commits' misses)
};

// One checkout of the repository: the main worktree or a linked one.
struct Worktree {
  std::filesystem::path root;         // top of its working tree (canonical when it exists)
  std::optional<std::string> branch;  // the branch its HEAD names (also unborn); nullopt when detached
  bool current = false;               // the checkout this reader opened
  bool live = false;                  // its directory exists (a deleted one stays registered until pruned)
  bool main = false;                  // the main worktree (not a linked one)
};

// Where the repository is and what its refs say are read natively (vcs/git_refs.hpp) unless
// that reader declines; libgit2 is opened at the first method that needs objects, the index
// or anything the native reader does not answer (and from the start when it declined).
class GitReader {
 public:
  // Opens the repository whose working tree contains `start` (searching upward).
  // Throws VcsError `no git repository found at or above <start>`.
  // `native` false: libgit2 answers everything, as before the native reader (for tests that
  // compare the two).
  explicit GitReader(const std::filesystem::path& start, bool native = true);
  ~GitReader();
  GitReader(const GitReader&) = delete;
  GitReader& operator=(const GitReader&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path shared_dir() const;

  std::string resolve(const std::string& rev) const;
  std::optional<std::string> head() const;
  std::optional<std::string> current_branch() const;
  std::map<std::string, std::string> branches() const;
  std::map<std::string, std::string> tags() const;
  // The main worktree first (absent when the repository is bare), then linked ones by path.
  std::vector<Worktree> worktrees() const;

  std::optional<std::string> read_file(const std::string& rev, const std::string& path) const;
  std::shared_ptr<const FileMap> files_at(const std::string& rev, const std::string& dir) const;

  std::vector<CommitInfo> history(const HistoryQuery& query) const;
  std::vector<std::string> all_commit_ids() const;
  std::optional<std::string> tips_key() const;  // Snapshot::key; nullopt when the native reader declined
  // Those of `commits` reachable from the tips all_commit_ids() walks from; answered from the
  // reachability cache when it knows them all under the current tips (refs/git_refs.hpp).
  std::set<std::string> alive_commits(const std::vector<std::string>& commits) const;
  bool is_ancestor(const std::string& ancestor, const std::string& descendant) const;

  bool is_dirty(const std::vector<std::string>& paths) const;
  std::vector<std::string> tracked(const std::vector<std::string>& paths) const;
  std::optional<VcsAdapter::IndexStamp> index_stamp() const;

  CacheStats cache_stats() const;

  // Runs `fn(git_repository*)` under the reader's mutex, for the adapter's own libgit2 work
  // (abandon writes trees and commits into the object database; never refs, index or files).
  // `fn` must not call back into the reader.
  template <typename Fn>
  decltype(auto) with_repository(Fn&& fn) const {
    std::lock_guard lock(mutex_);
    return fn(repo());
  }

 private:
  git_repository* repo() const;  // opens libgit2's handle at first use; mutex held
  git_commit* lookup_commit(const std::string& rev) const;  // caller frees; mutex held
  std::map<std::string, std::string> branches_git() const;  // mutex held
  std::vector<std::string> walk_all() const;                 // mutex held
  std::optional<refs::Snapshot> snapshot() const;            // native refs; nullopt = ask libgit2
  std::optional<refs::ReachCache> reach_cache_for(const std::optional<refs::Snapshot>& before) const;
  void store_reach_cache_if_unmoved(const std::optional<refs::Snapshot>& before, std::optional<refs::ReachCache> cache,
                                    const std::function<void(refs::ReachCache&)>& fill) const;
  std::optional<std::vector<Worktree>> native_worktrees() const;  // nullopt = ask libgit2
  std::shared_ptr<const FileMap> flatten_tree(const git_oid& tree) const;
  std::shared_ptr<const std::string> blob_content(const git_oid& blob) const;
  void push_all_tips(void* walk) const;

  mutable git_repository* repo_ = nullptr;
  std::optional<refs::Layout> layout_;  // the native reader's answer; nullopt = libgit2 only
  std::filesystem::path root_;
  mutable std::mutex mutex_;
  // Keyed by the raw object id (20 bytes, in place: a string key allocated per lookup).
  using OidKey = std::array<unsigned char, 20>;
  struct OidHash {
    std::size_t operator()(const OidKey& k) const {
      std::size_t h;  // an object id is already uniformly distributed
      std::memcpy(&h, k.data(), sizeof h);
      return h;
    }
  };
  static OidKey key(const git_oid& oid);
  mutable std::unordered_map<OidKey, std::shared_ptr<const FileMap>, OidHash> trees_;
  mutable std::unordered_map<OidKey, std::shared_ptr<const std::string>, OidHash> blobs_;
  mutable CacheStats stats_;
};

}  // namespace tether::vcs
