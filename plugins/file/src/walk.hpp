// walk: one directory tree as rows to fingerprint (docs/backends.md#file).
// Real directories are descended; regular files and symlinks to regular files are stat'ed
// through the link; every other symlink (to a directory, dangling, to a special file) is
// recorded by its target; other special files are skipped; the owner marker at the root is
// not content.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tether::file {

inline constexpr const char* kOwnerMarker = ".tether-owner";

// What the stat cache is keyed by.
struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  bool operator==(const FileStat&) const = default;
};

struct WalkEntry {
  std::string rel;         // relative path, '/'-separated, valid UTF-8
  bool is_file = false;    // a file row (hash its content) or a symlink row
  FileStat stat;           // file rows: the stat through any link
  std::string link_token;  // symlink rows: "symlink:<sha256 hex of the raw target bytes>"
};

// Rows found so far, reported every few hundred (from any scanning thread, one at a time).
using WalkProgress = std::function<void(uint64_t rows)>;

// Every row under `root` (an existing directory), sorted by path bytes (Python's sort of the
// relative paths). Throws sdk::BackendError naming the path on an unreadable directory or a
// name that is not UTF-8.
std::vector<WalkEntry> walk_directory(const std::string& root, const WalkProgress& progress = {});

// `root` joined with a relative path, as the cache keys paths.
std::string join_path(const std::string& root, const std::string& rel);

}  // namespace tether::file
