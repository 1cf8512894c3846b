// model/checkout.cpp: opening a checkout's own files without following symlinks (see
// tether/model/checkout.hpp for the rule and why).
#include "tether/model/checkout.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"

namespace tether::model {
namespace fs = std::filesystem;

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

CheckoutPath tether_path(const fs::path& root, const fs::path& rel) {
  return {root, rel.empty() ? fs::path(".tether") : fs::path(".tether") / rel};
}

namespace {

[[noreturn]] void fail(const std::string& what, const CheckoutPath& p, int err) {
  throw TetherError(what + " " + p.full().string() + ": " + std::strerror(err));
}

std::string link_target(int dir_fd, const std::string& name) {
  char buf[4096];
  const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf, sizeof buf - 1);
  return n < 0 ? std::string("?") : std::string(buf, static_cast<std::size_t>(n));
}

// The refusal: one line naming the entry and the way out.
[[noreturn]] void refuse_link(const std::string& rel, const std::string& target) {
  throw ConfigError(rel + " is a symlink (to " + target +
                    "); tether.toml and .tether/ must be real files and directories inside the dataset, never "
                    "symlinks: remove the symlink from the repository");
}

[[noreturn]] void refuse_type(const std::string& rel, bool want_dir) {
  throw ConfigError(rel + " is not a " + (want_dir ? "directory" : "regular file") +
                    "; tether.toml and .tether/ must be real files and directories inside the dataset: remove it "
                    "from the repository");
}

// Why openat() of `name` in `dir_fd` failed with ELOOP/ENOTDIR/EISDIR...: a symlink or the
// wrong type. Throws.
[[noreturn]] void refuse_entry(int dir_fd, const std::string& name, const std::string& rel, bool want_dir) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
    refuse_link(rel, link_target(dir_fd, name));
  refuse_type(rel, want_dir);
}

// The components of a relative path; `..`, absolute paths and empty names are refused (they
// are programming errors: every caller builds its path from fixed names and validated keys).
std::vector<std::string> components(const CheckoutPath& p) {
  std::vector<std::string> out;
  if (p.rel.is_absolute()) throw TetherError("internal error: checkout path " + p.rel.string() + " is absolute");
  for (const auto& c : p.rel) {
    std::string s = c.string();
    if (s.empty() || s == ".") continue;
    if (s == "..") throw TetherError("internal error: checkout path " + p.rel.string() + " leaves the dataset");
    out.push_back(std::move(s));
  }
  return out;
}

Fd open_root(const CheckoutPath& p) {
  const int fd = ::open(p.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Fd();
    fail("cannot open", CheckoutPath{p.root, {}}, errno);
  }
  return Fd(fd);
}

// The directory holding `p` and p's last component; empty Fd when the directory is absent.
std::pair<Fd, std::string> open_parent(const CheckoutPath& p, bool create) {
  auto parts = components(p);
  if (parts.empty()) throw TetherError("internal error: empty checkout path under " + p.root.string());
  std::string name = parts.back();
  fs::path dir_rel;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) dir_rel /= parts[i];
  return {open_checkout_dir({p.root, dir_rel}, create), name};
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void walk(int dir_fd, const fs::path& rel_in_p, const CheckoutPath& p, std::string_view suffix, bool recursive,
          std::vector<fs::path>& out) {
  const int dup_fd = ::dup(dir_fd);
  if (dup_fd < 0) fail("cannot list", p / rel_in_p, errno);
  DIR* d = ::fdopendir(dup_fd);
  if (!d) {
    const int err = errno;
    ::close(dup_fd);
    fail("cannot list", p / rel_in_p, err);
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  for (const auto& n : names) {
    struct stat st {};
    if (::fstatat(dir_fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    const fs::path rel = rel_in_p / n;
    if (S_ISLNK(st.st_mode)) refuse_link((p / rel).name(), link_target(dir_fd, n));
    if (S_ISDIR(st.st_mode)) {
      if (!recursive) continue;
      Fd sub(::openat(dir_fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub) refuse_entry(dir_fd, n, (p / rel).name(), true);
      walk(sub.get(), rel, p, suffix, recursive, out);
    } else if (S_ISREG(st.st_mode) && ends_with(n, suffix)) {
      out.push_back(rel);
    }
  }
}

}  // namespace

Fd open_checkout_dir(const CheckoutPath& p, bool create) {
  Fd dir = open_root(p);
  if (!dir) {
    if (!create) return Fd();
    std::error_code ec;
    fs::create_directories(p.root, ec);  // the root itself is the user's choice
    dir = open_root(p);
    if (!dir) fail("cannot create", CheckoutPath{p.root, {}}, ENOENT);
  }
  fs::path done;
  for (const auto& c : components(p)) {
    done /= c;
    int fd = ::openat(dir.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(dir.get(), c.c_str(), 0755) != 0 && errno != EEXIST) fail("cannot create", {p.root, done}, errno);
      fd = ::openat(dir.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) return Fd();
      if (err == ELOOP || err == ENOTDIR) refuse_entry(dir.get(), c, done.generic_string(), true);
      fail("cannot open", {p.root, done}, err);
    }
    dir = Fd(fd);
  }
  return dir;
}

Fd open_checkout_file(const CheckoutPath& p, int flags, unsigned mode) {
  auto [dir, name] = open_parent(p, (flags & O_CREAT) != 0);
  if (!dir) return Fd();
  // O_NONBLOCK: opening a FIFO must not hang; it is refused below like any non-file.
  const int fd = ::openat(dir.get(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, static_cast<mode_t>(mode));
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Fd();
    if (err == ELOOP || err == EISDIR || err == ENXIO) refuse_entry(dir.get(), name, p.name(), false);
    fail("cannot open", p, err);
  }
  Fd out(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("cannot open", p, errno);
  if (!S_ISREG(st.st_mode)) refuse_type(p.name(), false);
  // Back to blocking I/O for the caller (a no-op for regular files, but keep the flags honest).
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return out;
}

std::optional<std::string> read_checkout_file(const CheckoutPath& p, unsigned* mode) {
  Fd fd = open_checkout_file(p, O_RDONLY);
  if (!fd) return std::nullopt;
  if (mode) {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) fail("cannot read", p, errno);
    *mode = st.st_mode & 07777;
  }
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot read", p, errno);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

void write_checkout_file(const CheckoutPath& p, std::string_view text, unsigned mode) {
  auto [dir, name] = open_parent(p, true);
  atomic_write_at(dir.get(), name, text, mode, p.full());
}

bool create_checkout_file(const CheckoutPath& p, std::string_view text, unsigned mode) {
  auto [dir, name] = open_parent(p, false);
  if (!dir) fail("cannot write", p, ENOENT);
  const std::string tmp = temp_path_for(name).string();
  atomic_write_at(dir.get(), tmp, text, mode, p.full());
  const int rc = ::linkat(dir.get(), tmp.c_str(), dir.get(), name.c_str(), 0);
  const int err = errno;
  ::unlinkat(dir.get(), tmp.c_str(), 0);
  if (rc == 0) return true;
  if (err == EEXIST) return false;
  fail("cannot write", p, err);
}

bool remove_checkout_file(const CheckoutPath& p) {
  auto [dir, name] = open_parent(p, false);
  if (!dir) return false;
  if (::unlinkat(dir.get(), name.c_str(), 0) == 0) return true;
  if (errno == ENOENT) return false;
  fail("cannot remove", p, errno);
}

void remove_empty_checkout_dirs(const CheckoutPath& p, const fs::path& stop) {
  const fs::path stop_norm = stop.lexically_normal();
  for (CheckoutPath d = p; !d.rel.empty() && d.rel.lexically_normal() != stop_norm && d.rel.has_filename();
       d = d.parent()) {
    try {
      auto [dir, name] = open_parent(d, false);
      if (!dir || ::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) != 0) return;
    } catch (const TetherError&) {
      return;
    }
  }
}

bool checkout_entry_exists(const CheckoutPath& p) {
  auto [dir, name] = open_parent(p, false);
  if (!dir) return false;
  struct stat st {};
  return ::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

std::vector<fs::path> list_checkout_files(const CheckoutPath& p, std::string_view suffix, bool recursive) {
  std::vector<fs::path> out;
  Fd dir = open_checkout_dir(p, false);
  if (!dir) return out;
  walk(dir.get(), {}, p, suffix, recursive, out);
  std::sort(out.begin(), out.end());
  return out;
}

void check_checkout(const fs::path& root, bool require_config) {
  Fd root_fd = open_root({root, {}});
  if (!root_fd) return;
  struct stat st {};
  if (::fstatat(root_fd.get(), "tether.toml", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) refuse_link("tether.toml", link_target(root_fd.get(), "tether.toml"));
    if (!S_ISREG(st.st_mode)) refuse_type("tether.toml", false);
  } else if (require_config) {
    return;  // the caller found no dataset here; its own message says so
  }
  Fd tether = open_checkout_dir(tether_path(root), false);
  if (!tether) return;
  // The names tether keeps in .tether, and whether each is a directory.
  static const std::pair<const char*, bool> kEntries[] = {
      {"objects", true},         {"listings", true},  {"cache", true},     {"lock", false},
      {"secrets.toml", false},   {"workspace.toml", false}, {"ops.jsonl", false}, {".gitignore", false}};
  for (const auto& [name, is_dir] : kEntries) {
    if (::fstatat(tether.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const std::string rel = std::string(".tether/") + name;
    if (S_ISLNK(st.st_mode)) refuse_link(rel, link_target(tether.get(), name));
    if (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) refuse_type(rel, is_dir);
  }
}

}  // namespace tether::model
