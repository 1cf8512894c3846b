// git_reader.cpp: libgit2 calls behind GitReader. Every libgit2 object is owned by a
// unique_ptr with its free function; errors become VcsError with libgit2's message.
#include "vcs/git_reader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "tether/errors.hpp"
#include "vcs/git2_util.hpp"

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

std::string without_trailing_slash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

GitReader::GitReader(const std::filesystem::path& start) {
  // libgit2 keeps global state; the reader holds one reference to it for its lifetime.
  static Library library;  // initialised once, before any handle; shut down at exit
  std::string where = start.string();
  int rc = git_repository_open_ext(&repo_, where.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND) throw VcsError("no git repository found at or above " + where);
  if (rc != 0) fail("cannot open the git repository at or above " + where);
  const char* workdir = git_repository_workdir(repo_);
  if (workdir == nullptr) {
    std::string path = git_repository_path(repo_);
    git_repository_free(repo_);
    repo_ = nullptr;
    throw VcsError("the git repository at " + path + " has no working tree; tether needs a checkout");
  }
  root_ = without_trailing_slash(workdir);
}

GitReader::~GitReader() { git_repository_free(repo_); }

std::filesystem::path GitReader::shared_dir() const {
  std::lock_guard lock(mutex_);
  return without_trailing_slash(git_repository_commondir(repo_));
}

git_commit* GitReader::lookup_commit(const std::string& rev) const {
  git_commit* commit = nullptr;
  if (is_full_hex(rev)) {
    git_oid oid;
    if (git_oid_fromstr(&oid, rev.c_str()) == 0 && git_commit_lookup(&commit, repo_, &oid) == 0) return commit;
  }
  git_object* raw = nullptr;
  // A leading '-' is never a revision; refusing it keeps option-like text out of lookups.
  if (rev.empty() || rev[0] == '-' || git_revparse_single(&raw, repo_, rev.c_str()) != 0)
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
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, repo_, "HEAD");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) return std::nullopt;
  if (rc != 0) fail("cannot read HEAD");
  return oid_hex(oid);
}

std::optional<std::string> GitReader::current_branch() const {
  std::lock_guard lock(mutex_);
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo_, "HEAD") != 0) fail("cannot read HEAD");
  Reference ref(raw);
  return branch_of_head(ref.get());
}

std::map<std::string, std::string> GitReader::branches() const {
  std::lock_guard lock(mutex_);
  git_branch_iterator* raw_it = nullptr;
  if (git_branch_iterator_new(&raw_it, repo_, GIT_BRANCH_LOCAL) != 0) fail("cannot list branches");
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

std::map<std::string, std::string> GitReader::tags() const {
  std::lock_guard lock(mutex_);
  git_reference_iterator* raw_it = nullptr;
  if (git_reference_iterator_glob_new(&raw_it, repo_, "refs/tags/*") != 0) fail("cannot list tags");
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

std::vector<Worktree> GitReader::worktrees() const {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::weakly_canonical(root_, ec);
  auto describe = [&](const std::filesystem::path& top, git_repository* repo) {
    Worktree w;
    std::error_code err;
    w.live = std::filesystem::is_directory(top, err);
    w.root = w.live ? std::filesystem::canonical(top, err) : top.lexically_normal();
    if (err) w.root = top.lexically_normal();
    w.current = w.live && w.root == here;
    git_reference* raw = nullptr;
    if (repo != nullptr && git_reference_lookup(&raw, repo, "HEAD") == 0) {
      Reference head(raw);
      w.branch = branch_of_head(head.get());
    }
    return w;
  };

  std::vector<Worktree> out;
  const std::string common = git_repository_commondir(repo_);
  if (!git_repository_is_worktree(repo_)) {
    out.push_back(describe(root_, repo_));
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
  if (git_worktree_list(&names, repo_) != 0) fail("cannot list the worktrees of " + common);
  for (std::size_t i = 0; i < names.count; ++i) {
    git_worktree* raw_wt = nullptr;
    if (git_worktree_lookup(&raw_wt, repo_, names.strings[i]) != 0) continue;
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
  if (git_blob_lookup(&raw, repo_, &oid) != 0) fail("cannot read blob " + oid_hex(oid));
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
  if (git_tree_lookup(&raw, repo_, &oid) != 0) fail("cannot read tree " + oid_hex(oid));
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
  if (git_reference_iterator_new(&raw_it, repo_) != 0) fail("cannot list references");
  RefIterator it(raw_it);
  git_reference* raw = nullptr;
  while (git_reference_next(&raw, it.get()) == 0) {
    Reference ref(raw);
    push_ref_head(walk, ref.get());
  }
  // HEAD of this checkout and of every other worktree, as `rev-list --all` does.
  git_reference* head = nullptr;
  if (git_repository_head(&head, repo_) == 0) {
    Reference ref(head);
    push_ref_head(walk, ref.get());
  }
  git_strarray names{};
  if (git_worktree_list(&names, repo_) == 0) {
    for (std::size_t i = 0; i < names.count; ++i) {
      git_reference* wt_head = nullptr;
      if (git_repository_head_for_worktree(&wt_head, repo_, names.strings[i]) == 0) {
        // The returned ref outlives the worktree repository it came from: use only its id.
        Reference ref(wt_head);
        if (const git_oid* id = git_reference_target(ref.get())) git_revwalk_push(walk, id);
      }
    }
    git_strarray_dispose(&names);
  }
  if (git_repository_is_worktree(repo_)) {
    git_repository* main_raw = nullptr;
    if (git_repository_open(&main_raw, git_repository_commondir(repo_)) == 0) {
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
  if (git_revwalk_new(&raw, repo_) != 0) fail("cannot walk history");
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
    if (git_commit_lookup(&raw_commit, repo_, &oid) != 0) fail("cannot read commit " + oid_hex(oid));
    Commit c(raw_commit);
    if (!query.paths.empty() && !touches(c.get(), query.paths)) continue;
    out.push_back(commit_info(c.get()));
  }
  return out;
}

std::vector<std::string> GitReader::all_commit_ids() const {
  std::lock_guard lock(mutex_);
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, repo_) != 0) fail("cannot walk history");
  Revwalk walk(raw);
  push_all_tips(walk.get());
  std::vector<std::string> out;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) out.push_back(oid_hex(oid));
  return out;
}

bool GitReader::is_ancestor(const std::string& ancestor, const std::string& descendant) const {
  std::lock_guard lock(mutex_);
  Commit a(lookup_commit(ancestor));
  Commit d(lookup_commit(descendant));
  if (git_oid_equal(git_commit_id(a.get()), git_commit_id(d.get()))) return true;
  int rc = git_graph_descendant_of(repo_, git_commit_id(d.get()), git_commit_id(a.get()));
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
  if (git_status_list_new(&raw, repo_, &opts) != 0) fail("cannot read the status of the working tree");
  StatusList list(raw);
  return git_status_list_entrycount(list.get()) > 0;
}

std::vector<std::string> GitReader::tracked(const std::vector<std::string>& paths) const {
  std::lock_guard lock(mutex_);
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo_) != 0) fail("cannot read the git index");
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
  git_buf buf = GIT_BUF_INIT;
  if (git_repository_item_path(&buf, repo_, GIT_REPOSITORY_ITEM_INDEX) != 0) return std::nullopt;
  std::string path(buf.ptr, buf.size);
  git_buf_dispose(&buf);
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
