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
// Progress reports from the hashing threads: every this many files, and after every file this big.
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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool from_hex(const std::string& hex, std::array<unsigned char, 32>& raw) {
  if (hex.size() != 64) return false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    raw[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

bool write_whole(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return false;
  bool ok = true;
  for (std::size_t done = 0; ok && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  return (::close(fd) == 0) && ok;
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

std::string CacheImage::serialize(const CacheImage* base,
                                  const std::map<std::string, HashEntry, std::less<>>& overlay) {
  struct Item {
    std::string_view key;
    HashEntry entry;
  };
  std::vector<Item> items;
  std::size_t n = base ? base->size() : 0;
  items.reserve(n + overlay.size());
  auto it = overlay.begin();
  std::size_t i = 0;
  auto last = [&] { return items.empty() ? std::string_view() : items.back().key; };
  while (i < n || it != overlay.end()) {
    if (i < n) {
      std::string_view k = base->key(i);
      if (k.empty() || (!items.empty() && k <= last())) {  // out of range or out of order
        ++i;
        continue;
      }
      if (it == overlay.end() || k < it->first) {
        items.push_back({k, base->entry(i++)});
        continue;
      }
      if (k == it->first) ++i;  // the overlay's entry is newer
    }
    items.push_back({it->first, it->second});
    ++it;
  }
  std::size_t strings = 0, kept = 0;
  for (; kept < items.size(); ++kept) {
    if (strings + items[kept].key.size() > std::numeric_limits<uint32_t>::max()) break;
    strings += items[kept].key.size();
  }
  std::string out(kHeaderSize + kept * kRecordSize + strings, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  store_at<uint32_t>(out.data() + 8, kByteOrder);
  store_at<uint32_t>(out.data() + 12, static_cast<uint32_t>(kRecordSize));
  store_at<uint64_t>(out.data() + 16, kept);
  store_at<uint64_t>(out.data() + 24, strings);
  char* rec = out.data() + kHeaderSize;
  char* str = rec + kept * kRecordSize;
  uint32_t off = 0;
  for (std::size_t k = 0; k < kept; ++k, rec += kRecordSize) {
    const Item& item = items[k];
    store_at<uint32_t>(rec, off);
    store_at<uint32_t>(rec + 4, static_cast<uint32_t>(item.key.size()));
    store_at<uint64_t>(rec + 8, item.entry.stat.size);
    store_at<int64_t>(rec + 16, item.entry.stat.mtime_ns);
    store_at<int64_t>(rec + 24, item.entry.stat.ctime_ns);
    store_at<uint64_t>(rec + 32, item.entry.stat.inode);
    store_at<int64_t>(rec + 40, item.entry.hashed_at_ns);
    std::memcpy(rec + 48, item.entry.sha256.data(), item.entry.sha256.size());
    std::memcpy(str + off, item.key.data(), item.key.size());
    off += static_cast<uint32_t>(item.key.size());
  }
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
const HashEntry* HashCache::find_locked(const std::string& path, std::size_t& cursor, HashEntry& scratch) const {
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
// The new bytes become the image at once, and the overlay is emptied.
void HashCache::save() {
  std::lock_guard save_lock(save_mu_);
  std::shared_ptr<const CacheImage> img;
  std::string dir;
  {
    std::lock_guard lock(mu_);
    if (!dirty_ || dir_.empty()) return;
    image_ = CacheImage::adopt(CacheImage::serialize(image_.get(), overlay_));
    overlay_.clear();
    dirty_ = false;
    img = image_;
    dir = dir_;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string target = join_path(dir, kCacheFileName);
  std::string tmp = join_path(dir, ".file-hashes.bin." + std::to_string(::getpid()) + ".tmp");
  bool ok = write_whole(tmp, img->bytes()) && std::rename(tmp.c_str(), target.c_str()) == 0;
  if (ok) {
    std::remove(join_path(dir, kOldCacheFileName).c_str());
  } else {
    std::remove(tmp.c_str());
    std::lock_guard lock(mu_);
    dirty_ = true;  // try again after the next fingerprint
  }
}

void HashCache::fill(std::vector<HashJob>& jobs, const FillProgress& progress) {
  std::vector<std::size_t> misses;
  {
    std::lock_guard lock(mu_);
    if (!loaded_) load_locked();
    std::size_t cursor = 0;
    HashEntry scratch;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (const HashEntry* e = find_locked(jobs[i].path, cursor, scratch)) {
        bool racy = e->hashed_at_ns - std::max(e->stat.mtime_ns, e->stat.ctime_ns) < racy_window_ns_;
        if (e->stat == jobs[i].stat && !racy) {
          jobs[i].sha256 = to_hex(e->sha256);
          continue;
        }
      }
      misses.push_back(i);
    }
  }
  if (misses.empty()) return;

  // The time is taken before each read: a write during the read then makes the entry racy.
  std::vector<int64_t> hashed_at(misses.size());
  std::atomic<uint64_t> files_done{0}, bytes_done{0};
  if (progress) progress(0, misses.size(), 0);
  auto hash_one = [&](FileHasher& hasher, DirCursor& dir, std::size_t m) {
    hashed_at[m] = wall_ns();
    const std::string& path = jobs[misses[m]].path;
    const char* name = nullptr;
    int fd = dir.open_parent(path, name);
    jobs[misses[m]].sha256 = name ? hasher.hash_file(path, fd, name) : hasher.hash_file(path);
    if (!progress) return;
    uint64_t size = jobs[misses[m]].stat.size;
    uint64_t bytes = bytes_done.fetch_add(size, std::memory_order_relaxed) + size;
    uint64_t done = files_done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (done % kReportFiles == 0 || size >= kReportBytes || done == misses.size()) progress(done, misses.size(), bytes);
  };
  if (misses.size() == 1) {
    FileHasher hasher;
    DirCursor dir;
    hash_one(hasher, dir, 0);
  } else {
    unsigned n = static_cast<unsigned>(std::min<std::size_t>(kMaxHashThreads, misses.size()));
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
          for (std::size_t m; !failed.load() && (m = next.fetch_add(1)) < misses.size();) hash_one(hasher, dir, m);
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
    for (std::size_t m = 0; m < misses.size(); ++m) {
      const HashJob& job = jobs[misses[m]];
      HashEntry e{job.stat, hashed_at[m], {}};
      if (from_hex(job.sha256, e.sha256)) overlay_.insert_or_assign(job.path, e);
    }
    dirty_ = true;
  }
  save();
}

}  // namespace tether::file
