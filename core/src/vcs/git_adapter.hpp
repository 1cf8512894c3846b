// vcs/git_adapter.hpp: VcsAdapter for git. Reads go through libgit2 in-process (GitReader),
// writes through the user's `git` executable (GitCommand) so hooks, signing and identity
// apply to the commits tether makes.
#pragma once

#include <filesystem>
#include <string>

#include "tether/vcs/vcs.hpp"
#include "vcs/git_command.hpp"
#include "vcs/git_reader.hpp"

namespace tether::vcs {

class GitAdapter : public VcsAdapter {
 public:
  // Opens the working tree containing `dataset_root`; see detect_vcs().
  GitAdapter(const std::filesystem::path& dataset_root, const std::string& git_executable);

  std::string kind() const override { return "git"; }
  std::filesystem::path root() const override { return reader_.root(); }
  std::string rel() const override { return rel_; }
  std::filesystem::path shared_dir() const override { return reader_.shared_dir(); }

  std::string resolve(const std::string& rev) const override { return reader_.resolve(rev); }
  std::optional<std::string> head() const override { return reader_.head(); }
  std::optional<std::string> current_branch() const override { return reader_.current_branch(); }
  std::map<std::string, std::string> branches() const override { return reader_.branches(); }
  std::map<std::string, std::string> tags() const override { return reader_.tags(); }
  std::vector<std::string> remote_counterparts(const std::string& name) const override;
  std::optional<std::string> read_file(const std::string& rev, const std::string& path) const override {
    return reader_.read_file(rev, path);
  }
  std::shared_ptr<const FileMap> manifests_at(const std::string& rev, const std::string& dir) const override {
    return reader_.files_at(rev, dir);
  }
  std::vector<CommitInfo> history(const HistoryQuery& query) const override { return reader_.history(query); }
  std::vector<std::string> all_commit_ids() const override { return reader_.all_commit_ids(); }
  std::optional<std::string> tips_key() const override { return reader_.tips_key(); }
  std::set<std::string> alive_commits(const std::vector<std::string>& commits) const override {
    return reader_.alive_commits(commits);
  }
  bool is_ancestor(const std::string& ancestor, const std::string& descendant) const override {
    return reader_.is_ancestor(ancestor, descendant);
  }
  std::vector<std::string> exclusive_commits(const std::string& name) const override;
  std::vector<std::filesystem::path> workspace_roots() const override;
  bool is_dirty(const std::vector<std::string>& paths) const override { return reader_.is_dirty(paths); }
  std::vector<std::string> tracked(const std::vector<std::string>& paths) const override {
    return reader_.tracked(paths);
  }
  std::optional<IndexStamp> index_stamp() const override { return reader_.index_stamp(); }

  std::optional<std::string> commit(const std::vector<std::string>& paths, const std::string& message) override;
  void create_branch_and_switch(const std::string& name) override;
  void new_bookmark(const std::string& name, const std::optional<std::string>& rev) override;
  void switch_to(const std::string& rev) override;
  void bookmark_set(const std::string& name, const std::string& commit, const std::string& expected) override;
  void delete_bookmark(const std::string& name, const std::string& expected) override;
  std::optional<std::string> forget_workspace(const std::filesystem::path& root) override;
  bool uncommit(const std::string& commit) override;
  AbandonResult abandon(const std::vector<std::string>& revs, const std::string& keep_dir) override;
  std::map<std::string, std::string> rewrite_history(const std::string& dir, const RewriteFn& transform) override;

  // How much the history caches saved; for tests and benchmarks.
  CacheStats cache_stats() const { return reader_.cache_stats(); }
  const GitCommand& git() const { return git_; }

 private:
  // After a history rewrite (abandon, rewrite_history): every local branch other than the
  // checked-out one that points at a key of `rewritten` moves to its value in one
  // compare-and-swap transaction (refused, moving nothing, when such a branch is checked out
  // in another worktree: `what` names the operation), then HEAD from `head` to `new_head`
  // with `reset --keep`; if that fails the branches move back.
  void move_onto_rewritten(const std::map<std::string, std::string>& rewritten, const std::optional<std::string>& head,
                           const std::string& new_head, const std::string& what);

  GitReader reader_;
  GitCommand git_;
  std::string rel_;
};

}  // namespace tether::vcs
