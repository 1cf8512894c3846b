// git_backend: the `git` backend (docs/backends.md#git): another git repository tracked as a
// Forkable object. Its state is the commit a ref sits at (`sha`, with the volatile `dirty`
// for the checkout), a pin is the lightweight tag `tether.<pin_id>`, a fork is a branch, and
// promote fast-forwards or merge makes a real three-way merge commit.
//
// Everything runs in-process on libgit2: reads, tags, CAS branch moves (libgit2 locks the ref
// and compares the old value under the lock), merges (in memory, then a CAS move of the base)
// and diffs. Only pushes to a remote go through the `git` command, so the user's credential
// helpers and ssh configuration apply. libgit2 runs no hooks, no fsmonitor and no filters
// from a repository's configuration, which is what makes reading a repository safe.
//
// Every operation may run on several threads at once: each opens its own git_repository.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "git2.hpp"
#include "tags.hpp"
#include "target.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::git {

class GitBackend : public sdk::Backend<GitBackend> {
 public:
  explicit GitBackend(const sdk::Json& config);

  sdk::Description describe(sdk::Call&);
  sdk::Json identity(sdk::Call&, const sdk::LocatorRequest&);
  void validate_locator(sdk::Call&, const sdk::LocatorRequest&);
  uint32_t effective_capabilities(sdk::Call&, const sdk::PolicyRequest&);
  std::string base_branch(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<std::string> default_key(sdk::Call&, const sdk::LocatorRequest&);
  bool state_addressable(sdk::Call&, const sdk::StateRequest&);
  sdk::State fingerprint(sdk::Call&, const sdk::FingerprintRequest&);
  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest&);
  std::vector<sdk::VerifyOutcome> verify_many(sdk::Call&, const sdk::VerifyManyRequest&);
  sdk::Pin pin(sdk::Call&, const sdk::PinRequest&);
  void unpin(sdk::Call&, const sdk::UnpinRequest&);
  std::vector<std::string> list_pins(sdk::Call&, const sdk::LocatorRequest&);
  std::string fork(sdk::Call&, const sdk::ForkRequest&);
  void delete_working_ref(sdk::Call&, const sdk::RefRequest&);
  std::vector<std::string> list_working_refs(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<std::string> working_ref_blockers(sdk::Call&, const sdk::RefRequest&);
  sdk::Json open(sdk::Call&, const sdk::OpenRequest&);
  sdk::ObjectDiff diff(sdk::Call&, const sdk::DiffRequest&);
  std::vector<sdk::HistoryEntry> history(sdk::Call&, const sdk::HistoryRequest&);
  sdk::State promote(sdk::Call&, const sdk::PromoteRequest&);
  sdk::State merge(sdk::Call&, const sdk::MergeRequest&);
  std::optional<bool> ancestor_of(sdk::Call&, const sdk::AncestorRequest&);
  sdk::State create(sdk::Call&, const sdk::CreateRequest&);
  std::optional<std::string> owner(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<bool> is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest&);
  void delete_store(sdk::Call&, const sdk::LocatorRequest&);
  std::string rename_working_ref(sdk::Call&, const sdk::RenameRefRequest&);
  sdk::LandingBlocker promote_blockers(sdk::Call&, const sdk::LandingRequest&);
  sdk::State rewind(sdk::Call&, const sdk::RewindRequest&);

 private:
  struct Opened {
    Target target;
    Repository repo;
  };
  // parse_target + the checkout refusal + open; BackendError naming the path when it is not
  // a repository.
  Opened open_target(const sdk::Locator& locator) const;
  // The remote a pin is pushed to: the secrets' `remote` (a URL or name), else the
  // locator's, which must be configured in the repository. nullopt: no pushes.
  std::optional<std::string> push_remote(const Opened& o, const sdk::Locator& locator) const;
  void check_remote(const Opened& o) const;
  std::string base_branch_of(const Opened& o) const;
  git_oid resolve_source(const Opened& o, const sdk::Source& source) const;
  git_oid resolve_read_ref(const Opened& o, const std::string& ref) const;
  git_oid resolve_state(const Opened& o, const sdk::State& state) const;
  sdk::State state_at(const Opened& o, const std::string& ref, const git_oid& sha) const;
  // Moves refs/heads/<branch> to `to` if it is at `old` (nullopt: must not exist), under
  // libgit2's ref lock. Throws sdk::RefMoved naming `what` when the branch is elsewhere.
  void move_branch(const Opened& o, const std::string& branch, const git_oid& to, const std::optional<git_oid>& old,
                   const std::string& what, const sdk::Json& expected_state) const;
  // Refuses when `branch` is checked out in a working tree other than the repository's
  // own; returns whether it is checked out in the repository's own working tree.
  bool checked_out_here(const Opened& o, const std::string& branch, const std::string& what) const;
  // The head of the base branch, checked against `expected` (RefMoved naming `what`).
  git_oid base_head(const Opened& o, const std::string& base, const sdk::Expected& expected,
                    const std::string& what) const;
  // Moves the base from `head` to `to` (CAS). When it is checked out here: the landing
  // marker, the CAS, then the working tree and index (landing.hpp), so a kill at any point
  // leaves a state settle() finishes.
  void land(const Opened& o, const std::string& base, const git_oid& head, const git_oid& to, bool here,
            const std::string& what, const sdk::Expected& expected) const;
  // Finishes a landing a kill interrupted (the marker is there): the working tree and index
  // follow the commit the branch is at. BackendError naming the way out when it cannot.
  void settle(const Opened& o) const;
  // The in-memory merge of `theirs` into `ours`, and the paths it conflicts in.
  Index merged_index(const Opened& o, const git_oid& ours, const git_oid& theirs, const std::string& base) const;
  static std::vector<std::string> conflict_paths(git_index* index);
  // Pushes `refspec` (`<sha>:refs/tags/x`, or `:refs/tags/x` to delete) to every URL of
  // `remote` with a closed configuration: git runs on a scratch GIT_DIR that borrows only the
  // object repository's objects, so nothing in that repository's own configuration
  // (receivepack, sshCommand, credential helpers, insteadOf, ...) is read; the system and
  // global configuration and the user's credential helpers still apply.
  struct PushResult {
    bool ok;
    std::string message;
  };
  PushResult git_push(const Opened& o, const std::string& remote, const std::string& refspec) const;
  // The URLs of `remote`: remote.<name>.pushurl (every value), else remote.<name>.url, read
  // (never run) from the object repository's configuration; a name that is no configured
  // remote is itself the URL (a `remote` from secrets.toml may be either).
  std::vector<std::string> push_urls(const Opened& o, const std::string& remote) const;
  // verify only reads refs and objects: it reuses one repository handle per (thread, path)
  // instead of opening the repository for every pin (`verify --all-history` checks thousands
  // of pins in a handful of repositories). libgit2 re-reads loose refs and a changed
  // packed-refs on every lookup, so a handle kept for the backend's lifetime sees new pins.
  // A handle is used by one thread at a time: the thread that made it.
  // `resolved_checkout`: the dataset checkout already resolved (verify_many, once per call).
  git_repository* verify_repository(const Target& t, const std::string* resolved_checkout = nullptr) const;
  // verify's lookup, once the target is parsed and its repository open; `tags` (optional)
  // answers pin tags it can vouch for without a lookup.
  sdk::VerifyReport verify_in(const Target& t, git_repository* repo, const sdk::VerifyRequest& r,
                              const std::string& sha, const TagSnapshot* tags) const;

  Library library_;  // first: libgit2 stays initialised until the cached handles are freed
  mutable std::mutex verify_mutex_;
  mutable std::map<std::pair<std::thread::id, std::string>, Repository> verify_cache_;
  mutable PackedRefsCache packed_refs_;  // verify_many's packed-refs files, parsed once
};

}  // namespace tether::git
