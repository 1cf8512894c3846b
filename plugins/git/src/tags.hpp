// tags: verify_many's view of a repository's tag refs, read once per call instead of one
// git_reference_lookup per pin. Each lookup stats the loose ref's path (a kernel path walk
// of a long name) and checks packed-refs' freshness before it searches; `verify
// --all-history` makes tens of thousands of them in repositories whose pin tags are packed.
//
// The snapshot answers only where it is sure libgit2 1.5's lookup would give the same ref:
// a name under refs/tags/ that is plain ASCII, already normalised and short, with no loose
// file (or symlink, or anything else that is not a directory) at it or above it, found in a
// packed-refs file that is strictly well formed and strictly sorted (so libgit2's binary
// search and its parsed table both find exactly that entry). Everything else, a miss
// included, is "ask libgit2", so odd and hostile names answer exactly as before.
#pragma once

#include <git2.h>
#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tether::git {

// A parsed packed-refs file: name -> the id it points at (views into `text`).
struct PackedRefs {
  struct Stamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    long long mtime_sec = 0, mtime_nsec = 0, ctime_sec = 0, ctime_nsec = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp stamp;
  bool strict = false;  // parse_packed_refs accepted it: `refs` is every ref in it
  std::string text;
  std::unordered_map<std::string_view, git_oid> refs;
};

// Reads packed-refs `text` into `out` (views into `text`); false, with `out` cleared, unless
// every line is strict: optional leading lines starting with '#', then records
// "<40 lower-case hex> <name>\n", each optionally followed by "^<40 lower-case hex>\n", names
// printable ASCII without spaces, in strictly increasing byte order.
bool parse_packed_refs(std::string_view text, std::unordered_map<std::string_view, git_oid>& out);

// A name under refs/tags/ that libgit2's lookup takes as it is: valid, and unchanged by
// git_reference_normalize_name (which the lookup calls first); short, and printable ASCII of
// a narrow alphabet. False leaves the name to libgit2 to judge.
bool plain_tag_name(const std::string& name);

// packed-refs files parsed once and shared by every thread and call while the file's stamp
// (device, inode, size, mtime and ctime, to the nanosecond) stays the same.
class PackedRefsCache {
 public:
  // The file at `path` as it is now; null when it is absent, unreadable or not strict, or
  // not parsed yet and bigger than `max_bytes`.
  std::shared_ptr<const PackedRefs> get(const std::string& path, std::size_t max_bytes);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const PackedRefs>> files_;
};

class TagSnapshot {
 public:
  // The repository's tags as they are now, for a call of about `pins` pins; nullopt when
  // no name can be answered from a snapshot (a ref namespace, a refs/tags tree that cannot be
  // read as a stat would walk it, a packed-refs file that is absent or not strict) or reading
  // one would cost more than the call's lookups (a big packed-refs not parsed yet, many loose
  // refs).
  static std::optional<TagSnapshot> read(git_repository* repo, PackedRefsCache& cache, std::size_t pins);

  // The id the ref `name` points at when a lookup would find exactly this packed ref;
  // nullptr: ask libgit2.
  const git_oid* packed_target(const std::string& name) const;

 private:
  std::shared_ptr<const PackedRefs> packed_;
  std::unordered_set<std::string> loose_;  // lower-cased full names of non-directories under refs/tags
};

}  // namespace tether::git
