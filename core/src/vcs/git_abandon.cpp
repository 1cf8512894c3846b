// git_abandon.cpp: GitAdapter::abandon (docs/ARCHITECTURE.md#the-vcs), removing commits from
// the checked-out history.
//
// The replay happens in-process instead of through `git rebase`, so a failure leaves no
// rebase state, no half-moved branch and no touched file behind: every descendant of an
// abandoned commit (parents first) gets its tree by applying, for each parent that changed,
// the difference old parent -> new parent onto its own tree (a three-way merge, libgit2),
// then its `keep_dir` subtree put back exactly as it was (manifests are snapshots, not
// patches); it is committed with its original author, committer and message. Only objects
// are written until the whole new history exists; then the other branches move in one
// `git update-ref --stdin` transaction and the checked-out one with `git reset --keep`
// (the tree is clean), both compare-and-swap on the old ids.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tether/errors.hpp"
#include "vcs/git2_util.hpp"
#include "vcs/git_adapter.hpp"

namespace tether::vcs {
namespace {

using namespace git2;

std::string short_id(const std::string& id) { return id.substr(0, 12); }

// keep_dir as a tree path: no "./", no trailing '/', "." = the whole tree.
std::string normalized_dir(std::string dir) {
  while (dir.starts_with("./")) dir.erase(0, 2);
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  return dir == "." ? "" : dir;
}

bool is_under(const std::string& path, const std::string& dir) {
  return dir.empty() || path == dir || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Builds the rewritten history in the object database; refs are the caller's business.
class Replayer {
 public:
  Replayer(git_repository* repo, std::string keep_dir) : repo_(repo), keep_dir_(std::move(keep_dir)) {}

  // Walks everything reachable from `head` and not from `bottoms`, parents first, dropping
  // `abandoned` and rewriting their descendants. Fills `replaced` (every commit whose id
  // changed or that was dropped -> what takes its place) and `rewritten` (the new commits).
  void run(const std::string& head, const std::set<std::string>& abandoned, const std::set<std::string>& bottoms) {
    git_revwalk* raw_walk = nullptr;
    if (git_revwalk_new(&raw_walk, repo_) != 0) fail("cannot walk history");
    Revwalk walk(raw_walk);
    git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    git_oid head_oid = parse_oid(head);
    if (git_revwalk_push(walk.get(), &head_oid) != 0) fail("cannot walk history from " + short_id(head));
    for (const auto& b : bottoms) {
      git_oid oid = parse_oid(b);
      if (git_revwalk_hide(walk.get(), &oid) != 0) fail("cannot walk history from " + short_id(head));
    }
    git_oid oid;
    while (git_revwalk_next(&oid, walk.get()) == 0) {
      Commit commit = lookup(oid);
      const std::string id = oid_hex(oid);
      const unsigned n = git_commit_parentcount(commit.get());
      if (abandoned.contains(id)) {
        // Its children go onto its first parent (or what replaced that parent).
        replaced_[id] = mapped(oid_hex(*git_commit_parent_id(commit.get(), 0)));
        continue;
      }
      std::vector<std::string> parents, new_parents;
      std::vector<std::pair<std::string, std::string>> moves;  // old parent -> new parent
      for (unsigned i = 0; i < n; ++i) {
        std::string p = oid_hex(*git_commit_parent_id(commit.get(), i));
        std::string np = mapped(p);
        if (np != p) moves.emplace_back(p, np);
        parents.push_back(p);
        // A merge whose two sides now land on the same commit keeps that parent once.
        if (std::find(new_parents.begin(), new_parents.end(), np) == new_parents.end()) new_parents.push_back(np);
      }
      if (moves.empty()) continue;  // not a descendant of an abandoned commit
      git_oid tree = replay_tree(commit.get(), moves);
      std::string fresh = create_commit(commit.get(), tree, new_parents);
      replaced_[id] = fresh;
      rewritten_[id] = fresh;
    }
  }

  std::string mapped(const std::string& id) const {
    auto it = replaced_.find(id);
    return it == replaced_.end() ? id : it->second;
  }
  const std::map<std::string, std::string>& rewritten() const { return rewritten_; }

 private:
  Commit lookup(const git_oid& oid) const {
    git_commit* raw = nullptr;
    if (git_commit_lookup(&raw, repo_, &oid) != 0) fail("cannot read commit " + oid_hex(oid));
    return Commit(raw);
  }
  Commit lookup(const std::string& id) const { return lookup(parse_oid(id)); }

  Tree tree(const git_oid& oid) const {
    git_tree* raw = nullptr;
    if (git_tree_lookup(&raw, repo_, &oid) != 0) fail("cannot read tree " + oid_hex(oid));
    return Tree(raw);
  }

  // `commit`'s tree with each parent move applied, under keep_dir what it held before.
  git_oid replay_tree(const git_commit* commit, const std::vector<std::pair<std::string, std::string>>& moves) const {
    git_oid result = *git_commit_tree_id(commit);
    if (keep_dir_.empty()) return result;  // the whole tree is the snapshot
    for (const auto& [old_parent, new_parent] : moves) {
      git_oid base_id = *git_commit_tree_id(lookup(old_parent).get());
      git_oid theirs_id = *git_commit_tree_id(lookup(new_parent).get());
      if (git_oid_equal(&base_id, &theirs_id)) continue;
      Tree base = tree(base_id), ours = tree(result), theirs = tree(theirs_id);
      // The init function, not GIT_MERGE_OPTIONS_INIT: the macro leaves fields to zero-fill,
      // which clang's -Wmissing-field-initializers (the fuzz build, -Werror) rejects.
      git_merge_options opts;
      git_merge_options_init(&opts, GIT_MERGE_OPTIONS_VERSION);
      git_index* raw_index = nullptr;
      if (git_merge_trees(&raw_index, repo_, base.get(), ours.get(), theirs.get(), &opts) != 0)
        fail("cannot replay commit " + short_id(oid_hex(*git_commit_id(commit))));
      Index index(raw_index);
      resolve_conflicts(index.get());
      put_back_keep_dir(index.get(), commit);
      if (git_index_write_tree_to(&result, index.get(), repo_) != 0)
        fail("cannot write the replayed tree of " + short_id(oid_hex(*git_commit_id(commit))));
    }
    return result;
  }

  // Conflicts inside keep_dir go (the snapshot replaces them); any other aborts.
  void resolve_conflicts(git_index* index) const {
    if (!git_index_has_conflicts(index)) return;
    git_index_conflict_iterator* raw_it = nullptr;
    if (git_index_conflict_iterator_new(&raw_it, index) != 0) fail("cannot read merge conflicts");
    ConflictIterator it(raw_it);
    std::set<std::string> inside, outside;
    const git_index_entry* sides[3] = {nullptr, nullptr, nullptr};
    while (git_index_conflict_next(&sides[0], &sides[1], &sides[2], it.get()) == 0) {
      for (const git_index_entry* e : sides)
        if (e != nullptr) (is_under(e->path, keep_dir_) ? inside : outside).insert(e->path);
    }
    it.reset();
    if (!outside.empty())
      throw VcsError("git: abandoning conflicts outside the dataset (" + joined(outside) + "); resolve by hand");
    for (const auto& path : inside) git_index_conflict_remove(index, path.c_str());
  }

  // Replaces whatever the merge left under keep_dir with `commit`'s own entries there.
  void put_back_keep_dir(git_index* index, const git_commit* commit) const {
    git_index_remove_directory(index, keep_dir_.c_str(), 0);
    git_index_remove(index, keep_dir_.c_str(), 0);  // keep_dir as a file; absent is fine
    Tree original = tree(*git_commit_tree_id(commit));
    git_tree_entry* raw_entry = nullptr;
    if (git_tree_entry_bypath(&raw_entry, original.get(), keep_dir_.c_str()) != 0) return;  // it had none
    TreeEntry entry(raw_entry);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) {
      add_entry(index, keep_dir_, git_tree_entry_filemode(entry.get()), *git_tree_entry_id(entry.get()));
      return;
    }
    Tree sub = tree(*git_tree_entry_id(entry.get()));
    struct Walk {
      const Replayer* self;
      git_index* index;
    } walk{this, index};
    auto visit = [](const char* root, const git_tree_entry* e, void* payload) -> int {
      auto* w = static_cast<Walk*>(payload);
      if (git_tree_entry_type(e) == GIT_OBJECT_TREE) return 0;  // descend
      w->self->add_entry(w->index, w->self->keep_dir_ + "/" + root + git_tree_entry_name(e),
                         git_tree_entry_filemode(e), *git_tree_entry_id(e));
      return 0;
    };
    if (git_tree_walk(sub.get(), GIT_TREEWALK_PRE, visit, &walk) != 0)
      fail("cannot read " + keep_dir_ + " of commit " + short_id(oid_hex(*git_commit_id(commit))));
  }

  void add_entry(git_index* index, const std::string& path, git_filemode_t mode, const git_oid& id) const {
    git_index_entry e{};
    e.mode = static_cast<std::uint32_t>(mode);
    e.id = id;
    e.path = path.c_str();
    if (git_index_add(index, &e) != 0) fail("cannot stage " + path + " for the replayed commit");
  }

  std::string create_commit(const git_commit* original, const git_oid& tree_id, const std::vector<std::string>& parents) {
    Tree new_tree = tree(tree_id);
    std::vector<Commit> owned;
    std::vector<const git_commit*> ptrs;
    for (const auto& p : parents) {
      owned.push_back(lookup(p));
      ptrs.push_back(owned.back().get());
    }
    git_oid out;
    if (git_commit_create(&out, repo_, nullptr, git_commit_author(original), git_commit_committer(original),
                          git_commit_message_encoding(original), git_commit_message_raw(original), new_tree.get(),
                          ptrs.size(), ptrs.data()) != 0)
      fail("cannot write the replayed commit of " + short_id(oid_hex(*git_commit_id(original))));
    return oid_hex(out);
  }

  git_repository* repo_;
  std::string keep_dir_;
  std::map<std::string, std::string> replaced_;
  std::map<std::string, std::string> rewritten_;
};

// `update-ref --stdin` lines moving each ref from -> to (compare-and-swap on from).
std::string ref_updates(const std::map<std::string, std::pair<std::string, std::string>>& moves, bool back) {
  std::string lines;
  for (const auto& [branch, ids] : moves) {
    const auto& [from, to] = ids;
    lines += "update refs/heads/" + branch + " " + (back ? from : to) + " " + (back ? to : from) + "\n";
  }
  return lines;
}

}  // namespace

void GitAdapter::move_onto_rewritten(const std::map<std::string, std::string>& rewritten,
                                     const std::optional<std::string>& head, const std::string& new_head,
                                     const std::string& what) {
  // Branches to carry along: every other local branch at a rewritten commit. One checked
  // out in another worktree would leave that checkout's index and files behind: refused.
  const std::optional<std::string> here = reader_.current_branch();
  std::map<std::string, std::pair<std::string, std::string>> moves;  // branch -> (old, new)
  for (const auto& [branch, at] : reader_.branches()) {
    auto it = rewritten.find(at);
    if (it == rewritten.end() || branch == here) continue;
    moves[branch] = {at, it->second};
  }
  for (const Worktree& wt : reader_.worktrees()) {
    if (wt.current || !wt.branch || !moves.contains(*wt.branch)) continue;
    throw VcsError("git: branch '" + *wt.branch + "' at " + short_id(moves[*wt.branch].first) +
                   " is checked out in the worktree at " + wt.root.string() + "; " + what +
                   " would rewrite it under that checkout");
  }
  if (!moves.empty()) git_.run({"update-ref", "-m", "tether: " + what, "--stdin"}, true, ref_updates(moves, false));
  try {
    // reset has no compare-and-swap: check HEAD first (a commit racing in between is not caught).
    if (head && new_head != *head) {
      if (auto now = reader_.head(); now != head)
        throw VcsError("git: HEAD moved while " + what + " (expected " + short_id(*head) + ", found " +
                       (now ? short_id(*now) : std::string("no commit")) + ")");
      git_.run({"reset", "--quiet", "--keep", new_head, "--"});
    }
  } catch (const VcsError&) {
    if (!moves.empty()) git_.run({"update-ref", "-m", "tether: " + what + " (undone)", "--stdin"}, false, ref_updates(moves, true));
    throw;
  }
}

AbandonResult GitAdapter::abandon(const std::vector<std::string>& revs, const std::string& keep_dir_in) {
  AbandonResult result;
  if (revs.empty()) return result;
  const std::string keep_dir = normalized_dir(keep_dir_in);

  // Clean under what git tracks: reset --keep below must not carry anything.
  support::ProcessResult status = git_.run({"status", "--porcelain", "--untracked-files=no"});
  if (!status.out.empty()) throw VcsError("git: commit or stash your changes before abandoning");

  const std::optional<std::string> head = reader_.head();
  std::set<std::string> abandoned;
  std::vector<std::string> all_parents;
  for (const auto& rev : revs) {
    std::string id = reader_.resolve(rev);
    if (!head || !reader_.is_ancestor(id, *head))
      throw VcsError("git: " + short_id(id) +
                     " is not on the current branch; tether can only abandon commits of the checked-out history");
    HistoryQuery one;
    one.rev = id;
    one.limit = 1;
    const std::vector<std::string> parents = reader_.history(one).at(0).parents;
    if (parents.empty()) throw VcsError("git: cannot abandon the root commit " + short_id(id));
    if (!abandoned.insert(id).second) continue;
    result.abandoned.push_back(id);
    all_parents.insert(all_parents.end(), parents.begin(), parents.end());
  }
  // Where the walk stops: parents that descend from no abandoned commit (nothing behind them
  // changes). A parent that does descend from one is itself rewritten and must be walked.
  std::set<std::string> bottoms;
  for (const auto& p : all_parents) {
    bool descends = std::any_of(abandoned.begin(), abandoned.end(), [&](const std::string& a) {
      return reader_.is_ancestor(a, p);
    });
    if (!descends) bottoms.insert(p);
  }

  std::string new_head;
  reader_.with_repository([&](git_repository* repo) {
    Replayer replayer(repo, keep_dir);
    replayer.run(*head, abandoned, bottoms);
    result.rewritten = replayer.rewritten();
    new_head = replayer.mapped(*head);
  });

  move_onto_rewritten(result.rewritten, head, new_head, "abandoning");
  return result;
}

}  // namespace tether::vcs
