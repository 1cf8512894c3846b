// core/src/engine/init.cpp: `tether init` (docs/cli.md#init): make a directory of a git working
// tree a dataset, adopting the checked-out branch as the trunk.
#include "tether/engine/repo.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine/internal.hpp"
#include "tether/engine/init.hpp"
#include "tether/engine/status.hpp"
#include "tether/errors.hpp"
#include "tether/host/load_error.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/gitignore.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/secrets.hpp"
#include "tether/model/toml.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

// ---- init ------------------------------------------------------------------------------------

InitResult init(const fs::path& path) {
  fs::path root = fs::absolute(path).lexically_normal();
  if (root.has_filename() == false) root = root.parent_path();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(root / "tether.toml", ec)))
    throw ConfigError("tether already initialized at " + root.string());
  // Find the VCS before writing anything, so a refusal leaves nothing behind.
  fs::path probe = root;
  while (!fs::exists(probe) && probe.has_parent_path() && probe != probe.parent_path()) probe = probe.parent_path();
  // The checkout rule and the tracked-file refusal come before git_path from secrets.toml is
  // ever run (init switches branches with it).
  model::check_checkout(root, /*require_config=*/false);
  auto vcs = vcs::detect_vcs(probe, git_executable(model::read_secrets(model::tether_path(root, "secrets.toml")).secrets.data()));
  if (probe == root) refuse_tracked_checkout_files(*vcs, root, vcs->rel().empty() ? ".tether" : vcs->rel() + "/.tether");

  model::RepoConfig cfg;
  cfg.version = model::kConfigVersion;
  cfg.dataset_id = model::new_dataset_id();
  // Adopt the checked-out branch as trunk; on a detached HEAD make the trunk branch there,
  // unless it exists already (then which commit is trunk is the user's call).
  std::string trunk = cfg.trunk();
  auto branch = vcs->current_branch();
  if (branch) {
    if (*branch != trunk) {
      cfg.vcs_trunk = *branch;
      trunk = *branch;
    }
  } else {
    auto branches = vcs->branches();
    if (auto it = branches.find(trunk); it != branches.end())
      throw VcsError("HEAD is detached and the trunk branch " + trunk + " already exists (at " + it->second.substr(0, 12) +
                     "); `git switch " + trunk + "` (or another branch) and run init again");
    vcs->create_branch_and_switch(trunk);
  }
  model::open_checkout_dir(model::tether_path(root, "objects"), /*create=*/true);
  model::ensure_ignored(model::tether_path(root), /*only_present=*/false);
  model::write_repo_config({root, "tether.toml"}, cfg);

  model::Workspace ws = model::fresh_workspace();
  ws.bookmark = trunk;
  model::write_workspace(model::tether_path(root, "workspace.toml"), ws);
  return InitResult{root, *cfg.dataset_id, trunk};
}

Json InitResult::to_json() const { return Json{{"root", root.string()}, {"dataset_id", dataset_id}, {"trunk", trunk}}; }

}  // namespace tether::engine
