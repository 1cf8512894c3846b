// git_rewrite.cpp: GitAdapter::rewrite_history (docs/ARCHITECTURE.md#the-vcs), rewriting the
// files under one directory in every commit of the repository's branches (`tether upgrade`).
//
// Everything is written to the object database first, in-process: each commit, parents
// first, gets its tree with the rewritten blobs put in place (git_tree_create_updated), and is
// committed anew with its author, committer and message when its tree or a parent changed.
// Only then do refs move: the other branches in one `git update-ref --stdin` transaction
// (compare-and-swap on their old ids) and the checked-out one with `git reset --keep`, so a
// failure before that leaves the repository as it was.
#include <git2.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tether/errors.hpp"
#include "vcs/git2_util.hpp"
#include "vcs/git_adapter.hpp"

namespace tether::vcs {
namespace {

using namespace git2;

std::string short_id(const std::string& id) { return id.substr(0, 12); }

// Rewrites the history in the object database; refs are the caller's business.
class Rewriter {
 public:
  Rewriter(git_repository* repo, std::string dir, const RewriteFn& transform)
      : repo_(repo), dir_(std::move(dir)), transform_(transform) {}

  void run(const std::vector<std::string>& tips) {
    git_revwalk* raw_walk = nullptr;
    if (git_revwalk_new(&raw_walk, repo_) != 0) fail("cannot walk history");
    Revwalk walk(raw_walk);
    git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    for (const auto& t : tips) {
      git_oid oid = parse_oid(t);
      if (git_revwalk_push(walk.get(), &oid) != 0) fail("cannot walk history from " + short_id(t));
    }
    git_oid oid;
    while (git_revwalk_next(&oid, walk.get()) == 0) rewrite_commit(oid);
  }

  std::string mapped(const std::string& id) const {
    auto it = rewritten_.find(id);
    return it == rewritten_.end() ? id : it->second;
  }
  const std::map<std::string, std::string>& rewritten() const { return rewritten_; }

 private:
  void rewrite_commit(const git_oid& oid) {
    git_commit* raw = nullptr;
    if (git_commit_lookup(&raw, repo_, &oid) != 0) fail("cannot read commit " + oid_hex(oid));
    Commit commit(raw);
    bool changed = false;
    std::vector<Commit> parents;
    for (unsigned i = 0, n = git_commit_parentcount(commit.get()); i < n; ++i) {
      const std::string p = oid_hex(*git_commit_parent_id(commit.get(), i));
      const std::string np = mapped(p);
      changed = changed || np != p;
      git_commit* rawp = nullptr;
      git_oid poid = parse_oid(np);
      if (git_commit_lookup(&rawp, repo_, &poid) != 0) fail("cannot read commit " + np);
      parents.emplace_back(rawp);
    }
    git_tree* raw_tree = nullptr;
    if (git_commit_tree(&raw_tree, commit.get()) != 0) fail("cannot read the tree of " + oid_hex(oid));
    Tree tree(raw_tree);
    const git_oid new_tree_id = rewritten_tree(tree.get());
    if (!changed && git_oid_equal(&new_tree_id, git_tree_id(tree.get()))) return;
    git_tree* raw_new = nullptr;
    if (git_tree_lookup(&raw_new, repo_, &new_tree_id) != 0) fail("cannot read the rewritten tree");
    Tree new_tree(raw_new);
    std::vector<const git_commit*> ptrs;
    for (const auto& p : parents) ptrs.push_back(p.get());
    git_oid out;
    if (git_commit_create(&out, repo_, nullptr, git_commit_author(commit.get()), git_commit_committer(commit.get()),
                          git_commit_message_encoding(commit.get()), git_commit_message_raw(commit.get()),
                          new_tree.get(), ptrs.size(), ptrs.data()) != 0)
      fail("cannot write the rewritten commit of " + short_id(oid_hex(oid)));
    rewritten_[oid_hex(oid)] = oid_hex(out);
  }

  struct Blob {
    std::string path;  // under dir_, from the repository root
    git_oid id;
    git_filemode_t mode;
  };

  // The tree with every blob under dir_ rewritten (the same id when nothing changed).
  git_oid rewritten_tree(git_tree* root) {
    const git_oid same = *git_tree_id(root);
    if (auto done = trees_.find(oid_hex(same)); done != trees_.end()) return parse_oid(done->second);
    git_oid result = same;
    git_tree_entry* raw_entry = nullptr;
    if (git_tree_entry_bypath(&raw_entry, root, dir_.c_str()) == 0) {
      TreeEntry entry(raw_entry);
      if (git_tree_entry_type(entry.get()) == GIT_OBJECT_TREE) {
        git_tree* raw_sub = nullptr;
        if (git_tree_lookup(&raw_sub, repo_, git_tree_entry_id(entry.get())) != 0) fail("cannot read " + dir_);
        Tree sub(raw_sub);
        std::vector<git_tree_update> updates;
        std::vector<std::string> paths;  // what updates point into
        std::vector<Blob> blobs = blobs_of(sub.get());
        paths.reserve(blobs.size());
        for (const auto& b : blobs) {
          auto fresh = rewritten_blob(b);
          if (!fresh) continue;
          paths.push_back(b.path);
          git_tree_update u{};
          u.action = GIT_TREE_UPDATE_UPSERT;
          u.id = *fresh;
          u.filemode = b.mode;
          updates.push_back(u);
        }
        for (std::size_t i = 0; i < updates.size(); ++i) updates[i].path = paths[i].c_str();
        if (!updates.empty() && git_tree_create_updated(&result, repo_, root, updates.size(), updates.data()) != 0)
          fail("cannot write the rewritten tree");
      }
    }
    trees_[oid_hex(same)] = oid_hex(result);
    return result;
  }

  std::vector<Blob> blobs_of(git_tree* sub) {
    struct Walk {
      const std::string* dir;
      std::vector<Blob> out;
    } w{&dir_, {}};
    auto cb = [](const char* root, const git_tree_entry* e, void* payload) -> int {
      auto* walk = static_cast<Walk*>(payload);
      if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) return 0;
      const git_filemode_t mode = git_tree_entry_filemode(e);
      if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return 0;  // a symlink is no manifest
      walk->out.push_back({*walk->dir + "/" + root + git_tree_entry_name(e), *git_tree_entry_id(e), mode});
      return 0;
    };
    if (git_tree_walk(sub, GIT_TREEWALK_PRE, cb, &w) != 0) fail("cannot read " + dir_);
    return std::move(w.out);
  }

  // The rewritten blob's id, or nullopt when the transform keeps the text.
  std::optional<git_oid> rewritten_blob(const Blob& b) {
    const std::string memo = b.path + "\n" + oid_hex(b.id);
    if (auto it = blobs_.find(memo); it != blobs_.end()) {
      if (!it->second) return std::nullopt;
      return parse_oid(*it->second);
    }
    git_blob* raw = nullptr;
    if (git_blob_lookup(&raw, repo_, &b.id) != 0) fail("cannot read " + b.path);
    git2::Blob blob(raw);
    const std::string text(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                           static_cast<std::size_t>(git_blob_rawsize(blob.get())));
    std::optional<std::string> fresh = transform_(b.path, text);
    if (!fresh || *fresh == text) {
      blobs_[memo] = std::nullopt;
      return std::nullopt;
    }
    git_oid id;
    if (git_blob_create_from_buffer(&id, repo_, fresh->data(), fresh->size()) != 0) fail("cannot write " + b.path);
    blobs_[memo] = oid_hex(id);
    return id;
  }

  git_repository* repo_;
  std::string dir_;
  const RewriteFn& transform_;
  std::map<std::string, std::string> rewritten_;                   // commit -> rewritten commit
  std::map<std::string, std::string> trees_;                       // root tree -> rewritten root tree
  std::map<std::string, std::optional<std::string>> blobs_;        // path + blob -> rewritten blob
};

}  // namespace

std::map<std::string, std::string> GitAdapter::rewrite_history(const std::string& dir_in, const RewriteFn& transform) {
  std::string dir = dir_in;
  while (dir.rfind("./", 0) == 0) dir.erase(0, 2);
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  if (dir.empty() || dir == ".") throw VcsError("git: rewrite_history needs a directory below the repository root");

  // Only files under dir change between a commit and its rewrite, so reset --keep carries
  // every other local change along; under dir, the tree must be clean.
  support::ProcessResult status = git_.run({"status", "--porcelain", "--untracked-files=no", "--", dir});
  if (!status.out.empty()) throw VcsError("git: commit or stash your changes under " + dir + " before rewriting history");

  const std::optional<std::string> head = reader_.head();
  const auto branches = reader_.branches();
  std::vector<std::string> tips;
  for (const auto& [b, at] : branches) tips.push_back(at);
  if (head) tips.push_back(*head);

  std::map<std::string, std::string> rewritten;
  std::string new_head;
  reader_.with_repository([&](git_repository* repo) {
    Rewriter rw(repo, dir, transform);
    rw.run(tips);
    rewritten = rw.rewritten();
    if (head) new_head = rw.mapped(*head);
  });
  if (rewritten.empty()) return rewritten;

  move_onto_rewritten(rewritten, head, new_head, "rewriting history");
  return rewritten;
}

}  // namespace tether::vcs
