// git_reader.cpp: libgit2 calls behind GitReader. Every libgit2 object is owned by a
// unique_ptr with its free function; errors become VcsError with libgit2's message.
#include "vcs/git_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tether/errors.hpp"
#include "vcs/git2_util.hpp"
#include "vcs/git_index.hpp"

namespace tether::vcs {
namespace {

using namespace git2;  // handles, fail(), oid_hex(), Library

bool is_full_hex(const std::string& s) {
  if (s.size() != GIT_OID_HEXSZ) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// The id of what `path` names inside `tree` ("" = the tree itself); nullopt when absent.
std::optional<git_oid> entry_at(const git_tree* tree, const std::string& path) {
  if (path.empty()) return *git_tree_id(tree);
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree, path.c_str()) != 0) return std::nullopt;
  TreeEntry entry(raw);
  return *git_tree_entry_id(entry.get());
}

Tree commit_tree(const git_commit* commit) {
  git_tree* raw = nullptr;
  if (git_commit_tree(&raw, commit) != 0) fail("cannot read the tree of commit " + oid_hex(*git_commit_id(commit)));
  return Tree(raw);
}

// Not TREESAME to any parent under `paths`: git's rule for a path-limited log.
bool touches(git_commit* commit, const std::vector<std::string>& paths) {
  Tree tree = commit_tree(commit);
  std::vector<std::optional<git_oid>> mine;
  for (const auto& p : paths) mine.push_back(entry_at(tree.get(), p));
  unsigned n = git_commit_parentcount(commit);
  if (n == 0) {
    for (const auto& m : mine)
      if (m) return true;
    return false;
  }
  for (unsigned i = 0; i < n; ++i) {
    git_commit* raw = nullptr;
    if (git_commit_parent(&raw, commit, i) != 0) fail("cannot read a parent of " + oid_hex(*git_commit_id(commit)));
    Commit parent(raw);
    Tree ptree = commit_tree(parent.get());
    bool same = true;
    for (std::size_t k = 0; k < paths.size() && same; ++k) {
      auto theirs = entry_at(ptree.get(), paths[k]);
      same = mine[k].has_value() == theirs.has_value() && (!mine[k] || git_oid_equal(&*mine[k], &*theirs));
    }
    if (same) return false;
  }
  return true;
}

CommitInfo commit_info(const git_commit* c) {
  CommitInfo info;
  info.id = oid_hex(*git_commit_id(c));
  for (unsigned i = 0, n = git_commit_parentcount(c); i < n; ++i) info.parents.push_back(oid_hex(*git_commit_parent_id(c, i)));
  info.time = static_cast<std::int64_t>(git_commit_time(c));
  if (const git_signature* a = git_commit_author(c)) {
    info.author_name = a->name != nullptr ? a->name : "";
    info.author_email = a->email != nullptr ? a->email : "";
    info.author_time = static_cast<std::int64_t>(a->when.time);
  }
  // git_commit_summary caches into the commit object; the pointer is const only by API.
  if (const char* s = git_commit_summary(const_cast<git_commit*>(c))) info.summary = s;
  if (const char* m = git_commit_message(c)) info.message = m;
  return info;
}

void push_ref_head(git_revwalk* walk, git_reference* ref) {
  git_object* raw = nullptr;
  if (git_reference_peel(&raw, ref, GIT_OBJECT_COMMIT) != 0) return;  // a tag of a tree, a dangling ref
  Object target(raw);
  git_revwalk_push(walk, git_object_id(target.get()));
}

// The branch a HEAD reference names (also unborn); nullopt when detached.
std::optional<std::string> branch_of_head(const git_reference* head) {
  if (git_reference_type(head) != GIT_REFERENCE_SYMBOLIC) return std::nullopt;
  std::string target = git_reference_symbolic_target(head);
  static const std::string heads = "refs/heads/";
  if (!target.starts_with(heads)) return std::nullopt;
  return target.substr(heads.size());
}

// A checkout whose working tree is `top` (its branch left to the caller): live when the
// directory exists, its root canonical then, current when it is `here` (canonical).
Worktree worktree_at(const std::filesystem::path& top, const std::filesystem::path& here) {
  Worktree w;
  std::error_code err;
  w.live = std::filesystem::is_directory(top, err);
  w.root = w.live ? std::filesystem::canonical(top, err) : top.lexically_normal();
  if (err) w.root = top.lexically_normal();
  w.current = w.live && w.root == here;
  return w;
}

std::string without_trailing_slash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// libgit2 keeps global state; the process holds one reference to it from the first reader
// that opens a repository through it, shut down at exit.
void init_library() { static Library library; }

}  // namespace

GitReader::GitReader(const std::filesystem::path& start, bool native) {
  if (native) layout_ = refs::discover(start);
  if (layout_) {
    root_ = layout_->workdir;
    return;
  }
  init_library();
  std::string where = start.string();
  int rc = git_repository_open_ext(&repo_, where.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND) throw VcsError("no git repository found at or above " + where);
  if (rc != 0) fail("cannot open the git repository at or above " + where);
  ++stats_.repository_opens;
  const char* workdir = git_repository_workdir(repo_);
  if (workdir == nullptr) {
    std::string path = git_repository_path(repo_);
    git_repository_free(repo_);
    repo_ = nullptr;
    throw VcsError("the git repository at " + path + " has no working tree; tether needs a checkout");
  }
  root_ = without_trailing_slash(workdir);
}

GitReader::~GitReader() { if (repo_ != nullptr) git_repository_free(repo_); }

git_repository* GitReader::repo() const {
  if (repo_ != nullptr) return repo_;
  // Only reached when the native reader found the repository: open exactly what it found
  // (the directory holding `.git`, no search) and check that libgit2 agrees.
  init_library();
  git_repository* raw = nullptr;
  const std::string at = layout_->found_at.string();
  if (git_repository_open_ext(&raw, at.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
    fail("cannot open the git repository at " + at);
  Repository opened(raw);
  const char* workdir = git_repository_workdir(raw);
  if (workdir == nullptr || without_trailing_slash(workdir) != root_.string() ||
      without_trailing_slash(git_repository_path(raw)) != layout_->gitdir.string() ||
      without_trailing_slash(git_repository_commondir(raw)) != layout_->commondir.string())
    throw VcsError("the git repository at " + root_.string() + " changed while tether was reading it");
  ++stats_.repository_opens;
  repo_ = opened.release();
  return repo_;
}

std::optional<refs::Snapshot> GitReader::snapshot() const {
  if (!layout_) return std::nullopt;
  return refs::read_snapshot(*layout_);
}

std::filesystem::path GitReader::shared_dir() const {
  std::lock_guard lock(mutex_);
  if (layout_) return layout_->commondir;
  return without_trailing_slash(git_repository_commondir(repo()));
}

git_commit* GitReader::lookup_commit(const std::string& rev) const {
  git_commit* commit = nullptr;
  if (is_full_hex(rev)) {
    git_oid oid;
    if (git_oid_fromstr(&oid, rev.c_str()) == 0 && git_commit_lookup(&commit, repo(), &oid) == 0) return commit;
  }
  git_object* raw = nullptr;
  // A leading '-' is never a revision; refusing it keeps option-like text out of lookups.
  if (rev.empty() || rev[0] == '-' || git_revparse_single(&raw, repo(), rev.c_str()) != 0)
    throw VcsError("unknown revision '" + rev + "'");
  Object obj(raw);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, obj.get(), GIT_OBJECT_COMMIT) != 0)
    throw VcsError("unknown revision '" + rev + "': it does not name a commit");
  return reinterpret_cast<git_commit*>(peeled);
}

std::string GitReader::resolve(const std::string& rev) const {
  std::lock_guard lock(mutex_);
  Commit c(lookup_commit(rev));
  return oid_hex(*git_commit_id(c.get()));
}

std::optional<std::string> GitReader::head() const {
  std::lock_guard lock(mutex_);
  if (auto snap = snapshot())
    if (auto id = refs::resolve(*snap, "HEAD")) return *id;
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, repo(), "HEAD");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) return std::nullopt;
  if (rc != 0) fail("cannot read HEAD");
  return oid_hex(oid);
}

std::optional<std::string> GitReader::current_branch() const {
  std::lock_guard lock(mutex_);
  if (layout_) {
    if (auto h = refs::read_head(*layout_)) {
      static const std::string heads = "refs/heads/";
      if (!h->symbolic() || !h->target.starts_with(heads)) return std::nullopt;
      return h->target.substr(heads.size());
    }
  }
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo(), "HEAD") != 0) fail("cannot read HEAD");
  Reference ref(raw);
  return branch_of_head(ref.get());
}

std::map<std::string, std::string> GitReader::branches_git() const {
  git_branch_iterator* raw_it = nullptr;
  if (git_branch_iterator_new(&raw_it, repo(), GIT_BRANCH_LOCAL) != 0) fail("cannot list branches");
  BranchIterator it(raw_it);
  std::map<std::string, std::string> out;
  git_reference* raw = nullptr;
  git_branch_t type;
  while (git_branch_next(&raw, &type, it.get()) == 0) {
    Reference ref(raw);
    git_object* target = nullptr;
    if (git_reference_peel(&target, ref.get(), GIT_OBJECT_COMMIT) != 0) continue;
    Object obj(target);
    static const std::string heads = "refs/heads/";
    out[std::string(git_reference_name(ref.get())).substr(heads.size())] = oid_hex(*git_object_id(obj.get()));
  }
  return out;
}

// The reachability cache recorded under exactly the tips `before` read; nullopt without one
// (or when the native reader declined: then there is no key to trust it by).
std::optional<refs::ReachCache> GitReader::reach_cache_for(const std::optional<refs::Snapshot>& before) const {
  if (!before) return std::nullopt;
  auto cache = refs::load_reach_cache(*layout_);
  if (cache && cache->key != before->key) cache.reset();
  return cache;
}

// Records what `fill` adds to the cache (or to a new one) under the key read before libgit2
// answered, and only if no ref moved meanwhile.
void GitReader::store_reach_cache_if_unmoved(const std::optional<refs::Snapshot>& before,
                                              std::optional<refs::ReachCache> cache,
                                              const std::function<void(refs::ReachCache&)>& fill) const {
  if (!before) return;
  auto after = snapshot();
  if (!after || after->key != before->key) return;
  refs::ReachCache c = cache ? std::move(*cache) : refs::ReachCache{before->key, {}, {}, {}};
  fill(c);
  refs::store_reach_cache(*layout_, c);
}

// Which branch tips are commits (and what a tag among them peels to) takes the object
// database, so the native reader cannot say; libgit2's answer is kept in the reachability
// cache under the tips it was read with, and reused while they are the same.
std::map<std::string, std::string> GitReader::branches() const {
  std::lock_guard lock(mutex_);
  auto before = snapshot();
  std::optional<refs::ReachCache> cache = reach_cache_for(before);
  if (cache && cache->branches) {
    ++stats_.reach_hits;
    return *cache->branches;
  }
  auto out = branches_git();
  store_reach_cache_if_unmoved(before, std::move(cache), [&](refs::ReachCache& c) { c.branches = out; });
  return out;
}

std::map<std::string, std::string> GitReader::tags() const {
  std::lock_guard lock(mutex_);
  git_reference_iterator* raw_it = nullptr;
  if (git_reference_iterator_glob_new(&raw_it, repo(), "refs/tags/*") != 0) fail("cannot list tags");
  RefIterator it(raw_it);
  std::map<std::string, std::string> out;
  git_reference* raw = nullptr;
  while (git_reference_next(&raw, it.get()) == 0) {
    Reference ref(raw);
    git_object* target = nullptr;
    if (git_reference_peel(&target, ref.get(), GIT_OBJECT_COMMIT) != 0) continue;  // a tag of a blob or tree
    Object obj(target);
    static const std::string prefix = "refs/tags/";
    out[std::string(git_reference_name(ref.get())).substr(prefix.size())] = oid_hex(*git_object_id(obj.get()));
  }
  return out;
}

// worktrees() from the native reader: the main worktree is what libgit2 finds opening the
// common dir (its parent; the config was checked plain), each linked one what it finds opening
// the administrative directory (the `gitdir` file's directory, the HEAD there). Declines when
// libgit2's ownership check might refuse one of those opens.
std::optional<std::vector<Worktree>> GitReader::native_worktrees() const {
  if (!layout_) return std::nullopt;
  auto linked_list = refs::linked_worktrees(*layout_);
  auto own_head = refs::read_head(*layout_);
  if (!linked_list || !own_head) return std::nullopt;
  auto owned_or_absent = [](const std::filesystem::path& p) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) return errno == ENOENT;
    return st.st_uid == ::geteuid();
  };
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::weakly_canonical(root_, ec);
  auto describe = [&](const std::filesystem::path& top, const refs::RefValue& head) {
    Worktree w = worktree_at(top, here);
    static const std::string heads = "refs/heads/";
    if (head.symbolic() && head.target.starts_with(heads)) w.branch = head.target.substr(heads.size());
    return w;
  };
  std::vector<Worktree> out;
  if (!layout_->linked) {
    out.push_back(describe(root_, *own_head));
  } else {
    const std::filesystem::path common = layout_->commondir;
    const std::filesystem::path main_root = common.parent_path();
    std::string text;
    if (common.filename() != ".git" || std::filesystem::exists(common / ".git", ec) || !owned_or_absent(main_root) ||
        !owned_or_absent(common) || refs::read_small_file(common / "HEAD", 4096, text) != refs::ReadStatus::ok)
      return std::nullopt;
    auto main_head = refs::parse_ref_file(text);
    if (!main_head) return std::nullopt;
    out.push_back(describe(main_root, *main_head));
  }
  out.back().main = true;
  std::vector<Worktree> linked;
  for (const auto& wt : *linked_list) {
    const std::filesystem::path admin = layout_->commondir / "worktrees" / wt.name;
    if (!owned_or_absent(admin) || !owned_or_absent(wt.root) || !owned_or_absent(wt.root / ".git")) return std::nullopt;
    linked.push_back(describe(wt.root, wt.head));
  }
  std::sort(linked.begin(), linked.end(), [](const Worktree& a, const Worktree& b) { return a.root < b.root; });
  out.insert(out.end(), linked.begin(), linked.end());
  return out;
}

std::vector<Worktree> GitReader::worktrees() const {
  std::lock_guard lock(mutex_);
  if (auto native = native_worktrees()) return std::move(*native);
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::weakly_canonical(root_, ec);
  auto describe = [&](const std::filesystem::path& top, git_repository* repo) {
    Worktree w = worktree_at(top, here);
    git_reference* raw = nullptr;
    if (repo != nullptr && git_reference_lookup(&raw, repo, "HEAD") == 0) {
      Reference head(raw);
      w.branch = branch_of_head(head.get());
    }
    return w;
  };

  std::vector<Worktree> out;
  const std::string common = git_repository_commondir(repo());
  if (!git_repository_is_worktree(repo())) {
    out.push_back(describe(root_, repo()));
    out.back().main = true;
  } else {
    git_repository* raw = nullptr;
    if (git_repository_open(&raw, common.c_str()) == 0) {
      Repository main_repo(raw);
      const char* workdir = git_repository_workdir(main_repo.get());
      if (workdir != nullptr && !git_repository_is_bare(main_repo.get())) {
        out.push_back(describe(without_trailing_slash(workdir), main_repo.get()));
        out.back().main = true;
      }
    }
  }

  std::vector<Worktree> linked;
  git_strarray names{};
  if (git_worktree_list(&names, repo()) != 0) fail("cannot list the worktrees of " + common);
  for (std::size_t i = 0; i < names.count; ++i) {
    git_worktree* raw_wt = nullptr;
    if (git_worktree_lookup(&raw_wt, repo(), names.strings[i]) != 0) continue;
    support::git2::Worktree wt(raw_wt);  // not vcs::Worktree
    // Opened through its administrative directory, which outlives a deleted checkout, so
    // the branch of a worktree whose directory is gone is still known.
    std::filesystem::path admin = std::filesystem::path(common) / "worktrees" / names.strings[i];
    git_repository* raw_repo = nullptr;
    Repository wt_repo(git_repository_open(&raw_repo, admin.c_str()) == 0 ? raw_repo : nullptr);
    linked.push_back(describe(without_trailing_slash(git_worktree_path(wt.get())), wt_repo.get()));
  }
  git_strarray_dispose(&names);
  std::sort(linked.begin(), linked.end(), [](const Worktree& a, const Worktree& b) { return a.root < b.root; });
  out.insert(out.end(), linked.begin(), linked.end());
  return out;
}

GitReader::OidKey GitReader::key(const git_oid& oid) {
  static_assert(sizeof(OidKey) == GIT_OID_RAWSZ);
  OidKey k;
  std::memcpy(k.data(), oid.id, GIT_OID_RAWSZ);
  return k;
}

std::shared_ptr<const std::string> GitReader::blob_content(const git_oid& oid) const {
  auto k = key(oid);
  if (auto it = blobs_.find(k); it != blobs_.end()) return it->second;
  git_blob* raw = nullptr;
  if (git_blob_lookup(&raw, repo(), &oid) != 0) fail("cannot read blob " + oid_hex(oid));
  Blob blob(raw);
  ++stats_.blobs_read;
  auto content = std::make_shared<const std::string>(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                                                     static_cast<std::size_t>(git_blob_rawsize(blob.get())));
  blobs_.emplace(std::move(k), content);
  return content;
}

std::shared_ptr<const FileMap> GitReader::flatten_tree(const git_oid& oid) const {
  auto k = key(oid);
  if (auto it = trees_.find(k); it != trees_.end()) {
    ++stats_.tree_hits;
    return it->second;
  }
  git_tree* raw = nullptr;
  if (git_tree_lookup(&raw, repo(), &oid) != 0) fail("cannot read tree " + oid_hex(oid));
  Tree tree(raw);
  ++stats_.trees_read;
  auto files = std::make_shared<FileMap>();
  files->reserve(git_tree_entrycount(tree.get()));
  for (std::size_t i = 0, n = git_tree_entrycount(tree.get()); i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree.get(), i);
    std::string name = git_tree_entry_name(e);
    switch (git_tree_entry_filemode(e)) {
      case GIT_FILEMODE_TREE:
        for (const auto& [path, content] : *flatten_tree(*git_tree_entry_id(e))) files->emplace_back(name + "/" + path, content);
        break;
      case GIT_FILEMODE_BLOB:
      case GIT_FILEMODE_BLOB_EXECUTABLE:
        files->emplace_back(name, Text(blob_content(*git_tree_entry_id(e))));  // shared, not copied
        break;
      default:  // symlinks and submodules carry no manifest
        break;
    }
  }
  // git orders a directory `d` as "d/", so "d/x" may come before "d-1": sort by path. A tree
  // of files alone (the objects/ directory) is in that order already.
  auto by_path = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(files->begin(), files->end(), by_path)) std::sort(files->begin(), files->end(), by_path);
  std::shared_ptr<const FileMap> result = std::move(files);
  trees_.emplace(std::move(k), result);
  return result;
}

std::optional<std::string> GitReader::read_file(const std::string& rev, const std::string& path) const {
  std::lock_guard lock(mutex_);
  Commit c(lookup_commit(rev));
  Tree tree = commit_tree(c.get());
  git_tree_entry* raw = nullptr;
  if (path.empty() || git_tree_entry_bypath(&raw, tree.get(), path.c_str()) != 0) return std::nullopt;
  TreeEntry entry(raw);
  auto mode = git_tree_entry_filemode(entry.get());
  if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return std::nullopt;
  return *blob_content(*git_tree_entry_id(entry.get()));
}

std::shared_ptr<const FileMap> GitReader::files_at(const std::string& rev, const std::string& dir) const {
  static const auto empty = std::make_shared<const FileMap>();
  std::lock_guard lock(mutex_);
  Commit c(lookup_commit(rev));
  if (dir.empty()) return flatten_tree(*git_commit_tree_id(c.get()));
  Tree tree = commit_tree(c.get());
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree.get(), dir.c_str()) != 0) return empty;
  TreeEntry entry(raw);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) return empty;
  return flatten_tree(*git_tree_entry_id(entry.get()));
}

void GitReader::push_all_tips(void* walk_ptr) const {
  auto* walk = static_cast<git_revwalk*>(walk_ptr);
  git_reference_iterator* raw_it = nullptr;
  if (git_reference_iterator_new(&raw_it, repo()) != 0) fail("cannot list references");
  RefIterator it(raw_it);
  git_reference* raw = nullptr;
  while (git_reference_next(&raw, it.get()) == 0) {
    Reference ref(raw);
    push_ref_head(walk, ref.get());
  }
  // HEAD of this checkout and of every other worktree, as `rev-list --all` does.
  git_reference* head = nullptr;
  if (git_repository_head(&head, repo()) == 0) {
    Reference ref(head);
    push_ref_head(walk, ref.get());
  }
  git_strarray names{};
  if (git_worktree_list(&names, repo()) == 0) {
    for (std::size_t i = 0; i < names.count; ++i) {
      git_reference* wt_head = nullptr;
      if (git_repository_head_for_worktree(&wt_head, repo(), names.strings[i]) == 0) {
        // The returned ref outlives the worktree repository it came from: use only its id.
        Reference ref(wt_head);
        if (const git_oid* id = git_reference_target(ref.get())) git_revwalk_push(walk, id);
      }
    }
    git_strarray_dispose(&names);
  }
  if (git_repository_is_worktree(repo())) {
    git_repository* main_raw = nullptr;
    if (git_repository_open(&main_raw, git_repository_commondir(repo())) == 0) {
      Repository main_repo(main_raw);
      git_reference* main_head = nullptr;
      if (git_repository_head(&main_head, main_repo.get()) == 0) {
        Reference ref(main_head);
        push_ref_head(walk, ref.get());
      }
    }
  }
}

std::vector<CommitInfo> GitReader::history(const HistoryQuery& query) const {
  std::lock_guard lock(mutex_);
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, repo()) != 0) fail("cannot walk history");
  Revwalk walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (query.all) {
    push_all_tips(walk.get());
  } else {
    Commit start(lookup_commit(query.rev));
    if (git_revwalk_push(walk.get(), git_commit_id(start.get())) != 0) fail("cannot walk history from " + query.rev);
  }
  std::vector<CommitInfo> out;
  git_oid oid;
  while ((query.limit == 0 || out.size() < query.limit) && git_revwalk_next(&oid, walk.get()) == 0) {
    git_commit* raw_commit = nullptr;
    if (git_commit_lookup(&raw_commit, repo(), &oid) != 0) fail("cannot read commit " + oid_hex(oid));
    Commit c(raw_commit);
    if (!query.paths.empty() && !touches(c.get(), query.paths)) continue;
    out.push_back(commit_info(c.get()));
  }
  return out;
}

// In history()'s order, so a caller may list every commit's records in the order `log` shows.
std::vector<std::string> GitReader::walk_all() const {
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, repo()) != 0) fail("cannot walk history");
  Revwalk walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  push_all_tips(walk.get());
  ++stats_.walks;
  std::vector<std::string> out;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) out.push_back(oid_hex(oid));
  return out;
}

std::vector<std::string> GitReader::all_commit_ids() const {
  std::lock_guard lock(mutex_);
  return walk_all();
}

std::optional<std::string> GitReader::tips_key() const {
  std::lock_guard lock(mutex_);
  auto s = snapshot();
  if (!s) return std::nullopt;
  return std::move(s->key);
}

// The set of reachable commits depends only on the tips (Snapshot::key, read natively) and
// on immutable objects: when the cache answers every asked commit under the current key, no
// walk. Otherwise walk, and record the answers under the key read BEFORE the walk, and only
// if the key read after it is the same (a ref that moved meanwhile leaves no record).
std::set<std::string> GitReader::alive_commits(const std::vector<std::string>& commits) const {
  std::set<std::string> alive;
  if (commits.empty()) return alive;
  std::lock_guard lock(mutex_);
  auto before = snapshot();
  std::optional<refs::ReachCache> cache = reach_cache_for(before);
  if (cache && std::all_of(commits.begin(), commits.end(), [&](const std::string& c) {
        return cache->alive.contains(c) || cache->dead.contains(c);
      })) {
    ++stats_.reach_hits;
    for (const auto& c : commits)
      if (cache->alive.contains(c)) alive.insert(c);
    return alive;
  }
  std::set<std::string> all;
  for (auto& id : walk_all()) all.insert(std::move(id));
  for (const auto& c : commits)
    if (all.contains(c)) alive.insert(c);
  store_reach_cache_if_unmoved(before, std::move(cache), [&](refs::ReachCache& c) {
    for (const auto& id : commits) {
      // Only what a walk can claim: full ids (anything else is never in the walk anyway).
      if (!is_full_hex(id)) continue;
      (alive.contains(id) ? c.alive : c.dead).insert(id);
    }
  });
  return alive;
}

bool GitReader::is_ancestor(const std::string& ancestor, const std::string& descendant) const {
  std::lock_guard lock(mutex_);
  Commit a(lookup_commit(ancestor));
  Commit d(lookup_commit(descendant));
  if (git_oid_equal(git_commit_id(a.get()), git_commit_id(d.get()))) return true;
  int rc = git_graph_descendant_of(repo(), git_commit_id(d.get()), git_commit_id(a.get()));
  if (rc < 0) fail("cannot compare " + ancestor + " and " + descendant);
  return rc == 1;
}

bool GitReader::is_dirty(const std::vector<std::string>& paths) const {
  std::lock_guard lock(mutex_);
  std::vector<char*> specs;
  for (const auto& p : paths) specs.push_back(const_cast<char*>(p.c_str()));
  git_status_options opts;  // not GIT_STATUS_OPTIONS_INIT: see git_abandon.cpp
  git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  opts.pathspec.strings = specs.data();
  opts.pathspec.count = specs.size();
  git_status_list* raw = nullptr;
  if (git_status_list_new(&raw, repo(), &opts) != 0) fail("cannot read the status of the working tree");
  StatusList list(raw);
  return git_status_list_entrycount(list.get()) > 0;
}

std::vector<std::string> GitReader::tracked(const std::vector<std::string>& paths) const {
  std::lock_guard lock(mutex_);
  // A plain repository's index is scanned in place (vcs/git_index.hpp); libgit2 answers
  // whatever the scan declines.
  if (layout_) {
    constexpr std::size_t kIndexLimit = std::size_t{1} << 30;
    std::string bytes;
    if (refs::read_small_file(layout_->gitdir / "index", kIndexLimit, bytes) == refs::ReadStatus::ok)
      if (auto answer = index::tracked_paths(bytes, paths)) return std::move(*answer);
  }
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo()) != 0) fail("cannot read the git index");
  Index index(raw);
  if (git_index_read(index.get(), 0) != 0) fail("cannot read the git index");
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::size_t pos = 0;
    std::string prefix = p.empty() ? p : p + "/";
    if (git_index_get_bypath(index.get(), p.c_str(), 0) != nullptr ||
        (git_index_find_prefix(&pos, index.get(), prefix.c_str()) == 0 && git_index_entrycount(index.get()) > 0))
      out.push_back(p);
  }
  return out;
}

// The index file's stat, never its content: the point is to skip reading it.
std::optional<VcsAdapter::IndexStamp> GitReader::index_stamp() const {
  std::lock_guard lock(mutex_);
  std::string path;
  if (layout_) {
    path = layout_->gitdir.string() + "/index";  // libgit2's item path: the gitdir's index
  } else {
    git_buf buf = GIT_BUF_INIT;
    if (git_repository_item_path(&buf, repo(), GIT_REPOSITORY_ITEM_INDEX) != 0) return std::nullopt;
    path.assign(buf.ptr, buf.size);
    git_buf_dispose(&buf);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto ns = [](const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; };
  VcsAdapter::IndexStamp stamp;
  stamp.id = path + " " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
             std::to_string(st.st_size) + " " + std::to_string(ns(st.st_mtim)) + " " + std::to_string(ns(st.st_ctim));
  stamp.changed_ns = std::max(ns(st.st_mtim), ns(st.st_ctim));
  return stamp;
}

CacheStats GitReader::cache_stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tether::vcs
