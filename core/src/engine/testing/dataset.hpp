// engine/testing/dataset.hpp (tests only): a real dataset for the engine's unit tests. A git
// repository with one commit in a scratch directory, `tether init` run in it, and Repos
// opened on it with the in-memory reference backend linked into the test process
// (PluginHost::add_builtin), its store a file in the scratch directory. Nothing is mocked:
// the git repository, the manifests, the op log and the store are the ones the CLI would use;
// only the process boundary is gone, so a test runs in milliseconds and under the sanitizers.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/commit.hpp"
#include "tether/engine/objects.hpp"
#include "tether/engine/repo.hpp"
#include "tether/testing/temp_dir.hpp"

namespace tether::engine::testing {

class Dataset {
 public:
  Dataset();
  ~Dataset();

  const std::filesystem::path& root() const { return root_; }
  // A Repo over the dataset (as `tether` opens one per command); `services.host` is replaced
  // by a host holding the memory backend.
  std::unique_ptr<Repo> open(Services services = {}) const { return open_at(root_, std::move(services)); }
  // The same in another checkout of the repository (a linked worktree).
  std::unique_ptr<Repo> open_at(const std::filesystem::path& dir, Services services = {}) const;
  const std::filesystem::path& scratch() const { return tmp_.path(); }
  // `git ARGS` in the dataset; stdout without the trailing newline.
  std::string git(const std::vector<std::string>& args) const;
  std::string head() const { return git({"rev-parse", "HEAD"}); }
  // `tether commit -m MESSAGE` on a freshly opened Repo.
  CommitResult commit(const std::string& message, Services services = {}) const;
  // Registers memory object `key` over system `system` (nothing is contacted).
  void add_memory(const std::string& key, const std::string& system) const;
  // A new snapshot on `branch` of `system`, as another writer would make it; its id. Without
  // `key` it holds a fresh payload; with it, the branch head's payload plus `key` (so writes of
  // different keys merge cleanly). The branch must exist.
  std::string advance(const std::string& system, const std::string& branch = "main",
                      const std::string& key = "") const;
  // Deletes a tag / a branch of `system` by hand, as a store's own tools would.
  void untag(const std::string& system, const std::string& tag) const;
  void delete_branch(const std::string& system, const std::string& branch) const;
  void delete_system(const std::string& system) const;
  // Which snapshot each tag and branch of `system` names.
  std::map<std::string, std::string> tags(const std::string& system) const;
  std::map<std::string, std::string> branches(const std::string& system) const;
  // The dataset's op log, one JSON text per line.
  std::vector<std::string> op_log() const;
  std::string read(const std::string& rel) const;
  std::filesystem::path store_file() const { return tmp_.path() / "memory-store.json"; }

 private:
  tether::testing::TempDir tmp_;
  std::filesystem::path root_;
};

}  // namespace tether::engine::testing
