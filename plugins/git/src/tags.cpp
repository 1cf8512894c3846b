#include "tags.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>

namespace tether::git {
namespace {

constexpr std::string_view kTagsPrefix = "refs/tags/";
// Longer names and components, and deeper or bigger refs/tags trees, are left to libgit2:
// far from any limit of the kernel's (a component over NAME_MAX, a path over PATH_MAX
// makes the loose lookup fail with its own answer), and from anything tether writes.
constexpr std::size_t kMaxName = 512;
constexpr std::size_t kMaxComponent = 128;
constexpr std::size_t kMaxCommonDir = 2048;
constexpr int kMaxDepth = 16;
// What a snapshot may cost, in proportion to the pins of the call it serves (a lookup is a
// few microseconds; parsing a packed-refs line, a fifth of one): a packed-refs file not parsed
// yet of up to 1 KiB per pin (at least 1 MiB), a loose tree of up to one entry per pin (at
// least 256). Bigger ones leave the call to the per-pin lookups, as before.
constexpr std::size_t kPackedBytesPerPin = 1024;
constexpr std::size_t kMinPackedBytes = std::size_t{1} << 20;
constexpr std::size_t kMinLooseEntries = 256;

// Lower-case hex digits' values, -1 for every other byte (a table: every packed ref's id is
// decoded when the file is parsed).
constexpr auto kNibble = [] {
  std::array<signed char, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  return t;
}();

int nibble(char c) { return kNibble[static_cast<unsigned char>(c)]; }

// 40 lower-case hex digits at `p`, into `oid` when given.
bool hex40(const char* p, git_oid* oid = nullptr) {
  unsigned char raw[GIT_OID_RAWSZ];
  for (int i = 0; i < GIT_OID_RAWSZ; ++i) {
    int hi = nibble(p[2 * i]), lo = nibble(p[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    raw[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  if (oid) git_oid_fromraw(oid, raw);
  return true;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

PackedRefs::Stamp stamp_of(const struct stat& st) {
  PackedRefs::Stamp s;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = st.st_size;
  s.mtime_sec = st.st_mtim.tv_sec;
  s.mtime_nsec = st.st_mtim.tv_nsec;
  s.ctime_sec = st.st_ctim.tv_sec;
  s.ctime_nsec = st.st_ctim.tv_nsec;
  return s;
}

// Adds every entry that is not a directory under the directory open at `fd` (whose name,
// lower-cased and ending in '/', is `prefix`) to `out`, lower-cased, and descends into the
// directories; takes `fd`. False when a stat through the tree could answer other than
// "there" or "not there" (a directory without search permission) or the tree cannot be read.
bool scan_loose(int fd, std::string& prefix, int depth, std::unordered_set<std::string>& out, std::size_t& budget) {
  struct stat st;
  // Resolving "." needs search permission on the directory, as every stat through it does.
  if (fstatat(fd, ".", &st, 0) != 0) {
    close(fd);
    return false;
  }
  DIR* dir = fdopendir(fd);
  if (!dir) {
    close(fd);
    return false;
  }
  bool ok = true;
  errno = 0;
  while (dirent* e = readdir(dir)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") {
      errno = 0;
      continue;
    }
    if (budget == 0) {
      ok = false;
      break;
    }
    --budget;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        ok = false;
        break;
      }
      type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (type == DT_DIR) {
      int sub = depth < kMaxDepth ? openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
      if (sub < 0) {
        ok = false;
        break;
      }
      std::size_t len = prefix.size();
      prefix += lowered(name);
      prefix += '/';
      ok = scan_loose(sub, prefix, depth + 1, out, budget);
      prefix.resize(len);
      if (!ok) break;
    } else {
      out.insert(prefix + lowered(name));  // a file, a symlink, anything a lookup would open
    }
    errno = 0;
  }
  if (ok && errno != 0) ok = false;  // readdir failed
  closedir(dir);
  return ok;
}

}  // namespace

bool parse_packed_refs(std::string_view text, std::unordered_map<std::string_view, git_oid>& out) {
  out.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  auto fail = [&] {
    out.clear();
    return false;
  };
  auto line_end = [&](const char* from) -> const char* {
    for (const char* q = from; q != end; ++q) {
      if (*q == '\n') return q;
      if (*q == '\0') return nullptr;
    }
    return nullptr;
  };
  while (p != end && *p == '#') {
    const char* eol = line_end(p);
    if (!eol) return fail();
    p = eol + 1;
  }
  std::string_view previous;
  out.reserve(static_cast<std::size_t>(end - p) / 64);  // a tether pin's record is 90 bytes
  git_oid oid;
  while (p != end) {
    if (end - p < GIT_OID_HEXSZ + 3 || !hex40(p, &oid) || p[GIT_OID_HEXSZ] != ' ') return fail();
    const char* name = p + GIT_OID_HEXSZ + 1;
    const char* eol = name;
    while (eol != end && *eol > 0x20 && *eol < 0x7f) ++eol;
    if (eol == name || eol == end || *eol != '\n') return fail();
    std::string_view n(name, static_cast<std::size_t>(eol - name));
    if (!previous.empty() && !(previous < n)) return fail();
    out.emplace(n, oid);
    previous = n;
    p = eol + 1;
    if (p != end && *p == '^') {
      if (end - p < GIT_OID_HEXSZ + 2 || !hex40(p + 1) || p[GIT_OID_HEXSZ + 1] != '\n') return fail();
      p += GIT_OID_HEXSZ + 2;
    }
  }
  return true;
}

std::shared_ptr<const PackedRefs> PackedRefsCache::get(const std::string& path, std::size_t max_bytes) {
  // Held while a file is read and parsed: verify_many's first calls arrive on every thread
  // at once, and one parse of a file serves them all.
  std::lock_guard lock(mutex_);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return nullptr;
  if (auto it = files_.find(path); it != files_.end() && it->second->stamp == stamp_of(st))
    return it->second->strict ? it->second : nullptr;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  auto file = std::make_shared<PackedRefs>();
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) <= max_bytes;
  if (ok) {
    file->stamp = stamp_of(st);
    file->text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < file->text.size()) {
      ssize_t n = read(fd, file->text.data() + got, file->text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ok = got == file->text.size();
  }
  close(fd);
  if (!ok) return nullptr;
  // Not strict: remembered as such until the file changes.
  file->strict = parse_packed_refs(file->text, file->refs);
  files_[path] = file;
  return file->strict ? file : nullptr;
}

std::optional<TagSnapshot> TagSnapshot::read(git_repository* repo, PackedRefsCache& cache, std::size_t pins) {
  if (const char* ns = git_repository_get_namespace(repo); ns && *ns) return std::nullopt;
  const char* dir = git_repository_commondir(repo);
  std::string common = dir ? dir : "";
  if (common.empty() || common.size() > kMaxCommonDir) return std::nullopt;
  if (common.back() != '/') common += '/';
  TagSnapshot s;
  s.packed_ = cache.get(common + "packed-refs", std::max(kMinPackedBytes, pins * kPackedBytesPerPin));
  if (!s.packed_) return std::nullopt;
  int fd = open((common + std::string(kTagsPrefix)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    // No refs/tags (or a file in its place): every loose lookup under it is "not found".
    if (errno == ENOENT || errno == ENOTDIR) return s;
    return std::nullopt;
  }
  std::string prefix(kTagsPrefix);
  std::size_t budget = std::max(kMinLooseEntries, pins);
  if (!scan_loose(fd, prefix, 0, s.loose_, budget)) return std::nullopt;
  return s;
}

bool plain_tag_name(const std::string& name) {
  if (name.size() > kMaxName || name.compare(0, kTagsPrefix.size(), kTagsPrefix) != 0) return false;
  std::size_t component = 0;
  char previous = '/';
  for (std::size_t i = kTagsPrefix.size(); i < name.size(); ++i) {
    char c = name[i];
    if (c == '/') {
      if (component == 0 || previous == '.' ||
          (component >= 5 && name.compare(i - 5, 5, ".lock") == 0))
        return false;
      component = 0;
    } else {
      bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                   c == '.';
      if (!plain || (c == '.' && (component == 0 || previous == '.')) || ++component > kMaxComponent) return false;
    }
    previous = c;
  }
  if (component == 0 || previous == '.' || (component >= 5 && name.compare(name.size() - 5, 5, ".lock") == 0))
    return false;
  return true;
}

const git_oid* TagSnapshot::packed_target(const std::string& name) const {
  if (!plain_tag_name(name)) return nullptr;
  if (!loose_.empty()) {
    // A loose ref at the name, or a non-directory at one of its parents: the lookup opens
    // the path, so leave it to libgit2. Compared without case for case-insensitive disks.
    std::string low = lowered(name);
    if (loose_.count(low)) return nullptr;
    for (std::size_t i = kTagsPrefix.size(); i < low.size(); ++i)
      if (low[i] == '/' && loose_.count(low.substr(0, i))) return nullptr;
  }
  auto it = packed_->refs.find(name);
  return it == packed_->refs.end() ? nullptr : &it->second;
}

}  // namespace tether::git
