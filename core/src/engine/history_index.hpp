// engine/history_index.hpp: what every commit's manifests say, kept beside the repository
// so that the commands that read the whole history (`gc`, `verify --all-history`) do not
// read and parse every commit's `.tether/objects/` again on every run (docs/ARCHITECTURE.md,
// "The history index"). What git's commit-graph is to `git log`.
//
// A commit id names its whole tree, so "the manifests of commit C" never changes: the index
// keeps, per commit, which of its distinct manifest records its `objects/` tree holds, and
// per record the few fields gc and verify read, as the canonical JSON texts the commands
// compare. It is brought up to date with the VCS on each load (only the commits it lacks are
// read), and rewritten when that added or removed commits. Under unchanged tips
// (VcsAdapter::tips_key) even the walk that lists the commits is skipped.
//
// The file (<VCS shared dir>/tether-history, "-<hash of the dataset path>" for a dataset
// below the repository's top) is a cache: a clone never carries it (it lives in .git), a
// file that does not read whole and exactly is ignored and rebuilt, and a commit whose
// manifests do not all parse is not indexed at all (the commands read it as before, with
// the error they always gave).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::engine {

struct Context;

// One distinct manifest record (fields are views into the index, which outlives them).
struct IndexedManifest {
  std::string_view key, kind;
  std::string_view locator;  // canonical JSON
  std::string_view state;    // canonical JSON; "" = no state recorded
  std::string_view pin_id;   // "" = no pin
  std::string_view pin_ref;
  bool recoverable = true;
  std::string_view line;  // all of the above as stored: equal lines are equal records
};

class HistoryIndex {
 public:
  static constexpr std::uint32_t kNotIndexed = UINT32_MAX;
  struct Commit {
    std::string id;
    std::uint32_t tree = kNotIndexed;  // into tree(); kNotIndexed: read this commit from the VCS
  };
  struct Stats {
    bool file_used = false;      // a stored index was read and used
    bool tips_matched = false;   // ... under the current tips: no walk
    std::size_t commits_read = 0;  // commits read from the VCS (not in the index)
    bool stored = false;         // the index was rewritten
  };

  // The index of this dataset's history, every commit reachable now, in
  // VcsAdapter::all_commit_ids() order. Failures to read or write the file only cost speed;
  // VCS failures (a commit that cannot be read) propagate as VcsError. `reading` is told how
  // many of the commits the index lacked have been read (a first run reads them all).
  static std::shared_ptr<const HistoryIndex> load(Context& cx, const std::function<void(std::size_t, std::size_t)>& reading = {});

  const std::vector<Commit>& commits() const { return commits_; }
  const std::vector<IndexedManifest>& manifests() const { return manifests_; }
  std::size_t tree_count() const { return tree_start_.size(); }
  // The records of one `objects/` tree, in path order (manifest files only).
  std::span<const std::uint32_t> tree(std::uint32_t t) const {
    std::size_t end = t + 1 < tree_start_.size() ? tree_start_[t + 1] : tree_items_.size();
    return {tree_items_.data() + tree_start_[t], end - tree_start_[t]};
  }
  const Stats& stats() const { return stats_; }

  // ---- the file (public for the tests and the fuzz target) ----
  // Parses a stored index; false (and `out` unchanged in meaning) unless it is whole and
  // exactly as serialise() writes it, for this tether and this dataset (`rel_hash`).
  static bool parse(std::string text, const std::string& rel_hash, HistoryIndex& out, std::string& tips);
  std::string serialise(const std::string& rel_hash, const std::string& tips) const;

 private:
  friend struct HistoryIndexBuilder;
  std::string text_;                  // the file read (manifest views point into it)
  std::deque<std::string> arena_;     // the lines of records added since
  std::vector<IndexedManifest> manifests_;
  std::vector<std::uint32_t> tree_start_, tree_items_;
  std::vector<Commit> commits_;
  Stats stats_;
};

}  // namespace tether::engine
