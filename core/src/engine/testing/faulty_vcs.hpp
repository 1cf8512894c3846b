// engine/testing/faulty_vcs.hpp (tests only): the real VCS adapter with one step made to fail.
// A test names a step ("commit", "bookmark_set", ...) and FaultyVcs throws VcsError there
// instead of calling git; every other call goes to the real adapter unchanged, so what the
// engine did before the fault is real and what it must roll back is really there.
#pragma once

#include <memory>
#include <string>

#include "tether/vcs/vcs.hpp"

namespace tether::engine::testing {

class FaultyVcs final : public vcs::VcsAdapter {
 public:
  // `fail_at`: the method name that throws; `after`: how many calls of it succeed first.
  FaultyVcs(std::unique_ptr<vcs::VcsAdapter> real, std::string fail_at, int after = 0)
      : real_(std::move(real)), fail_at_(std::move(fail_at)), after_(after) {}

  // How many times the failing step was reached (calls that failed included).
  int reached() const { return reached_; }

  // Reads go to the real adapter unchanged.
  std::string kind() const override { return real_->kind(); }
  std::filesystem::path root() const override { return real_->root(); }
  std::string rel() const override { return real_->rel(); }
  std::filesystem::path shared_dir() const override { return real_->shared_dir(); }
  std::string resolve(const std::string& rev) const override { return real_->resolve(rev); }
  std::optional<std::string> head() const override { return real_->head(); }
  std::optional<std::string> current_branch() const override { return real_->current_branch(); }
  std::map<std::string, std::string> branches() const override { return real_->branches(); }
  std::map<std::string, std::string> tags() const override { return real_->tags(); }
  std::vector<std::string> remote_counterparts(const std::string& name) const override {
    return real_->remote_counterparts(name);
  }
  std::optional<std::string> read_file(const std::string& rev, const std::string& path) const override {
    return real_->read_file(rev, path);
  }
  std::shared_ptr<const vcs::FileMap> manifests_at(const std::string& rev, const std::string& dir) const override {
    return real_->manifests_at(rev, dir);
  }
  std::vector<vcs::CommitInfo> history(const vcs::HistoryQuery& query) const override { return real_->history(query); }
  std::vector<std::string> all_commit_ids() const override { return real_->all_commit_ids(); }
  std::optional<std::string> tips_key() const override { return real_->tips_key(); }
  bool is_ancestor(const std::string& a, const std::string& d) const override { return real_->is_ancestor(a, d); }
  std::vector<std::string> exclusive_commits(const std::string& name) const override {
    return real_->exclusive_commits(name);
  }
  std::vector<std::filesystem::path> workspace_roots() const override { return real_->workspace_roots(); }
  bool is_dirty(const std::vector<std::string>& paths) const override { return real_->is_dirty(paths); }
  std::vector<std::string> tracked(const std::vector<std::string>& paths) const override {
    return real_->tracked(paths);
  }
  std::optional<IndexStamp> index_stamp() const override { return real_->index_stamp(); }

  // Every write is a step a test can make fail.
  std::optional<std::string> commit(const std::vector<std::string>& paths, const std::string& message) override {
    step("commit");
    return real_->commit(paths, message);
  }
  void create_branch_and_switch(const std::string& name) override {
    step("create_branch_and_switch");
    real_->create_branch_and_switch(name);
  }
  void new_bookmark(const std::string& name, const std::optional<std::string>& rev) override {
    step("new_bookmark");
    real_->new_bookmark(name, rev);
  }
  void switch_to(const std::string& rev) override {
    step("switch_to");
    real_->switch_to(rev);
  }
  void bookmark_set(const std::string& name, const std::string& commit, const std::string& expected) override {
    step("bookmark_set");
    real_->bookmark_set(name, commit, expected);
  }
  void delete_bookmark(const std::string& name, const std::string& expected) override {
    step("delete_bookmark");
    real_->delete_bookmark(name, expected);
  }
  std::optional<std::string> forget_workspace(const std::filesystem::path& root) override {
    step("forget_workspace");
    return real_->forget_workspace(root);
  }
  bool uncommit(const std::string& commit) override {
    step("uncommit");
    return real_->uncommit(commit);
  }
  std::map<std::string, std::string> rewrite_history(const std::string& dir, const vcs::RewriteFn& transform) override {
    step("rewrite_history");
    return real_->rewrite_history(dir, transform);
  }
  vcs::AbandonResult abandon(const std::vector<std::string>& revs, const std::string& keep_dir) override {
    step("abandon");
    return real_->abandon(revs, keep_dir);
  }

 private:
  void step(const char* name);

  std::unique_ptr<vcs::VcsAdapter> real_;
  std::string fail_at_;
  int after_;
  int reached_ = 0;
};

}  // namespace tether::engine::testing
