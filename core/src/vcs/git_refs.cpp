// git_refs.cpp: the native layout and ref reader (see git_refs.hpp). Mirrors libgit2 1.5.1's
// src/libgit2/repository.c (find_repo, is_valid_repository_path, read_gitfile, load_workdir,
// validate_ownership), refdb_fs.c (loose and packed refs) and worktree.c (git_worktree_list),
// and declines wherever it would have to guess.
#include "vcs/git_refs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

namespace tether::vcs::refs {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kRefFileLimit = 4096;           // a loose ref or HEAD
constexpr std::size_t kPackedRefsLimit = 64u << 20;   // packed-refs
constexpr std::size_t kConfigLimit = 1u << 20;        // one config file
constexpr std::size_t kSmallLimit = 64u << 10;        // gitfile, commondir, gitdir, shallow, ...
constexpr std::size_t kMaxLooseRefs = 100000;
constexpr int kMaxRefDepth = 32;                      // directories under refs/
constexpr int kMaxSymbolicDepth = 5;                  // libgit2's MAX_NESTING_LEVEL

struct CloseDir {
  void operator()(DIR* d) const { ::closedir(d); }
};

bool is_hex40(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// The path as a string without trailing slashes (keeps "/").
std::string no_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string dirname_of(const std::string& p) {
  std::string s = no_slash(p);
  auto slash = s.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return s.substr(0, slash);
}

std::optional<std::string> real_path(const std::string& p) {
  std::unique_ptr<char, decltype(&std::free)> r(::realpath(p.c_str(), nullptr), &std::free);
  if (!r) return std::nullopt;
  return std::string(r.get());
}

bool is_regular(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// libgit2 validates ownership of the workdir, the `.git` file and the gitdir (lstat): only
// the current user's answers natively; anything else is libgit2's to accept or refuse.
bool owned_by_me(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && st.st_uid == ::geteuid();
}

// Reads a config file and says whether it is plain; an absent file is plain.
bool config_file_plain(const std::string& path) {
  std::string text;
  switch (read_small_file(path, kConfigLimit, text)) {
    case ReadStatus::absent: return true;
    case ReadStatus::declined: return false;
    case ReadStatus::ok: return config_is_plain(text);
  }
  return false;
}

// The global configuration files libgit2 loads besides the repository's (sysdir.c): any of
// them could set core.bare or core.worktree for every repository, or include others.
bool global_configs_plain() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return false;
  std::string xdg;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x != nullptr && *x != '\0') xdg = std::string(x) + "/git/config";
  else xdg = std::string(home) + "/.config/git/config";
  return config_file_plain(std::string(home) + "/.gitconfig") && config_file_plain(xdg) &&
         config_file_plain("/etc/gitconfig");
}

// is_valid_repository_path: HEAD a file in `dir`, objects/ and refs/ directories in its
// commondir. Sets `common` (canonical). False = not a repository; nullopt = declined.
std::optional<bool> valid_repository(const std::string& dir, std::string& common) {
  const std::string commondir_file = dir + "/commondir";
  if (is_regular(commondir_file)) {
    std::string text;
    if (read_small_file(commondir_file, kSmallLimit, text) != ReadStatus::ok) return std::nullopt;
    std::string link(rtrim(text));
    if (link.empty() || link.find('\0') != std::string::npos) return std::nullopt;
    std::string joined = link[0] == '/' ? link : dir + "/" + link;
    auto real = real_path(joined);
    if (!real) return std::nullopt;  // libgit2 fails to prettify: its error
    common = *real;
  } else {
    common = dir;
  }
  if (!is_regular(dir + "/HEAD")) return false;
  if (!is_dir(common + "/objects") || !is_dir(common + "/refs")) return false;
  return true;
}

// Reads a ref or HEAD file. nullopt = declined; an absent file gives an empty RefValue.
std::optional<RefValue> read_ref(const std::string& path, bool& absent) {
  std::string text;
  absent = false;
  switch (read_small_file(path, kRefFileLimit, text)) {
    case ReadStatus::absent: absent = true; return RefValue{};
    case ReadStatus::declined: return std::nullopt;
    case ReadStatus::ok: return parse_ref_file(text);
  }
  return std::nullopt;
}

// Loose refs under `dir` (= <commondir>/refs/<prefix>), recursively; false = declined.
bool load_loose(const std::string& dir, const std::string& prefix, int depth, std::map<std::string, RefValue>& out) {
  if (depth > kMaxRefDepth) return false;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT && depth == 0;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return false;
  }
  std::unique_ptr<DIR, CloseDir> guard(d);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(std::move(n));
  }
  for (const auto& n : names) {
    struct stat st;
    if (::fstatat(::dirfd(d), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
    const std::string name = prefix + n;
    if (S_ISDIR(st.st_mode)) {
      if (!plausible_ref_name(name)) return false;
      if (!load_loose(dir + "/" + n, name + "/", depth + 1, out)) return false;
      continue;
    }
    if (!S_ISREG(st.st_mode)) return false;  // a symlink, a fifo: libgit2's to judge
    if (name.ends_with(".lock")) continue;   // libgit2's iterator skips lock files
    if (!plausible_ref_name(name) || out.size() >= kMaxLooseRefs) return false;
    bool absent = false;
    auto v = read_ref(dir + "/" + n, absent);
    if (!v) return false;
    if (absent) continue;  // removed while we listed: gone
    if (v->symbolic() && !v->target.starts_with("refs/")) return false;
    out[name] = *v;
  }
  return true;
}

void append_field(std::string& key, std::string_view label, std::string_view value) {
  key += label;
  key += ' ';
  key += std::to_string(value.size());
  key += ':';
  key += value;
  key += '\n';
}

void append_ref(std::string& key, std::string_view label, const RefValue& v) {
  append_field(key, label, v.symbolic() ? "ref: " + v.target : v.oid + (v.peeled.empty() ? "" : " ^" + v.peeled));
}

}  // namespace

bool plausible_ref_name(std::string_view name) {
  if (name.empty() || name.size() > 1024 || name.front() == '/' || name.back() == '/' || name.back() == '.') return false;
  for (unsigned char c : name)
    if (c <= 0x20 || c >= 0x7f || c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\')
      return false;
  if (name.find("..") != std::string_view::npos || name.find("@{") != std::string_view::npos ||
      name.find("//") != std::string_view::npos || name == "@")
    return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part.front() == '.' || part.ends_with(".lock")) return false;
    start = end + 1;
  }
  return true;
}

std::optional<RefValue> parse_ref_file(std::string_view bytes) {
  if (bytes.empty() || bytes.back() != '\n') return std::nullopt;
  std::string_view body = bytes.substr(0, bytes.size() - 1);
  RefValue v;
  if (body.starts_with("ref: ")) {
    std::string_view target = body.substr(5);
    if (!target.starts_with("refs/") || !plausible_ref_name(target)) return std::nullopt;
    v.target = std::string(target);
    return v;
  }
  if (!is_hex40(body)) return std::nullopt;
  v.oid = std::string(body);
  return v;
}

std::optional<std::map<std::string, RefValue>> parse_packed_refs(std::string_view bytes) {
  std::map<std::string, RefValue> out;
  std::size_t pos = 0;
  bool first = true;
  std::string last;
  while (pos < bytes.size()) {
    std::size_t eol = bytes.find('\n', pos);
    if (eol == std::string_view::npos) return std::nullopt;  // libgit2: corrupt (or a torn write)
    std::string_view line = bytes.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.find('\0') != std::string_view::npos || line.find('\r') != std::string_view::npos) return std::nullopt;
    if (first && line.starts_with("# pack-refs with:")) {
      first = false;
      continue;
    }
    first = false;
    if (line.starts_with("^")) {
      if (last.empty() || !is_hex40(line.substr(1))) return std::nullopt;
      RefValue& prev = out[last];
      if (!prev.peeled.empty()) return std::nullopt;
      prev.peeled = std::string(line.substr(1));
      continue;
    }
    if (line.size() < 42 || line[40] != ' ' || !is_hex40(line.substr(0, 40))) return std::nullopt;
    std::string name(line.substr(41));
    if (!name.starts_with("refs/") || !plausible_ref_name(name) || out.contains(name)) return std::nullopt;
    out[name].oid = std::string(line.substr(0, 40));
    last = std::move(name);
  }
  return out;
}

namespace {

bool key_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// A section header line "[name]", "[name.sub]" or "[name \"sub\"]" (plus an optional comment);
// sets `section` to the lower-case name, with " sub" when it has a subsection. False on
// anything else (libgit2 may call it an error, or read it otherwise): decline.
bool section_header(std::string_view line, std::string& section) {
  std::size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view rest = line.substr(close + 1);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (!rest.empty() && rest.front() != '#' && rest.front() != ';') return false;  // "[core] bare = true"
  std::string_view header = line.substr(1, close - 1);
  std::size_t cut = header.find_first_of(" \t\".");
  std::string name = lower(header.substr(0, cut));
  if (name.empty() || !std::all_of(name.begin(), name.end(), key_char)) return false;
  if (name == "include" || name == "includeif" || name == "extensions") return false;
  if (cut == std::string_view::npos) {
    section = name;
    return true;
  }
  std::string_view sub = header.substr(cut);
  if (sub.front() == '.') {
    sub.remove_prefix(1);
    if (sub.empty() || !std::all_of(sub.begin(), sub.end(), [](char c) { return key_char(c) || c == '.' || (c >= 'A' && c <= 'Z'); }))
      return false;
  } else {
    while (!sub.empty() && (sub.front() == ' ' || sub.front() == '\t')) sub.remove_prefix(1);
    // "\"<anything but quote and backslash>\"", nothing after it.
    if (sub.size() < 2 || sub.front() != '"' || sub.back() != '"') return false;
    sub = sub.substr(1, sub.size() - 2);
    if (sub.find_first_of("\"\\") != std::string_view::npos) return false;
  }
  section = name + " sub";
  return true;
}

}  // namespace

bool config_is_plain(std::string_view bytes) {
  if (bytes.size() > kConfigLimit || bytes.find('\0') != std::string_view::npos) return false;
  std::string section;  // lower case; "" before any header; "<name> sub" with a subsection
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t eol = bytes.find('\n', pos);
    if (eol == std::string_view::npos) eol = bytes.size();
    std::string_view line = bytes.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.find('\r') != std::string_view::npos) return false;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    // A continued line would make the next one part of this value, not a header or key of
    // its own: not read here. (Quotes cannot span lines, so they hide nothing else.)
    if (line.back() == '\\') return false;
    if (line.front() == '[') {
      if (!section_header(line, section)) return false;
      continue;
    }
    if (section.empty()) return false;  // a key before any section: git refuses the file
    std::size_t eq = line.find('=');
    std::string_view raw_key = line.substr(0, eq);
    while (!raw_key.empty() && (raw_key.back() == ' ' || raw_key.back() == '\t')) raw_key.remove_suffix(1);
    std::string key = lower(raw_key);
    if (key.empty() || !(key[0] >= 'a' && key[0] <= 'z') || !std::all_of(key.begin(), key.end(), key_char)) return false;
    if (section != "core") continue;
    if (key == "worktree") return false;
    if (key != "bare" && key != "repositoryformatversion") continue;
    if (eq == std::string_view::npos) return false;  // "bare" alone means true
    std::string_view value = line.substr(eq + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    std::string v = lower(value);
    if (key == "bare" && v != "false" && v != "no" && v != "off" && v != "0") return false;
    if (key == "repositoryformatversion" && v != "0" && v != "1") return false;
  }
  return true;
}

std::optional<std::string> parse_gitfile(std::string_view bytes) {
  if (bytes.find('\0') != std::string_view::npos) return std::nullopt;
  std::string_view s = rtrim(bytes);
  if (s.find('\n') != std::string_view::npos || s.find('\\') != std::string_view::npos) return std::nullopt;
  if (s.size() <= 7 || !s.starts_with("gitdir:")) return std::nullopt;
  s.remove_prefix(7);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  return std::string(s);
}

std::optional<Layout> discover(const fs::path& start) {
  auto begin = real_path(start.string());
  if (!begin) return std::nullopt;
  std::string path = *begin;
  bool in_dot_git = false;
  int min_iterations = 2;
  dev_t initial_device = 0;
  std::size_t ceiling = 1;  // no ceiling directories: only the root "/"

  Layout out;
  std::string common;
  std::string gitlink;  // the `.git` file, when the repository was found through one
  for (;;) {
    if (!in_dot_git) path = path == "/" ? "/.git" : path + "/.git";
    in_dot_git = !in_dot_git;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (initial_device == 0) initial_device = st.st_dev;
      else if (st.st_dev != initial_device) return std::nullopt;  // libgit2 stops: not found
      if (S_ISDIR(st.st_mode)) {
        auto valid = valid_repository(path, common);
        if (!valid) return std::nullopt;
        if (*valid) {
          // Found as a directory itself (a bare repository, or starting inside a .git):
          // libgit2's answer (a workdir, or tether's refusal of a bare one) is its own.
          if (!in_dot_git) return std::nullopt;
          if (common != path || exists(path + "/gitdir")) return std::nullopt;  // unusual: a .git dir with commondir
          out.gitdir = path;
          break;
        }
      } else if (S_ISREG(st.st_mode) && in_dot_git) {
        std::string text;
        if (read_small_file(path, kSmallLimit, text) != ReadStatus::ok) return std::nullopt;
        auto link = parse_gitfile(text);
        if (!link) return std::nullopt;
        std::string joined = (*link)[0] == '/' ? *link : dirname_of(path) + "/" + *link;
        auto real = real_path(joined);
        if (!real) return std::nullopt;
        auto valid = valid_repository(*real, common);
        if (!valid || !*valid) return std::nullopt;  // libgit2 stops here and reports it
        out.gitdir = *real;
        gitlink = path;
        break;
      }
    }
    path = dirname_of(path);
    if (min_iterations && --min_iterations == 0) ceiling = 1;
    if (min_iterations == 0 && path.size() <= ceiling) return std::nullopt;  // reached "/": not found
  }
  out.commondir = no_slash(common);
  out.gitdir = no_slash(out.gitdir.string());
  std::string parent = dirname_of(path);  // the directory holding `.git`
  out.found_at = parent;

  // repo_is_worktree: a separate commondir and a `gitdir` file in the git directory.
  out.linked = out.commondir != out.gitdir && exists(out.gitdir.string() + "/gitdir");
  if (out.commondir != out.gitdir && !out.linked) return std::nullopt;  // a commondir without gitdir file

  // The configuration: the repository's and the global ones must say nothing that changes
  // the layout (bare, worktree, format, extensions, includes).
  if (!config_file_plain(out.commondir.string() + "/config") || !global_configs_plain()) return std::nullopt;
  if (out.linked && exists(out.gitdir.string() + "/config.worktree")) return std::nullopt;

  // load_workdir.
  if (out.linked) {
    std::string text;
    if (read_small_file(out.gitdir / "gitdir", kSmallLimit, text) != ReadStatus::ok) return std::nullopt;
    std::string link(rtrim(text));
    if (link.empty() || link[0] != '/' || link.find('\0') != std::string::npos || link.find('\n') != std::string::npos)
      return std::nullopt;
    out.workdir = dirname_of(link);
  } else if (is_dir(parent)) {
    out.workdir = parent;
  } else {
    return std::nullopt;
  }
  if (out.workdir.empty()) return std::nullopt;

  // validate_ownership: the workdir, the `.git` file and the gitdir.
  if (!owned_by_me(out.workdir.string()) || (!gitlink.empty() && !owned_by_me(gitlink)) ||
      !owned_by_me(out.gitdir.string()))
    return std::nullopt;
  return out;
}

std::optional<RefValue> read_head(const Layout& layout) {
  bool absent = false;
  auto head = read_ref((layout.gitdir / "HEAD").string(), absent);
  if (!head || absent) return std::nullopt;
  return head;
}

std::optional<std::vector<LinkedWorktree>> linked_worktrees(const Layout& layout) {
  std::vector<LinkedWorktree> out;
  const std::string dir = layout.commondir.string() + "/worktrees";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return out;
    return std::nullopt;
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return std::nullopt;
  }
  std::unique_ptr<DIR, CloseDir> guard(d);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    const std::string admin = dir + "/" + n;
    struct stat st;
    if (::lstat(admin.c_str(), &st) != 0) return std::nullopt;
    if (!S_ISDIR(st.st_mode)) return std::nullopt;  // a stray file or a symlink: libgit2's to judge
    if (!is_regular(admin + "/commondir") || !is_regular(admin + "/gitdir") || !is_regular(admin + "/HEAD")) continue;
    LinkedWorktree wt;
    wt.name = n;
    // Its commondir must be ours, or its HEAD would resolve against another repository's refs.
    std::string common;
    auto valid = valid_repository(admin, common);
    if (!valid || !*valid || no_slash(common) != layout.commondir.string()) return std::nullopt;
    std::string text;
    if (read_small_file(admin + "/gitdir", kSmallLimit, text) != ReadStatus::ok) return std::nullopt;
    std::string link(rtrim(text));
    if (link.empty() || link[0] != '/' || link.find('\0') != std::string::npos || link.find('\n') != std::string::npos)
      return std::nullopt;
    wt.root = dirname_of(link);
    bool absent = false;
    auto head = read_ref(admin + "/HEAD", absent);
    if (!head || absent) return std::nullopt;
    if (exists(admin + "/refs")) return std::nullopt;  // per-worktree refs: libgit2's
    wt.head = *head;
    out.push_back(std::move(wt));
  }
  return out;
}

std::optional<Snapshot> read_snapshot(const Layout& layout) {
  Snapshot snap;
  const std::string common = layout.commondir.string();
  std::string packed_text;
  switch (read_small_file(common + "/packed-refs", kPackedRefsLimit, packed_text)) {
    case ReadStatus::declined: return std::nullopt;
    case ReadStatus::absent: break;
    case ReadStatus::ok: {
      auto packed = parse_packed_refs(packed_text);
      if (!packed) return std::nullopt;
      snap.refs = std::move(*packed);
      break;
    }
  }
  std::map<std::string, RefValue> loose;
  if (!load_loose(common + "/refs", "refs/", 0, loose)) return std::nullopt;
  for (auto& [name, v] : loose) snap.refs[name] = std::move(v);  // loose overrides packed
  if (layout.linked) {
    // Per-worktree refs (refs/bisect/...) and pseudo refs live in the gitdir: libgit2's.
    if (exists(layout.gitdir.string() + "/refs")) return std::nullopt;
    for (const auto& [name, v] : snap.refs)
      if (name.starts_with("refs/bisect/")) return std::nullopt;
  }
  auto head = read_head(layout);
  if (!head) return std::nullopt;
  snap.head = *head;

  std::string& key = snap.key;
  key = "tether-vcs-tips v1\n";
  struct stat st;
  if (::stat(common.c_str(), &st) != 0) return std::nullopt;
  append_field(key, "repository", common + " " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino));
  append_ref(key, "HEAD", snap.head);
  bool absent = false;
  auto main_head = read_ref(common + "/HEAD", absent);
  if (!main_head || absent) return std::nullopt;
  append_ref(key, "main-HEAD", *main_head);
  auto linked = linked_worktrees(layout);
  if (!linked) return std::nullopt;
  for (const auto& wt : *linked) append_ref(key, "worktree-HEAD " + wt.name, wt.head);
  for (const char* extra : {"shallow", "objects/info/alternates", "info/grafts"}) {
    std::string text;
    ReadStatus rs = read_small_file(common + "/" + extra, kSmallLimit, text);
    if (rs == ReadStatus::declined) return std::nullopt;
    if (rs == ReadStatus::ok) append_field(key, extra, text);
  }
  for (const auto& [name, v] : snap.refs) append_ref(key, name, v);
  return snap;
}

std::optional<std::optional<std::string>> resolve(const Snapshot& snapshot, const std::string& name) {
  const RefValue* v = nullptr;
  if (name == "HEAD") {
    v = &snapshot.head;
  } else {
    auto it = snapshot.refs.find(name);
    if (it == snapshot.refs.end()) return std::optional<std::string>();
    v = &it->second;
  }
  for (int depth = 0; v->symbolic(); ++depth) {
    if (depth >= kMaxSymbolicDepth) return std::nullopt;
    auto it = snapshot.refs.find(v->target);
    if (it == snapshot.refs.end()) return std::optional<std::string>();
    v = &it->second;
  }
  return std::optional<std::string>(v->oid);
}

}  // namespace tether::vcs::refs

namespace tether::vcs::refs {
namespace {
constexpr std::size_t kReachCacheLimit = 96u << 20;
constexpr std::string_view kReachMagic = "tether-reach-cache v1\n";
}  // namespace

std::optional<ReachCache> parse_reach_cache(std::string_view bytes) {
  if (bytes.size() > kReachCacheLimit || !bytes.starts_with(kReachMagic)) return std::nullopt;
  std::size_t pos = kReachMagic.size();
  // "<key length>\n<key bytes>"
  std::size_t nl = bytes.find('\n', pos);
  if (nl == std::string_view::npos || nl == pos || nl - pos > 9) return std::nullopt;
  std::size_t len = 0;
  for (std::size_t i = pos; i < nl; ++i) {
    if (bytes[i] < '0' || bytes[i] > '9') return std::nullopt;
    len = len * 10 + static_cast<std::size_t>(bytes[i] - '0');
  }
  pos = nl + 1;
  if (len > bytes.size() - pos) return std::nullopt;
  ReachCache c;
  c.key = std::string(bytes.substr(pos, len));
  pos += len;
  bool ended = false;
  while (pos < bytes.size()) {
    if (ended) return std::nullopt;
    nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) return std::nullopt;
    std::string_view line = bytes.substr(pos, nl - pos);
    pos = nl + 1;
    if (line == "end") {
      ended = true;
    } else if (line == "branches") {
      if (c.branches) return std::nullopt;
      c.branches.emplace();
    } else if (line.starts_with("branch ")) {
      // "branch <oid> <name>"
      if (!c.branches || line.size() < 7 + 40 + 2 || line[47] != ' ') return std::nullopt;
      std::string_view oid = line.substr(7, 40), name = line.substr(48);
      if (!is_hex40(oid) || !plausible_ref_name(std::string("refs/heads/") + std::string(name))) return std::nullopt;
      if (!c.branches->emplace(std::string(name), std::string(oid)).second) return std::nullopt;
    } else if (line.starts_with("alive ") || line.starts_with("dead ")) {
      bool alive = line[0] == 'a';
      std::string_view oid = line.substr(alive ? 6 : 5);
      if (!is_hex40(oid)) return std::nullopt;
      std::string id(oid);
      if (c.alive.contains(id) || c.dead.contains(id)) return std::nullopt;
      (alive ? c.alive : c.dead).insert(std::move(id));
    } else {
      return std::nullopt;
    }
  }
  if (!ended) return std::nullopt;  // truncated
  return c;
}

std::string serialise_reach_cache(const ReachCache& c) {
  std::string out(kReachMagic);
  out += std::to_string(c.key.size());
  out += '\n';
  out += c.key;
  if (c.branches) {
    out += "branches\n";
    for (const auto& [name, oid] : *c.branches) out += "branch " + oid + " " + name + "\n";
  }
  for (const auto& id : c.alive) out += "alive " + id + "\n";
  for (const auto& id : c.dead) out += "dead " + id + "\n";
  out += "end\n";
  return out;
}

std::optional<ReachCache> load_reach_cache(const Layout& layout) {
  std::string text;
  if (read_small_file(layout.commondir / kReachCacheFile, kReachCacheLimit, text) != ReadStatus::ok) return std::nullopt;
  return parse_reach_cache(text);
}

void store_reach_cache(const Layout& layout, const ReachCache& cache) {
  const std::string text = serialise_reach_cache(cache);
  if (text.size() > kReachCacheLimit) return;
  support::replace_cache_file(layout.commondir / kReachCacheFile, text);  // read-only: only the shortcut is lost
}

}  // namespace tether::vcs::refs
