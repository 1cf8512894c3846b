#include "landing.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

namespace tether::git {
namespace {

constexpr const char* kMarker = "tether-landing";
constexpr const char* kTmpSuffix = ".tether-landing";

std::string git_dir(git_repository* repo) { return git_repository_path(repo); }  // ends in '/'

std::string work_dir(git_repository* repo) {
  const char* wd = git_repository_workdir(repo);
  if (!wd) throw Git2Error(GIT_EBAREREPO, "a bare repository has no working tree to switch");
  return wd;  // ends in '/'
}

std::string errno_text() { return std::strerror(errno); }

// What one side (a commit's tree) has at a path.
struct Side {
  bool present = false;
  git_oid id{};
  git_filemode_t mode = GIT_FILEMODE_UNREADABLE;
  bool link() const { return present && mode == GIT_FILEMODE_LINK; }
  bool gitlink() const { return present && mode == GIT_FILEMODE_COMMIT; }
};

Side side_at(const git_tree* tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  int rc = git_tree_entry_bypath(&raw, tree, path.c_str());
  if (rc == GIT_ENOTFOUND) return {};
  check(rc, "cannot read " + path + " in a tree");
  Handle<git_tree_entry, git_tree_entry_free> e(raw);
  Side s;
  s.mode = git_tree_entry_filemode(e.get());
  if (s.mode == GIT_FILEMODE_TREE) return {};  // a directory: no file at this path
  s.present = true;
  git_oid_cpy(&s.id, git_tree_entry_id(e.get()));
  return s;
}

// What the working tree has at a path.
struct Wd {
  enum Kind { Absent, File, Link, Dir, Other } kind = Absent;
  git_oid id{};
};

// Whether no parent of `path` is a symlink: a symlinked directory would send reads, writes
// and removals outside the working tree.
// Calls visit(dir) for each parent directory of `path` below `root`, outermost first
// ("<root>a", "<root>a/b", ...), until visit returns false.
template <class Visit>
void each_parent(const std::string& root, const std::string& path, Visit&& visit) {
  std::string at = root;
  std::size_t start = 0;
  for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    at.append(path, start, slash - start);
    start = slash + 1;
    if (!visit(at)) return;
    at += '/';
  }
}

bool under_real_dirs(const std::string& root, const std::string& path) {
  bool real = true;
  each_parent(root, path, [&](const std::string& at) {
    struct stat st;
    if (lstat(at.c_str(), &st) != 0) return false;  // missing from here down: created as directories
    if (S_ISLNK(st.st_mode)) real = false;
    return real && S_ISDIR(st.st_mode);  // a file: nothing below it (it goes before a write)
  });
  return real;
}

Wd wd_at(git_repository* repo, const std::string& root, const std::string& path) {
  std::string full = root + path;
  // Below a symlink there is no working-tree file of this path (git tracks none there), and
  // nothing is read, written or removed through it.
  if (!under_real_dirs(root, path)) return {};
  struct stat st;
  if (lstat(full.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return {};
    throw Git2Error(GIT_ERROR, "cannot read " + full + ": " + errno_text());
  }
  Wd w;
  if (S_ISDIR(st.st_mode)) {
    w.kind = Wd::Dir;
  } else if (S_ISLNK(st.st_mode)) {
    w.kind = Wd::Link;
    std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
    ssize_t n = readlink(full.c_str(), target.data(), target.size());
    if (n < 0) throw Git2Error(GIT_ERROR, "cannot read the link " + full + ": " + errno_text());
    check(git_odb_hash(&w.id, target.data(), static_cast<std::size_t>(n), GIT_OBJECT_BLOB), "cannot hash " + full);
  } else if (S_ISREG(st.st_mode)) {
    w.kind = Wd::File;
    // As git hashes it: through the path's (built-in) filters, so a CRLF checkout matches.
    check(git_repository_hashfile(&w.id, repo, full.c_str(), GIT_OBJECT_BLOB, path.c_str()), "cannot hash " + full);
  } else {
    w.kind = Wd::Other;
  }
  return w;
}

bool wd_matches(const Wd& w, const Side& s) {
  if (s.gitlink()) return true;  // a submodule's directory is not ours to judge
  if (!s.present) return w.kind == Wd::Absent || w.kind == Wd::Dir;
  if (s.link()) return w.kind == Wd::Link && git_oid_equal(&w.id, &s.id);
  return w.kind == Wd::File && git_oid_equal(&w.id, &s.id);
}

bool index_matches(git_index* index, const std::string& path, const Side& s) {
  for (int stage = 1; stage <= 3; ++stage)
    if (git_index_get_bypath(index, path.c_str(), stage)) return false;  // a conflict someone left
  const git_index_entry* e = git_index_get_bypath(index, path.c_str(), 0);
  if (!s.present) return e == nullptr;
  return e && git_oid_equal(&e->id, &s.id);
}

struct Trees {
  Commit cfrom, cto;
  Tree from, to;
  std::vector<std::string> paths;  // every path that differs, sorted
};

Trees trees_of(git_repository* repo, const git_oid& from, const git_oid& to) {
  Trees t{lookup_commit(repo, from), lookup_commit(repo, to), {}, {}, {}};
  t.from = commit_tree(t.cfrom.get());
  t.to = commit_tree(t.cto.get());
  git_diff* raw = nullptr;
  auto opts = init_options(git_diff_options_init, GIT_DIFF_OPTIONS_VERSION);
  check(git_diff_tree_to_tree(&raw, repo, t.from.get(), t.to.get(), &opts),
        "cannot compare " + short_hex(from) + " and " + short_hex(to));
  Diff diff(raw);
  std::set<std::string> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    if (d->old_file.path) paths.insert(d->old_file.path);
    if (d->new_file.path) paths.insert(d->new_file.path);
  }
  t.paths.assign(paths.begin(), paths.end());
  return t;
}

Index repo_index(git_repository* repo) {
  git_index* raw = nullptr;
  check(git_repository_index(&raw, repo), "cannot open the index");
  return Index(raw);
}

std::string tmp_name(const std::string& full) {
  auto slash = full.find_last_of('/');
  return full.substr(0, slash + 1) + "." + full.substr(slash + 1) + kTmpSuffix;
}

// Refuses to write through a symlinked directory: every parent of `path` must be a real
// directory inside the working tree (created when missing).
void make_parents(const std::string& root, const std::string& path) {
  each_parent(root, path, [&](const std::string& at) {
    struct stat st;
    if (lstat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        throw Git2Error(GIT_ERROR, "cannot write " + path + ": " + at + " is not a directory (a symlink or a file)");
    } else if (errno != ENOENT || (mkdir(at.c_str(), 0777) != 0 && errno != EEXIST)) {
      throw Git2Error(GIT_ERROR, "cannot create " + at + ": " + errno_text());
    }
    return true;
  });
}

void remove_empty_parents(const std::string& root, std::string path) {
  for (auto slash = path.find_last_of('/'); slash != std::string::npos; slash = path.find_last_of('/')) {
    path.resize(slash);
    if (rmdir((root + path).c_str()) != 0) return;  // not empty (or gone): stop
  }
}

// Writes `s`'s content at `path` by rename, so the file is at all times one version or the other.
void write_side(git_repository* repo, const std::string& root, const std::string& path, const Side& s) {
  make_parents(root, path);
  std::string full = root + path, tmp = tmp_name(full);
  unlink(tmp.c_str());
  git_blob* braw = nullptr;
  check(git_blob_lookup(&braw, repo, &s.id), "cannot read the blob of " + path);
  Handle<git_blob, git_blob_free> blob(braw);
  if (s.link()) {
    std::string target(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                       static_cast<std::size_t>(git_blob_rawsize(blob.get())));
    if (symlink(target.c_str(), tmp.c_str()) != 0) throw Git2Error(GIT_ERROR, "cannot write " + tmp + ": " + errno_text());
  } else {
    git_buf buf = GIT_BUF_INIT;
    auto fo = init_options(git_blob_filter_options_init, GIT_BLOB_FILTER_OPTIONS_VERSION);
    check(git_blob_filter(&buf, blob.get(), path.c_str(), &fo), "cannot filter " + path);
    std::string content(buf.ptr ? buf.ptr : "", buf.size);
    git_buf_dispose(&buf);
    mode_t mode = s.mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666;
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) throw Git2Error(GIT_ERROR, "cannot write " + tmp + ": " + errno_text());
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int e = errno;
        ::close(fd);
        unlink(tmp.c_str());
        throw Git2Error(GIT_ERROR, "cannot write " + tmp + ": " + std::strerror(e));
      }
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  // A directory left where the file goes (the other side had files under it) goes first.
  struct stat st;
  if (lstat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && rmdir(full.c_str()) != 0) {
    unlink(tmp.c_str());
    throw Git2Error(GIT_ERROR, "cannot replace the directory " + full + ": " + errno_text());
  }
  if (rename(tmp.c_str(), full.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    throw Git2Error(GIT_ERROR, "cannot write " + full + ": " + std::strerror(e));
  }
}

void index_entry_for(git_index* index, const std::string& root, const std::string& path, const Side& s) {
  if (!s.present) {
    check(git_index_remove_bypath(index, path.c_str()), "cannot remove " + path + " from the index");
    return;
  }
  git_index_entry e;
  std::memset(&e, 0, sizeof e);
  e.mode = s.mode;
  git_oid_cpy(&e.id, &s.id);
  e.path = path.c_str();
  struct stat st;
  if (!s.gitlink() && lstat((root + path).c_str(), &st) == 0) {
    e.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
    e.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
    e.mtime.seconds = static_cast<int32_t>(st.st_mtim.tv_sec);
    e.mtime.nanoseconds = static_cast<uint32_t>(st.st_mtim.tv_nsec);
    e.dev = static_cast<uint32_t>(st.st_dev);
    e.ino = static_cast<uint32_t>(st.st_ino);
    e.uid = st.st_uid;
    e.gid = st.st_gid;
    e.file_size = static_cast<uint32_t>(st.st_size);
  }
  git_index_remove_bypath(index, path.c_str());  // drops conflict stages, if any
  check(git_index_add(index, &e), "cannot add " + path + " to the index");
}

}  // namespace

std::optional<LandingMarker> read_landing(git_repository* repo) {
  std::string path = git_dir(repo) + kMarker;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  LandingMarker m;
  std::string from, to;
  if (!std::getline(in, m.branch) || !std::getline(in, from) || !std::getline(in, to) || m.branch.empty())
    throw Git2Error(GIT_ERROR, path + " is malformed; check the working tree of " + work_dir(repo) +
                                   " against its branch and remove the file");
  m.from = oid_from_hex(from);
  m.to = oid_from_hex(to);
  return m;
}

void clear_landing_locks(git_repository* repo, const LandingMarker& m) {
  std::string ref_lock = std::string(git_repository_commondir(repo)) + "refs/heads/" + m.branch + ".lock";
  std::ifstream in(ref_lock);
  if (in) {
    std::string line;
    std::getline(in, line);
    in.close();
    if (line.empty() || line == oid_hex(m.from) || line == oid_hex(m.to)) unlink(ref_lock.c_str());
  }
  unlink((git_dir(repo) + "index.lock").c_str());
}

void write_landing(git_repository* repo, const LandingMarker& m) {
  std::string path = git_dir(repo) + kMarker, tmp = path + ".tmp";
  std::string text = m.branch + "\n" + oid_hex(m.from) + "\n" + oid_hex(m.to) + "\n";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw Git2Error(GIT_ERROR, "cannot write " + tmp + ": " + errno_text());
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  ::close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    throw Git2Error(GIT_ERROR, "cannot write " + path + ": " + errno_text());
  }
}

void clear_landing(git_repository* repo) {
  std::string path = git_dir(repo) + kMarker;
  if (unlink(path.c_str()) != 0 && errno != ENOENT) throw Git2Error(GIT_ERROR, "cannot remove " + path + ": " + errno_text());
}

std::vector<std::string> switch_conflicts(git_repository* repo, const git_oid& from, const git_oid& to, std::size_t limit) {
  std::string root = work_dir(repo);
  Trees t = trees_of(repo, from, to);
  Index index = repo_index(repo);
  std::vector<std::string> out;
  for (const auto& p : t.paths) {
    Side a = side_at(t.from.get(), p), b = side_at(t.to.get(), p);
    Wd w = wd_at(repo, root, p);
    bool ok = (wd_matches(w, a) || wd_matches(w, b)) && (index_matches(index.get(), p, a) || index_matches(index.get(), p, b));
    if (!ok && out.size() < limit) out.push_back(p);
  }
  return out;
}

void switch_paths(git_repository* repo, const git_oid& from, const git_oid& to, const git_oid& toward) {
  std::string root = work_dir(repo);
  Trees t = trees_of(repo, from, to);
  const git_tree* goal = git_oid_equal(&toward, &to) ? t.to.get() : t.from.get();
  Index index = repo_index(repo);
  struct Item {
    std::string path;
    Side goal;
    Wd wd;
  };
  std::vector<Item> items;
  std::vector<std::string> foreign;
  for (const auto& p : t.paths) {
    Side a = side_at(t.from.get(), p), b = side_at(t.to.get(), p);
    Wd w = wd_at(repo, root, p);
    if (!(wd_matches(w, a) || wd_matches(w, b)) || !(index_matches(index.get(), p, a) || index_matches(index.get(), p, b)))
      foreign.push_back(p);
    items.push_back({p, side_at(goal, p), w});
  }
  if (!foreign.empty()) {
    std::string shown;
    for (std::size_t i = 0; i < foreign.size() && i < 5; ++i) shown += (i ? ", " : "") + foreign[i];
    if (foreign.size() > 5) shown += ", ...";
    throw Git2Error(GIT_ECONFLICT, "the working tree of " + root + " holds changes of its own in " + shown +
                                       " (neither " + short_hex(from) + "'s nor " + short_hex(to) +
                                       "'s version); commit or stash them there first");
  }
  // Removals first: a file the goal lacks may stand where the goal has a directory.
  for (const auto& it : items) {
    if (under_real_dirs(root, it.path)) unlink(tmp_name(root + it.path).c_str());  // a write a kill interrupted
    if (it.goal.present || (it.wd.kind != Wd::File && it.wd.kind != Wd::Link)) continue;
    if (unlink((root + it.path).c_str()) != 0 && errno != ENOENT)
      throw Git2Error(GIT_ERROR, "cannot remove " + root + it.path + ": " + errno_text());
    remove_empty_parents(root, it.path);
  }
  for (const auto& it : items)
    if (it.goal.present && !it.goal.gitlink() && !wd_matches(it.wd, it.goal)) write_side(repo, root, it.path, it.goal);
  for (const auto& it : items) index_entry_for(index.get(), root, it.path, it.goal);
  check(git_index_write(index.get()), "cannot write the index of " + root);
}

std::vector<std::string> dirty_paths(git_repository* repo, std::size_t limit) {
  auto opts = init_options(git_status_options_init, GIT_STATUS_OPTIONS_VERSION);
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
  git_status_list* raw = nullptr;
  check(git_status_list_new(&raw, repo, &opts), "cannot read the working tree status of " + work_dir(repo));
  Handle<git_status_list, git_status_list_free> list(raw);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < git_status_list_entrycount(list.get()) && out.size() < limit; ++i) {
    const git_status_entry* e = git_status_byindex(list.get(), i);
    const git_diff_delta* d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    if (d && d->new_file.path) out.push_back(d->new_file.path);
    else if (d && d->old_file.path) out.push_back(d->old_file.path);
  }
  return out;
}

}  // namespace tether::git
