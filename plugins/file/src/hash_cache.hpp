// hash_cache: the stat -> sha256 cache, `<cache_dir>/file-hashes.bin` (docs/backends.md#file),
// so an unchanged tree is only stat'ed. One instance serves every object of the backend
// and every thread: lookups and records happen under one lock; only the hashing of misses
// runs outside it, in parallel.
//
// The file is not parsed on load: it is read into one buffer and looked up in place. It holds
// a header, fixed-width records sorted by path, and the paths' bytes (see hash_cache.cpp). A
// directory's files come sorted, as the records are, so its lookups are one binary search and
// then a walk forward: no per-entry allocation, no hashing of paths, and nothing to free one
// by one at exit. Entries recorded in this process wait in a sorted overlay until the next
// save, which writes the merge of both as a new file.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "walk.hpp"

namespace tether::file {

inline constexpr int64_t kRacyWindowNs = 2'000'000'000;
inline constexpr const char* kCacheFileName = "file-hashes.bin";
// The JSON cache of earlier versions: never read, removed at the first save.
inline constexpr const char* kOldCacheFileName = "file-hashes.json";

// One file to hash: `sha256` is filled in by HashCache::fill.
struct HashJob {
  std::string path;  // absolute: the cache key
  FileStat stat;
  std::string sha256;
};

// One cache entry as the file and the overlay hold it.
struct HashEntry {
  FileStat stat;
  int64_t hashed_at_ns = 0;
  std::array<unsigned char, 32> sha256{};
};

// A read-only view of one cache file's bytes (as read, or as made by a save). Every offset
// in it is checked before use: a truncated, corrupt or hostile file yields misses, never a
// read outside it.
class CacheImage {
 public:
  // The image of the file at `path`; empty when it is missing, unreadable or not of this
  // format (an old cache, another byte order, a bad header).
  static std::shared_ptr<const CacheImage> open(const std::string& path);
  // The image of bytes made by serialize().
  static std::shared_ptr<const CacheImage> adopt(std::string bytes);
  ~CacheImage();
  CacheImage(const CacheImage&) = delete;
  CacheImage& operator=(const CacheImage&) = delete;

  std::size_t size() const { return count_; }
  std::string_view bytes() const { return {data_, bytes_}; }
  // The i-th record's path ("" when its bytes are out of range) and entry.
  std::string_view key(std::size_t i) const;
  HashEntry entry(std::size_t i) const;
  // The first index whose key is not less than `key` (binary search; on a file that is not
  // sorted it still ends, and a wrong place only costs a miss).
  std::size_t lower_bound(std::string_view key) const;

  // The file's bytes for the union of `base` (may be null) and `overlay` (which wins),
  // sorted; records of `base` out of order or out of range are dropped.
  static std::string serialize(const CacheImage* base, const std::map<std::string, HashEntry, std::less<>>& overlay);

 private:
  CacheImage() = default;
  bool index();  // checks the header; sets the pointers below

  const char* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::unique_ptr<char[]> buffer_;  // the file's bytes, as read
  std::string owned_;               // or those of a save
  const char* records_ = nullptr;
  const char* strings_ = nullptr;
  std::size_t count_ = 0;
  std::size_t strings_size_ = 0;
};

class HashCache {
 public:
  explicit HashCache(int64_t racy_window_ns = kRacyWindowNs) : racy_window_ns_(racy_window_ns) {}

  // Where file-hashes.bin lives; "" keeps the cache in memory only. The file is read on
  // first use after this call.
  void set_directory(const std::string& dir);

  // Fills every job's sha256: from the cache when size, mtime, ctime and inode match and
  // the entry is not racy (hashed less than the racy window after the file last changed),
  // otherwise by reading the file (several misses on up to 8 threads). Writes the cache
  // file once afterwards if anything was recorded. Throws sdk::BackendError on a read error.
  // `progress` hears of the misses read, as increments (files, bytes) from the reading
  // threads, every 64 files and after every file of 16 MB or more; it may throw to stop.
  using FillProgress = std::function<void(uint64_t files, uint64_t bytes)>;
  void fill(std::vector<HashJob>& jobs, const FillProgress& progress = {});
  // The same for the file children of one scanned directory, whose cache keys are `prefix`
  // (the directory's absolute path and a '/') and their names: fills each file child's
  // sha256, reading the misses on this thread, or a big directory's on a few when `threads`
  // allows (the walk says whether its own threads have other directories to scan). Does not
  // save: call save() once the walk is done.
  void fill_dir(const std::string& prefix, WalkNode& node, const FillProgress& progress = {}, bool threads = true);

  // Writes the cache file if anything was recorded since the last save.
  void save();
  // Whether anything was recorded since the last save.
  bool unsaved();

  // Files read since construction (tests: an unchanged tree reads none).
  uint64_t files_hashed() const { return files_hashed_.load(); }

 private:
  // A file to read: its cache key (absolute path), its stat, where its hash goes.
  struct Miss {
    std::string path;
    FileStat stat;
    unsigned char* sha256;
  };
  void load_locked();
  const HashEntry* find_locked(std::string_view path, std::size_t& cursor, HashEntry& scratch) const;
  // The cached hash of `path` into out[0..32) when the entry matches `stat` and is not racy.
  bool lookup_locked(std::string_view path, const FileStat& stat, std::size_t& cursor, unsigned char* out) const;
  // Hashes the misses (on up to `threads` threads) and records them.
  void hash_misses(std::vector<Miss>& misses, unsigned threads, const FillProgress& progress);

  const int64_t racy_window_ns_;
  std::mutex mu_;  // guards everything below
  std::string dir_;
  bool loaded_ = false;
  bool dirty_ = false;
  std::shared_ptr<const CacheImage> image_;
  std::map<std::string, HashEntry, std::less<>> overlay_;  // recorded since the last save
  std::atomic<uint64_t> files_hashed_{0};
};

}  // namespace tether::file
