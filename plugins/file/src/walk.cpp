#include "walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "hashing.hpp"
#include "tether/sdk/error.hpp"
#include "tether/support/utf8.hpp"

namespace tether::file {
namespace {

[[noreturn]] void fail_at(const std::string& path, int err) {
  throw sdk::BackendError("cannot read " + path + ": " + std::strerror(err));
}

FileStat to_stat(const struct stat& st) {
  FileStat s;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.inode = static_cast<uint64_t>(st.st_ino);
  return s;
}

std::string read_link(int dirfd, const char* name, const std::string& path) {
  std::string target(256, '\0');
  for (;;) {
    ssize_t n = ::readlinkat(dirfd, name, target.data(), target.size());
    if (n < 0) fail_at(path, errno);
    if (static_cast<std::size_t>(n) < target.size()) {
      target.resize(static_cast<std::size_t>(n));
      return target;
    }
    target.resize(target.size() * 2);
  }
}

struct Dir {
  DIR* d = nullptr;
  ~Dir() {
    if (d) ::closedir(d);
  }
};

}  // namespace

std::string join_path(const std::string& root, const std::string& rel) {
  if (rel.empty()) return root;
  if (!root.empty() && root.back() == '/') return root + rel;
  return root + "/" + rel;
}

namespace {

// One child of a scanned directory. Children sort by name, with '/' appended to a
// directory's: then a depth-first walk emits paths in plain byte order, because every path
// below `d` starts with "d/" and no name contains '/'.
struct Child {
  bool is_dir = false;
  std::size_t name_at = 0;  // where the name starts in entry.rel
  WalkEntry entry;          // entry.rel is the full relative path; the rest only for rows
  std::string_view name() const { return std::string_view(entry.rel).substr(name_at); }
};

bool child_less(const Child& a, const Child& b) {
  std::string_view x = a.name(), y = b.name();
  std::size_t n = std::min(x.size(), y.size());
  if (int c = std::memcmp(x.data(), y.data(), n)) return c < 0;
  // One name is a prefix of the other: what follows it is '/' for a directory, nothing
  // for a file.
  auto at = [](std::string_view s, bool dir, std::size_t i) -> int {
    if (i < s.size()) return static_cast<unsigned char>(s[i]);
    return i == s.size() && dir ? '/' : -1;
  };
  return at(x, a.is_dir, n) < at(y, b.is_dir, n);
}

// Reads and stats one directory (`rel_dir` below `root`), children sorted.
std::vector<Child> scan_directory(const std::string& root, const std::string& rel_dir) {
  std::string abs_dir = join_path(root, rel_dir);
  // Below the root, never follow a link: only real directories are descended.
  int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (rel_dir.empty() ? 0 : O_NOFOLLOW);
  int fd = ::open(abs_dir.c_str(), flags);
  if (fd < 0) fail_at(abs_dir, errno);
  Dir dir{::fdopendir(fd)};
  if (!dir.d) {
    int err = errno;
    ::close(fd);
    fail_at(abs_dir, err);
  }
  std::vector<Child> children;
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(dir.d);
    if (!e) {
      if (errno != 0) fail_at(abs_dir, errno);
      break;
    }
    const char* name = e->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    std::string rel = rel_dir.empty() ? std::string(name) : rel_dir + "/" + name;
    unsigned char type = e->d_type;
    struct stat st;
    if (type == DT_UNKNOWN) {
      if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail_at(join_path(root, rel), errno);
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
    }
    if (type != DT_DIR && type != DT_REG && type != DT_LNK) continue;  // fifo, socket, device
    if (!support::utf8::valid(name))
      throw sdk::BackendError("file name is not valid UTF-8: " + join_path(root, rel) +
                              "; rename it to fingerprint this directory");
    Child c;
    c.name_at = rel.size() - std::strlen(name);
    if (type == DT_REG) {
      if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail_at(join_path(root, rel), errno);
      // Replaced by something else between readdir and stat: take what is there now.
      if (S_ISDIR(st.st_mode)) type = DT_DIR;
      else if (!S_ISREG(st.st_mode)) continue;
    }
    if (type == DT_DIR) {
      c.is_dir = true;
      c.entry.rel = std::move(rel);
      children.push_back(std::move(c));
      continue;
    }
    if (rel_dir.empty() && std::strcmp(name, kOwnerMarker) == 0) continue;  // the root marker only
    if (type == DT_REG) {
      c.entry.is_file = true;
      c.entry.stat = to_stat(st);
    } else if (::fstatat(fd, name, &st, 0) == 0 && S_ISREG(st.st_mode)) {
      c.entry.is_file = true;  // a symlink to a regular file is read through
      c.entry.stat = to_stat(st);
    } else {
      c.entry.link_token = "symlink:" + sha256_hex(read_link(fd, name, join_path(root, rel)));
    }
    c.entry.rel = std::move(rel);
    children.push_back(std::move(c));
  }
  std::sort(children.begin(), children.end(), child_less);
  return children;
}

constexpr unsigned kMaxScanThreads = 4;
constexpr uint64_t kReportRows = 256;

}  // namespace

// Directories are scanned on a few threads (the stat calls dominate); the rows are then
// assembled depth-first, already in sorted order.
std::vector<WalkEntry> walk_directory(const std::string& root, const WalkProgress& progress) {
  std::unordered_map<std::string, std::vector<Child>> scans;
  std::vector<std::string> queue{std::string()};
  std::mutex mu;
  std::condition_variable cv;
  std::size_t busy = 0;
  std::exception_ptr error;
  uint64_t rows = 0, reported = 0;  // under mu
  auto worker = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return !queue.empty() || busy == 0 || error; });
      if (error || queue.empty()) return;
      std::string rel_dir = std::move(queue.back());
      queue.pop_back();
      ++busy;
      lock.unlock();
      std::vector<Child> children;
      std::exception_ptr failed;
      try {
        children = scan_directory(root, rel_dir);
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      --busy;
      if (failed && !error) error = failed;
      for (const Child& c : children)
        if (c.is_dir) queue.push_back(c.entry.rel);
        else ++rows;
      if (progress && rows - reported >= kReportRows) progress(reported = rows);
      scans.emplace(std::move(rel_dir), std::move(children));
      cv.notify_all();
    }
  };
  // The first directory alone: a small tree needs no threads.
  {
    std::vector<Child> top = scan_directory(root, std::string());
    queue.clear();
    for (const Child& c : top)
      if (c.is_dir) queue.push_back(c.entry.rel);
      else ++rows;
    scans.emplace(std::string(), std::move(top));
  }
  if (!queue.empty()) {
    unsigned n = std::max(1u, std::min(kMaxScanThreads, std::thread::hardware_concurrency()));
    if (queue.size() == 1) n = 1;
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; ++i) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
  }

  std::vector<WalkEntry> out;
  struct Frame {
    std::vector<Child>* children;
    std::size_t next;
  };
  std::vector<Frame> stack{{&scans[std::string()], 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.children->size()) {
      stack.pop_back();
      continue;
    }
    Child& c = (*f.children)[f.next++];
    if (c.is_dir) stack.push_back({&scans[c.entry.rel], 0});
    else out.push_back(std::move(c.entry));
  }
  return out;
}

}  // namespace tether::file
