#include "hash_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <thread>

#include "hashing.hpp"

namespace tether::file {
namespace {

constexpr unsigned kMaxHashThreads = 8;
// Progress from the reading threads: every this many files, and after every file this big.
constexpr uint64_t kReportFiles = 64;
constexpr uint64_t kReportBytes = 16u << 20;

// The file: a 32-byte header, `count` records of kRecordSize bytes sorted by path bytes,
// then the paths' bytes. Native byte order (the cache never leaves the machine); a file
// written in the other order fails the byte-order check and counts as empty.
//
//   header: magic[8] "tthash1\n", u32 byte order 0x01020304, u32 record size, u64 count,
//           u64 size of the path area
//   record: u32 path offset, u32 path length (into the path area), u64 size, i64 mtime_ns,
//           i64 ctime_ns, u64 inode, i64 hashed_at_ns, 32 bytes of SHA-256
constexpr char kMagic[8] = {'t', 't', 'h', 'a', 's', 'h', '1', '\n'};
constexpr uint32_t kByteOrder = 0x01020304;
constexpr std::size_t kHeaderSize = 32;
constexpr std::size_t kRecordSize = 80;

template <class T>
T load_at(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void store_at(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr char kHex[] = "0123456789abcdef";

std::string to_hex(const std::array<unsigned char, 32>& raw) {
  std::string out(64, '\0');
  for (std::size_t i = 0; i < raw.size(); ++i) {
    out[2 * i] = kHex[raw[i] >> 4];
    out[2 * i + 1] = kHex[raw[i] & 15];
  }
  return out;
}

// The directory of the files one hashing thread reads, open: the misses come in the walk's
// order, so consecutive files mostly share it, and each is opened by name in it (openat)
// instead of by a path the kernel walks again. A directory that cannot be opened leaves the
// file to be opened by its whole path (and the error, if any, to name it).
class DirCursor {
 public:
  DirCursor() = default;
  DirCursor(const DirCursor&) = delete;
  DirCursor& operator=(const DirCursor&) = delete;
  ~DirCursor() {
    if (fd_ >= 0) ::close(fd_);
  }
  // The open directory of `path` and, in `name`, the file's name in it; nullptr `name` when
  // there is none to use.
  int open_parent(const std::string& path, const char*& name) {
    std::size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash + 1 == path.size()) return -1;
    std::string_view dir(path.data(), slash == 0 ? 1 : slash);
    if (fd_ < 0 || dir != dir_) {
      if (fd_ >= 0) ::close(fd_);
      dir_.assign(dir);
      fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd_ >= 0) name = path.c_str() + slash + 1;
    return fd_;
  }

 private:
  std::string dir_;
  int fd_ = -1;
};

}  // namespace

// ---- CacheImage ------------------------------------------------------------------------------

// Read, not mapped: a mapping dies with SIGBUS when another program truncates the file in
// place, and the cache must never crash tether. One read into one buffer, freed at once.
std::shared_ptr<const CacheImage> CacheImage::open(const std::string& path) {
  std::shared_ptr<CacheImage> img(new CacheImage());
  // O_NONBLOCK: a FIFO in the file's place must not hang the open; it is refused below.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return img;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= static_cast<off_t>(kHeaderSize)) {
    std::size_t size = static_cast<std::size_t>(st.st_size), done = 0;
    std::unique_ptr<char[]> buf(new (std::nothrow) char[size]);
    while (buf && done < size) {
      ssize_t n = ::read(fd, buf.get() + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // an error, or the file shrank meanwhile
      done += static_cast<std::size_t>(n);
    }
    if (buf && done == size) {
      img->buffer_ = std::move(buf);
      img->data_ = img->buffer_.get();
      img->bytes_ = size;
    }
  }
  ::close(fd);
  if (!img->index()) img->count_ = 0;
  return img;
}

std::shared_ptr<const CacheImage> CacheImage::adopt(std::string bytes) {
  std::shared_ptr<CacheImage> img(new CacheImage());
  img->owned_ = std::move(bytes);
  img->data_ = img->owned_.data();
  img->bytes_ = img->owned_.size();
  if (!img->index()) img->count_ = 0;
  return img;
}

CacheImage::~CacheImage() = default;

bool CacheImage::index() {
  if (bytes_ < kHeaderSize || std::memcmp(data_, kMagic, sizeof kMagic) != 0) return false;
  if (load_at<uint32_t>(data_ + 8) != kByteOrder || load_at<uint32_t>(data_ + 12) != kRecordSize) return false;
  uint64_t count = load_at<uint64_t>(data_ + 16), strings = load_at<uint64_t>(data_ + 24);
  uint64_t room = bytes_ - kHeaderSize;
  if (count > room / kRecordSize || strings != room - count * kRecordSize) return false;
  records_ = data_ + kHeaderSize;
  count_ = static_cast<std::size_t>(count);
  strings_ = records_ + count_ * kRecordSize;
  strings_size_ = static_cast<std::size_t>(strings);
  return true;
}

std::string_view CacheImage::key(std::size_t i) const {
  const char* r = records_ + i * kRecordSize;
  uint64_t off = load_at<uint32_t>(r), len = load_at<uint32_t>(r + 4);
  if (off > strings_size_ || len > strings_size_ - off) return {};
  return {strings_ + off, static_cast<std::size_t>(len)};
}

HashEntry CacheImage::entry(std::size_t i) const {
  const char* r = records_ + i * kRecordSize;
  HashEntry e;
  e.stat.size = load_at<uint64_t>(r + 8);
  e.stat.mtime_ns = load_at<int64_t>(r + 16);
  e.stat.ctime_ns = load_at<int64_t>(r + 24);
  e.stat.inode = load_at<uint64_t>(r + 32);
  e.hashed_at_ns = load_at<int64_t>(r + 40);
  std::memcpy(e.sha256.data(), r + 48, e.sha256.size());
  return e;
}

std::size_t CacheImage::lower_bound(std::string_view k) const {
  std::size_t lo = 0, hi = count_;
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

namespace {

using Overlay = std::map<std::string, HashEntry, std::less<>>;

// Calls f(key, entry) for the union of `base` (may be null) and `overlay` (which wins), in
// key order; records of `base` out of order or out of range are dropped.
template <class F>
void merge_entries(const CacheImage* base, const Overlay& overlay, F&& f) {
  std::size_t n = base ? base->size() : 0, i = 0;
  auto it = overlay.begin();
  std::string_view last;
  bool any = false;
  while (i < n || it != overlay.end()) {
    if (i < n) {
      std::string_view k = base->key(i);
      if (k.empty() || (any && k <= last)) {  // out of range or out of order
        ++i;
        continue;
      }
      if (it == overlay.end() || k < it->first) {
        f(k, base->entry(i++));
        last = k;
        any = true;
        continue;
      }
      if (k == it->first) ++i;  // the overlay's entry is newer
    }
    f(std::string_view(it->first), it->second);
    last = it->first;
    any = true;
    ++it;
  }
}

// How many entries the merge keeps (all, unless the path area would pass 4 GiB) and the size
// of their path area.
struct Layout {
  std::size_t count = 0;
  uint64_t strings = 0;
  std::size_t bytes() const { return kHeaderSize + count * kRecordSize + static_cast<std::size_t>(strings); }
};

Layout layout_of(const CacheImage* base, const Overlay& overlay) {
  Layout l;
  bool full = false;
  merge_entries(base, overlay, [&](std::string_view key, const HashEntry&) {
    if (full || l.strings + key.size() > std::numeric_limits<uint32_t>::max()) {
      full = true;
      return;
    }
    ++l.count;
    l.strings += key.size();
  });
  return l;
}

void put_header(char* h, const Layout& l) {
  std::memcpy(h, kMagic, sizeof kMagic);
  store_at<uint32_t>(h + 8, kByteOrder);
  store_at<uint32_t>(h + 12, static_cast<uint32_t>(kRecordSize));
  store_at<uint64_t>(h + 16, l.count);
  store_at<uint64_t>(h + 24, l.strings);
}

void put_record(char* rec, uint32_t off, std::string_view key, const HashEntry& e) {
  store_at<uint32_t>(rec, off);
  store_at<uint32_t>(rec + 4, static_cast<uint32_t>(key.size()));
  store_at<uint64_t>(rec + 8, e.stat.size);
  store_at<int64_t>(rec + 16, e.stat.mtime_ns);
  store_at<int64_t>(rec + 24, e.stat.ctime_ns);
  store_at<uint64_t>(rec + 32, e.stat.inode);
  store_at<int64_t>(rec + 40, e.hashed_at_ns);
  std::memcpy(rec + 48, e.sha256.data(), e.sha256.size());
}

// Calls put_record for each of the first l.count merged entries, with its path's offset,
// and g(key) for its path bytes.
template <class R, class G>
void emit(const CacheImage* base, const Overlay& overlay, const Layout& l, R&& record, G&& path) {
  std::size_t k = 0;
  uint32_t off = 0;
  merge_entries(base, overlay, [&](std::string_view key, const HashEntry& e) {
    if (k++ >= l.count) return;
    record(off, key, e);
    path(key);
    off += static_cast<uint32_t>(key.size());
  });
}

// A region of a file written in order through a buffer, with pwrite at its own offset.
class RegionWriter {
 public:
  RegionWriter(int fd, uint64_t at) : fd_(fd), at_(at) { buf_.reserve(kFlushAt); }
  char* grow(std::size_t n) {
    if (buf_.size() + n > kFlushAt) flush();
    buf_.resize(buf_.size() + n);
    return buf_.data() + buf_.size() - n;
  }
  void append(std::string_view b) { std::memcpy(grow(b.size()), b.data(), b.size()); }
  bool flush() {
    for (std::size_t done = 0; ok_ && done < buf_.size();) {
      ssize_t n = ::pwrite(fd_, buf_.data() + done, buf_.size() - done, static_cast<off_t>(at_ + done));
      if (n < 0 && errno == EINTR) continue;
      ok_ = n > 0;
      if (ok_) done += static_cast<std::size_t>(n);
    }
    at_ += buf_.size();
    buf_.clear();
    return ok_;
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  int fd_;
  uint64_t at_;
  bool ok_ = true;
  std::string buf_;
};

// Writes the merge to `path` (created or truncated, never through a symlink) as it is made:
// no copy of the whole file is held in memory.
bool write_merged(const std::string& path, const CacheImage* base, const Overlay& overlay) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return false;
  Layout l = layout_of(base, overlay);
  char header[kHeaderSize];
  put_header(header, l);
  RegionWriter head(fd, 0), records(fd, kHeaderSize), paths(fd, kHeaderSize + l.count * kRecordSize);
  head.append(std::string_view(header, sizeof header));
  emit(
      base, overlay, l, [&](uint32_t off, std::string_view key, const HashEntry& e) { put_record(records.grow(kRecordSize), off, key, e); },
      [&](std::string_view key) { paths.append(key); });
  bool ok = head.flush();
  ok = records.flush() && ok;
  ok = paths.flush() && ok;
  return (::close(fd) == 0) && ok;
}

}  // namespace

std::string CacheImage::serialize(const CacheImage* base, const Overlay& overlay) {
  Layout l = layout_of(base, overlay);
  std::string out(l.bytes(), '\0');
  put_header(out.data(), l);
  char* rec = out.data() + kHeaderSize;
  char* str = rec + l.count * kRecordSize;
  emit(
      base, overlay, l,
      [&](uint32_t off, std::string_view key, const HashEntry& e) {
        put_record(rec, off, key, e);
        rec += kRecordSize;
      },
      [&](std::string_view key) {
        std::memcpy(str, key.data(), key.size());
        str += key.size();
      });
  return out;
}

// ---- HashCache -------------------------------------------------------------------------------

void HashCache::set_directory(const std::string& dir) {
  std::lock_guard lock(mu_);
  if (dir == dir_) return;
  dir_ = dir;
  loaded_ = false;
  dirty_ = false;
  image_.reset();
  overlay_.clear();
}

// A missing, corrupt or unreadable cache counts as empty.
void HashCache::load_locked() {
  loaded_ = true;
  if (!dir_.empty()) image_ = CacheImage::open(join_path(dir_, kCacheFileName));
}

// The entry for `path`, from the overlay, else from the image. `cursor` is where the last
// lookup ended in the image: the walk's order is the image's, so the next key is usually
// right there and the binary search is the exception.
const HashEntry* HashCache::find_locked(std::string_view path, std::size_t& cursor, HashEntry& scratch) const {
  if (!overlay_.empty())
    if (auto it = overlay_.find(path); it != overlay_.end()) return &it->second;
  if (!image_ || image_->size() == 0) return nullptr;
  if (cursor >= image_->size() || image_->key(cursor) != path) cursor = image_->lower_bound(path);
  if (cursor >= image_->size() || image_->key(cursor) != path) return nullptr;
  scratch = image_->entry(cursor++);
  return &scratch;
}

// Atomic replace: write a temporary file in the same directory, then rename it over the
// target. A failed write only loses the cache, so it is not an error of the fingerprint.
// The file is written from the image and the overlay as it is merged, under the lock (other
// fills wait), and the image is then dropped: the next fill reads the new file.
void HashCache::save() {
  std::lock_guard lock(mu_);
  if (!dirty_ || dir_.empty()) return;
  if (!loaded_) load_locked();  // a save since this fill's lookups dropped the image: read it again
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::string target = join_path(dir_, kCacheFileName);
  std::string tmp = join_path(dir_, ".file-hashes.bin." + std::to_string(::getpid()) + ".tmp");
  bool ok = write_merged(tmp, image_.get(), overlay_) && std::rename(tmp.c_str(), target.c_str()) == 0;
  if (!ok) {
    std::remove(tmp.c_str());
    return;  // dirty: tried again after the next fingerprint
  }
  std::remove(join_path(dir_, kOldCacheFileName).c_str());
  image_.reset();
  overlay_.clear();
  loaded_ = false;
  dirty_ = false;
}

bool HashCache::unsaved() {
  std::lock_guard lock(mu_);
  return dirty_ && !dir_.empty();
}

bool HashCache::lookup_locked(std::string_view path, const FileStat& stat, std::size_t& cursor,
                              unsigned char* out) const {
  HashEntry scratch;
  const HashEntry* e = find_locked(path, cursor, scratch);
  if (!e) return false;
  bool racy = e->hashed_at_ns - std::max(e->stat.mtime_ns, e->stat.ctime_ns) < racy_window_ns_;
  if (e->stat != stat || racy) return false;
  std::memcpy(out, e->sha256.data(), e->sha256.size());
  return true;
}

void HashCache::fill(std::vector<HashJob>& jobs, const FillProgress& progress) {
  std::vector<std::array<unsigned char, 32>> raw(jobs.size());
  std::vector<Miss> misses;
  {
    std::lock_guard lock(mu_);
    if (!loaded_) load_locked();
    std::size_t cursor = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (!lookup_locked(jobs[i].path, jobs[i].stat, cursor, raw[i].data()))
        misses.push_back({jobs[i].path, jobs[i].stat, raw[i].data()});
  }
  hash_misses(misses, kMaxHashThreads, progress);
  save();
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].sha256 = to_hex(raw[i]);
}

void HashCache::fill_dir(const std::string& prefix, WalkNode& node, const FillProgress& progress, bool threads) {
  std::vector<Miss> misses;
  {
    std::lock_guard lock(mu_);
    if (!loaded_) load_locked();
    std::size_t cursor = 0;
    std::string key = prefix;
    for (WalkChild& c : node.children) {
      if (c.kind != WalkChild::kFile) continue;
      key.resize(prefix.size());
      key.append(node.name(c));
      if (!lookup_locked(key, c.stat, cursor, c.sha256.data())) misses.push_back({key, c.stat, c.sha256.data()});
    }
  }
  // Other directories are scanned and read on the walk's other threads meanwhile; only a
  // big directory with nothing else going on gets threads of its own (measured: on 2 cores,
  // 100 directories of 1,000 files each read 10% faster without them).
  constexpr std::size_t kPerThread = 256;
  const std::size_t n = threads ? std::min<std::size_t>(kMaxHashThreads / 2, misses.size() / kPerThread) : 1;
  hash_misses(misses, static_cast<unsigned>(n), progress);
}

void HashCache::hash_misses(std::vector<Miss>& misses, unsigned threads, const FillProgress& progress) {
  if (misses.empty()) return;
  // The time is taken before each read: a write during the read then makes the entry racy.
  std::vector<int64_t> hashed_at(misses.size());
  // What one reading thread has read and not yet reported.
  struct Unreported {
    uint64_t files = 0, bytes = 0;
    void flush(const FillProgress& progress) {
      if (progress && files) progress(files, bytes);
      files = bytes = 0;
    }
  };
  auto hash_one = [&](FileHasher& hasher, DirCursor& dir, Unreported& unreported, std::size_t m) {
    hashed_at[m] = wall_ns();
    const std::string& path = misses[m].path;
    const uint64_t size = misses[m].stat.size;
    // A big file's bytes are reported as they are read, its file when it is done.
    uint64_t reported = 0;
    if (progress && size >= 2 * kReportBytes)
      hasher.on_read(
          [&](uint64_t n) {
            reported += n;
            progress(0, n);
          },
          kReportBytes);
    else
      hasher.on_read({}, 0);
    const char* name = nullptr;
    int fd = dir.open_parent(path, name);
    if (name)
      hasher.hash_file(misses[m].sha256, path, fd, name);
    else
      hasher.hash_file(misses[m].sha256, path);
    ++unreported.files;
    unreported.bytes += size > reported ? size - reported : 0;
    if (unreported.files >= kReportFiles || misses[m].stat.size >= kReportBytes) unreported.flush(progress);
  };
  if (threads <= 1 || misses.size() == 1) {
    FileHasher hasher;
    DirCursor dir;
    Unreported unreported;
    for (std::size_t m = 0; m < misses.size(); ++m) hash_one(hasher, dir, unreported, m);
    unreported.flush(progress);
  } else {
    unsigned n = static_cast<unsigned>(std::min<std::size_t>(threads, misses.size()));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mu;
    std::vector<std::thread> workers;
    workers.reserve(n);
    for (unsigned t = 0; t < n; ++t) {
      workers.emplace_back([&] {
        try {
          FileHasher hasher;
          DirCursor dir;
          Unreported unreported;
          for (std::size_t m; !failed.load() && (m = next.fetch_add(1)) < misses.size();)
            hash_one(hasher, dir, unreported, m);
          if (!failed.load()) unreported.flush(progress);
        } catch (...) {
          std::lock_guard lock(error_mu);
          if (!error) error = std::current_exception();
          failed = true;
        }
      });
    }
    for (auto& w : workers) w.join();
    if (error) std::rethrow_exception(error);
  }
  files_hashed_ += misses.size();
  {
    std::lock_guard lock(mu_);
    // A directory's misses come in key order: after the first, each goes in next to the one
    // before, with no search.
    for (std::size_t m = 0; m < misses.size(); ++m) {
      HashEntry e{misses[m].stat, hashed_at[m], {}};
      std::memcpy(e.sha256.data(), misses[m].sha256, e.sha256.size());
      overlay_.insert_or_assign(overlay_.end(), std::move(misses[m].path), e);
    }
    dirty_ = true;
  }
}

}  // namespace tether::file
