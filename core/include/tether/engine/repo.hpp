// tether/engine/repo.hpp: Repo, one open dataset as its callers see it: what it is (root,
// configuration, manifests, workspace) and the queries the CLI asks of it. The commands are
// not members: each is a free function over a Repo declared in its own header
// (tether/engine/<command>.hpp), returning a result struct the CLI renders (text, or --json
// through the result's to_json()). The engine's data behind a Repo is its Context
// (core/src/engine/context.hpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/engine/progress.hpp"
#include "tether/model/config.hpp"
#include "tether/model/manifest.hpp"
#include "tether/sdk/types.hpp"

namespace tether::host {
class PluginHost;
class BackendProxy;
}  // namespace tether::host
namespace tether::vcs {
class VcsAdapter;
}
namespace tether::model {
struct Workspace;
}

namespace tether::engine {

using Json = nlohmann::json;
// Receives a warning the moment a command finds it (a malformed op-log line, ...).
using WarningFn = std::function<void(const std::string& text)>;

struct VcsDrift;  // tether/engine/ops.hpp

// What a Repo is built from besides the checkout on disk. The defaults are production's; the
// engine's unit tests hand in a plugin host with backends linked into the process
// (PluginHost::add_builtin) and wrap the VCS to make one of its steps fail.
struct Services {
  Services();
  ~Services();  // out of line: PluginHost and VcsAdapter are incomplete here
  Services(Services&&) noexcept;
  Services& operator=(Services&&) noexcept;

  // The backends; null: a host over the plugin search path.
  std::unique_ptr<host::PluginHost> host;
  // What time it is, for every timestamp the engine writes (plans, the op log, manifests'
  // captured_at, the pinned index, exports); null: the system clock.
  std::function<std::chrono::system_clock::time_point()> clock;
  // Given the VCS adapter found for the checkout, the one the engine uses.
  std::function<std::unique_ptr<vcs::VcsAdapter>(std::unique_ptr<vcs::VcsAdapter>)> wrap_vcs;
  // Open a dataset of an older format (version < 5): only `tether upgrade` does. Without a
  // valid dataset id, dataset_id() is empty until the upgrade gives it one.
  bool allow_outdated = false;
};

// Memory a process about to exit need not free entry by entry (hundreds of thousands of
// small allocations after a long history walk: a tenth of verify's CPU): kept, reachable from
// a static so LeakSanitizer does not report it, until the exit returns it all at once. Only
// memory: nothing whose destructor flushes, unlocks, deletes a file or shuts a plugin down.
void keep_until_exit(std::shared_ptr<const void> memory);

class Repo {
 public:
  // Walk up from `start` to the directory holding tether.toml.
  static std::unique_ptr<Repo> open(const std::filesystem::path& start);
  static std::unique_ptr<Repo> open(const std::filesystem::path& start, Services services);
  virtual ~Repo();
  Repo(const Repo&) = delete;
  Repo& operator=(const Repo&) = delete;

  const std::filesystem::path& root() const;
  const model::RepoConfig& config() const;
  const std::string& dataset_id() const;
  const std::map<std::string, model::ObjectManifest>& manifests() const;
  const model::Workspace& workspace() const;
  std::optional<std::string> bookmark() const;
  // Warnings found while opening (a world-readable secrets file, ...).
  const std::vector<std::string>& warnings() const;
  // Where warnings found later, while a command runs, go (each distinct one once); without a
  // sink they are added to warnings().
  void on_warning(WarningFn sink);

  // For a process that exits after this command (the CLI): the VCS adapter and its caches (a
  // history walk's trees and manifest texts) are handed to keep_until_exit instead of being
  // freed when the Repo is. Plugins, locks and files are still shut down, released and closed
  // with the Repo. The VCS is unusable afterwards: call it last.
  void leave_vcs_to_exit();

  // The backend of a kind, configured for this checkout (loaded on first use).
  host::BackendProxy& backend(const std::string& kind);
  // What the backend can do for this object, less what its policy switches off.
  uint32_t effective_capabilities(const model::ObjectManifest& m);
  // Keys whose working branch was forked from a state the manifests no longer record
  // (docs/concepts.md, stale working copies).
  std::vector<std::string> stale_keys() const;
  // Where the VCS disagrees with the workspace's bookmark (docs/concepts.md): one warning each.
  std::vector<std::string> bookmark_drift();
  // Operations whose VCS commit is no longer reachable (docs/cli.md, `tether ops`).
  std::vector<VcsDrift> vcs_drift() const;
  // Saving a plan binds it to this checkout: the workspace id must be on disk.
  void require_persisted_workspace();

 protected:
  Repo() = default;  // a Repo is always the engine's Context (Repo::open makes one)
};

}  // namespace tether::engine
