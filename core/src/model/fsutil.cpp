// model/fsutil.cpp: atomic writes, whole-file reads, the ISO-8601 clock string.
#include "tether/model/fsutil.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "tether/errors.hpp"
#include "tether/model/hash.hpp"

namespace tether::model {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path, int err) {
  throw TetherError(what + " " + path.string() + ": " + std::strerror(err));
}

}  // namespace

fs::path temp_path_for(const fs::path& path) {
  return path.parent_path() / ("." + path.filename().string() + "." + new_op_id() + ".tmp");
}

void atomic_write_at(int dir_fd, const std::string& name, std::string_view text, unsigned mode, const fs::path& shown) {
  const std::string tmp = temp_path_for(name).string();
  const int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) fail("cannot write", shown, errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlinkat(dir_fd, tmp.c_str(), 0);
      fail("cannot write", shown, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    fail("cannot write", shown, err);
  }
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    fail("cannot write", shown, err);
  }
  ::fsync(dir_fd);  // best effort: some file systems refuse fsync on a directory
}

void atomic_write_file(const fs::path& path, std::string_view text, unsigned mode) {
  const fs::path dir = path.parent_path();
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) fail("cannot write", path, errno);
  try {
    atomic_write_at(dir_fd, path.filename().string(), text, mode, path);
  } catch (...) {
    ::close(dir_fd);
    throw;
  }
  ::close(dir_fd);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read", path, errno ? errno : ENOENT);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("cannot read", path, errno);
  return ss.str();
}

std::string format_iso_utc(std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const auto us = duration_cast<microseconds>(when.time_since_epoch()).count();
  auto secs = static_cast<std::time_t>(us / 1000000);
  auto micros = us % 1000000;
  if (micros < 0) {
    micros += 1000000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (micros != 0) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(micros));
    out += frac;
  }
  return out + "+00:00";
}

std::string now_iso_utc() { return format_iso_utc(std::chrono::system_clock::now()); }

std::string now_iso_utc_seconds() {
  return format_iso_utc(std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()));
}

}  // namespace tether::model
