#include "walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hashing.hpp"
#include "json_ascii.hpp"
#include "tether/sdk/error.hpp"

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

std::vector<WalkEntry> walk_directory(const std::string& root) {
  std::vector<WalkEntry> out;
  std::vector<std::string> stack{std::string()};
  while (!stack.empty()) {
    std::string rel_dir = std::move(stack.back());
    stack.pop_back();
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
      if (!valid_utf8(name))
        throw sdk::BackendError("file name is not valid UTF-8: " + join_path(root, rel) +
                                "; rename it to fingerprint this directory");
      if (type == DT_DIR) {
        stack.push_back(std::move(rel));
        continue;
      }
      if (rel_dir.empty() && std::strcmp(name, kOwnerMarker) == 0) continue;
      WalkEntry w;
      if (type == DT_REG) {
        if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail_at(join_path(root, rel), errno);
        // Replaced by something else between readdir and stat: take what is there now.
        if (S_ISDIR(st.st_mode)) {
          stack.push_back(std::move(rel));
          continue;
        }
        if (!S_ISREG(st.st_mode)) continue;
        w.is_file = true;
        w.stat = to_stat(st);
      } else if (::fstatat(fd, name, &st, 0) == 0 && S_ISREG(st.st_mode)) {
        w.is_file = true;  // a symlink to a regular file is read through
        w.stat = to_stat(st);
      } else {
        w.link_token = "symlink:" + sha256_hex(read_link(fd, name, join_path(root, rel)));
      }
      w.rel = std::move(rel);
      out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace tether::file
