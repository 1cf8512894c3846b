// hash_cache: the stat -> sha256 cache, `<cache_dir>/file-hashes.json` (docs/backends.md#file),
// so an unchanged tree is only stat'ed. One instance serves every object of the backend
// and every thread: lookups and records happen under one lock; only the hashing of misses
// runs outside it, in parallel.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "walk.hpp"

namespace tether::file {

inline constexpr int64_t kRacyWindowNs = 2'000'000'000;
inline constexpr const char* kCacheFileName = "file-hashes.json";

// One file to hash: `sha256` is filled in by HashCache::fill.
struct HashJob {
  std::string path;  // absolute: the cache key
  FileStat stat;
  std::string sha256;
};

class HashCache {
 public:
  explicit HashCache(int64_t racy_window_ns = kRacyWindowNs) : racy_window_ns_(racy_window_ns) {}

  // Where file-hashes.json lives; "" keeps the cache in memory only. The file is read on
  // first use after this call.
  void set_directory(const std::string& dir);

  // Fills every job's sha256: from the cache when size, mtime, ctime and inode match and
  // the entry is not racy (hashed less than the racy window after the file last changed),
  // otherwise by reading the file (several misses on up to 8 threads). Writes the cache
  // file once afterwards if anything was recorded. Throws sdk::BackendError on a read error.
  void fill(std::vector<HashJob>& jobs);

  // Files read since construction (tests: an unchanged tree reads none).
  uint64_t files_hashed() const { return files_hashed_.load(); }

 private:
  struct Entry {
    FileStat stat;
    std::string sha256;
    int64_t hashed_at_ns = 0;
  };
  void load_locked();
  std::string serialize_locked() const;
  void save();

  const int64_t racy_window_ns_;
  std::mutex mu_;  // guards everything below
  std::string dir_;
  bool loaded_ = false;
  bool dirty_ = false;
  std::unordered_map<std::string, Entry> entries_;
  std::mutex save_mu_;  // one writer of the file at a time
  std::atomic<uint64_t> files_hashed_{0};
};

}  // namespace tether::file
