#include "walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>

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

// Children sort by name, with '/' appended to a directory's: then a depth-first walk emits
// paths in plain byte order, because every path below `d` starts with "d/" and no name
// contains '/'.
struct ChildLess {
  const std::string* names;
  bool operator()(const WalkChild& a, const WalkChild& b) const {
    std::string_view x(names->data() + a.name_at, a.name_len), y(names->data() + b.name_at, b.name_len);
    std::size_t n = std::min(x.size(), y.size());
    if (int c = std::memcmp(x.data(), y.data(), n)) return c < 0;
    // One name is a prefix of the other: what follows it is '/' for a directory, nothing
    // for a file.
    auto at = [](std::string_view s, bool dir, std::size_t i) -> int {
      if (i < s.size()) return static_cast<unsigned char>(s[i]);
      return i == s.size() && dir ? '/' : -1;
    };
    return at(x, a.kind == WalkChild::kDir, n) < at(y, b.kind == WalkChild::kDir, n);
  }
};

// Reads and stats one directory (`rel_dir` below `root`), children sorted; `files` and
// `links` count its rows.
WalkNode scan_directory(const std::string& root, const std::string& rel_dir, std::size_t& files, std::size_t& links) {
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
  auto where = [&](const char* name) { return join_path(abs_dir, name); };  // errors only
  WalkNode node;
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(dir.d);
    if (!e) {
      if (errno != 0) fail_at(abs_dir, errno);
      break;
    }
    const char* name = e->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    unsigned char type = e->d_type;
    struct stat st;
    if (type == DT_UNKNOWN) {
      if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail_at(where(name), errno);
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
    }
    if (type != DT_DIR && type != DT_REG && type != DT_LNK) continue;  // fifo, socket, device
    if (!support::utf8::valid(name))
      throw sdk::BackendError("file name is not valid UTF-8: " + where(name) +
                              "; rename it to fingerprint this directory");
    if (type == DT_REG) {
      if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail_at(where(name), errno);
      // Replaced by something else between readdir and stat: take what is there now.
      if (S_ISDIR(st.st_mode)) type = DT_DIR;
      else if (!S_ISREG(st.st_mode)) continue;
    }
    if (rel_dir.empty() && type != DT_DIR && std::strcmp(name, kOwnerMarker) == 0) continue;  // the root marker only
    WalkChild c;
    std::size_t len = std::strlen(name);
    c.name_at = static_cast<uint32_t>(node.names.size());
    c.name_len = static_cast<uint32_t>(len);
    if (type == DT_DIR) {
      c.kind = WalkChild::kDir;
    } else if (type == DT_REG) {
      c.stat = to_stat(st);
    } else if (::fstatat(fd, name, &st, 0) == 0 && S_ISREG(st.st_mode)) {
      c.stat = to_stat(st);  // a symlink to a regular file is read through
    } else {
      c.kind = WalkChild::kLink;
      sha256_raw(read_link(fd, name, where(name)), c.sha256.data());
    }
    if (node.names.size() + len > UINT32_MAX) throw sdk::BackendError("too many names in " + abs_dir);
    node.names.append(name, len);
    if (c.kind == WalkChild::kFile) ++files;
    if (c.kind == WalkChild::kLink) ++links;
    node.children.push_back(c);
  }
  std::sort(node.children.begin(), node.children.end(), ChildLess{&node.names});
  return node;
}

constexpr unsigned kMaxScanThreads = 4;

}  // namespace

// Directories are scanned on a few threads (the stat calls, and the hook's reads, dominate);
// each becomes one node.
WalkTree walk_directory(const std::string& root, const WalkHook& hook) {
  WalkTree tree;
  struct Pending {
    std::string rel_dir;
    uint32_t node;
  };
  std::vector<Pending> queue;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<std::size_t> busy{0};  // directories being scanned; changed under `mu`
  // Read without the lock: a stale answer only costs a thread too many or too few.
  std::atomic<std::size_t> queued{0};  // queue.size(), changed under `mu`
  auto alone = [&] { return queued.load() == 0 && busy.load() == 1; };
  std::exception_ptr error;
  // Under `mu`: stores a scanned node and queues its subdirectories as new nodes.
  auto adopt = [&](const std::string& rel_dir, uint32_t id, WalkNode node) {
    WalkNode& slot = tree.nodes[id];
    slot = std::move(node);
    for (WalkChild& c : slot.children) {
      if (c.kind != WalkChild::kDir) continue;
      if (tree.nodes.size() >= UINT32_MAX) throw sdk::BackendError("too many directories under " + root);
      c.node = static_cast<uint32_t>(tree.nodes.size());
      tree.nodes.emplace_back();
      std::string sub = rel_dir;
      if (!sub.empty()) sub += '/';
      sub += slot.name(c);
      queue.push_back({std::move(sub), c.node});
    }
    queued = queue.size();
  };
  auto worker = [&] {
    std::size_t files = 0, links = 0;
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return !queue.empty() || busy == 0 || error; });
      if (error || queue.empty()) break;
      Pending job = std::move(queue.back());
      queue.pop_back();
      queued = queue.size();
      ++busy;
      lock.unlock();
      WalkNode node;
      std::exception_ptr failed;
      try {
        node = scan_directory(root, job.rel_dir, files, links);
        if (hook) hook(job.rel_dir, node, alone());
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      --busy;
      if (failed && !error) error = failed;
      if (!failed) {
        try {
          adopt(job.rel_dir, job.node, std::move(node));
        } catch (...) {
          if (!error) error = std::current_exception();
        }
      }
      cv.notify_all();
    }
    tree.files += files;
    tree.links += links;
  };
  // The first directory alone: a small tree needs no threads.
  tree.nodes.emplace_back();
  WalkNode top = scan_directory(root, std::string(), tree.files, tree.links);
  if (hook) hook(std::string(), top, true);
  adopt(std::string(), 0, std::move(top));
  if (!queue.empty()) {
    unsigned n = std::max(1u, std::min(kMaxScanThreads, std::thread::hardware_concurrency()));
    if (queue.size() == 1) n = 1;
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; ++i) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
  }
  return tree;
}

}  // namespace tether::file
