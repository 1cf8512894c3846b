// core/src/engine/context.hpp: the engine's context, one open dataset as data, and the
// services every command module uses over it. Not part of the public API: callers hold a
// Repo (tether/engine/repo.hpp), and each command is a free function over it in its own
// module (core/src/engine/<command>.cpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/engine/progress.hpp"
#include "tether/engine/repo.hpp"
#include "tether/model/checkout.hpp"
#include "tether/model/config.hpp"
#include "tether/model/manifest.hpp"
#include "tether/sdk/types.hpp"

namespace tether::engine {

using Json = nlohmann::json;

// One open dataset: what Repo::open read from the checkout and the services it was given.
// Data only; the commands are modules over it. A Context is the only kind of Repo, so a
// command's public entry point turns its Repo into the Context with Context::of.
struct Context final : Repo {
  Context();
  ~Context() override;
  static Context& of(Repo& repo) { return static_cast<Context&>(repo); }
  static const Context& of(const Repo& repo) { return static_cast<const Context&>(repo); }

  std::filesystem::path root;  // the directory holding tether.toml
  model::RepoConfig config;
  std::string dataset_id;
  std::map<std::string, model::ObjectManifest> manifests;  // as in .tether/objects
  std::unique_ptr<model::Workspace> workspace;             // .tether/workspace.toml
  Json secrets = Json::object();                           // .tether/secrets.toml
  std::unique_ptr<vcs::VcsAdapter> vcs;
  std::unique_ptr<host::PluginHost> host;
  // mutable: reading (a const operation) is what finds most warnings
  mutable std::vector<std::string> warnings;
  mutable std::set<std::string> warned;
  WarningFn warning_sink;
  std::function<std::chrono::system_clock::time_point()> clock;
  bool checkout_locked = false, repository_locked = false;  // the locks are re-entrant
  model::Fd cache_fd;  // .tether/cache, opened on the first configure (cache_dir())
  std::mutex cache_mu;
  std::optional<std::string> op_parent;  // set while a drop runs `new`: its entry is a step of the drop
  std::optional<std::set<std::string>> touched;  // "<kind>\n<identity>" in the touched-store index, read once
  std::mutex touched_mu;
};

// An advisory flock held until destruction (docs/FORMAT.md#locks).
// Re-entrant within one Context: an inner lock_*() while the lock is held is a no-op Lock.
struct Lock {
  int fd = -1;
  bool* held = nullptr;  // the Context's flag, cleared on release
  ~Lock();
};

class OpLog;
class PinIndex;
class StoreIndex;
struct OpEntry;
struct Plan;
struct SnapshotResult;

// ---- the checkout (repo.cpp) ----
std::unique_ptr<Lock> lock_checkout(Context& cx);    // and reload what the lock now protects
std::unique_ptr<Lock> lock_repository(Context& cx);  // every checkout of the VCS repository
void reload(Context& cx);                            // manifests and workspace from disk
void write_workspace(Context& cx);
// `.tether` and `.tether/objects`: every file there is opened through model/checkout.hpp,
// never through a symlink.
inline model::CheckoutPath tether_dir(const Context& cx) { return model::tether_path(cx.root); }
inline model::CheckoutPath objects_dir(const Context& cx) { return model::tether_path(cx.root, "objects"); }
std::string vcs_path(const Context& cx, const std::string& rel_to_root);
std::vector<std::string> vcs_paths(const Context& cx);
bool on_trunk(const Context& cx);           // on the trunk bookmark, or on none
bool on_trunk_bookmark(const Context& cx);  // on the trunk bookmark (not on none)
std::vector<std::string> moving_keys(Context& cx);
std::optional<std::string> working_ref(const Context& cx, const std::string& key);
std::map<std::string, model::ObjectManifest> manifests_at(const Context& cx, const std::string& rev);
std::optional<std::string> read_listing(const Context& cx, const std::string& name, const std::optional<std::string>& rev);
void check_immutable(Context& cx, const model::ObjectManifest& m, const Json& state);
// Fingerprint `keys` concurrently; errors per key.
SnapshotResult fingerprint_keys(Context& cx, const std::vector<std::string>& keys, bool upstream, const ProgressFn& progress);
// The time from the Services clock: `...T12:00:00.123456+00:00`, or whole seconds.
std::string now_iso(const Context& cx);
std::string now_iso_seconds(const Context& cx);
// The journal and the pinned, created-stores and touched-stores indexes, stamped by that clock.
OpLog op_log(const Context& cx);
PinIndex pin_index(const Context& cx);
StoreIndex created_index(const Context& cx);
StoreIndex touched_index(const Context& cx);
void log_op(Context& cx, const std::string& command, const Json& pre, const Json& result);

// ---- the op log (support.cpp) ----
// An op log's entries (this checkout's, or the one of the checkout rooted at `checkout`);
// malformed lines are skipped with one warning (to the warning sink, else into warnings).
std::vector<OpEntry> read_ops(const Context& cx, const std::optional<std::filesystem::path>& checkout = std::nullopt,
                              std::vector<std::size_t>* skipped = nullptr);
// The warning read_ops gives for this checkout's log (`log`) when `skipped` is not empty: for
// a reader that remembered which lines an earlier read skipped.
void warn_skipped_ops(const Context& cx, const model::CheckoutPath& log, const std::vector<std::size_t>& skipped);

// ---- bookmarks and branches (branching.cpp) ----
Json vcs_position(const Context& cx);
// The source a committed state is read or forked from: the pin when it still resolves
// (verified), else the recorded state where the backend is ADDRESSABLE (docs/concepts.md,
// tiers).
sdk::Source checked_source(Context& cx, const model::ObjectManifest& m);
void check_not_stale(Context& cx);
void check_on_bookmark(Context& cx);
// Other live checkouts of this repository: workspace id -> bookmark ("" for none).
std::map<std::string, std::string> other_workspaces(const Context& cx);

// ---- saved plans (plan.cpp, plan_vet.cpp) ----
// Checks a saved plan against the live systems (its vetting first); StalePlanError if
// anything changed.
void check_preconditions(Context& cx, const Plan& plan);
// Refuses (StalePlanError) a saved plan that names anything tether would not derive here:
// an unsafe key, a kind or locator its manifest does not record, a pin id that is not the
// hash of the object's kind, identity and state in this dataset, a branch outside
// tether.<dataset>.* / tether.ws.<dataset>.*. Called by check_preconditions first.
void vet_saved_plan(Context& cx, const Plan& plan);
// Refuses a saved plan whose actions differ from `derived`, the same command planned again.
void require_rederived(const Plan& saved, const Plan& derived);
// The refusal of a dataset at an older `version`, naming the migrations `tether upgrade`
// would run (upgrade.cpp).
std::string outdated_message(int version);

// ---- registering (objects.cpp), shared by add, remove and import ----
// The locator a manifest stores: local paths made absolute against `cwd`, then validated.
Json stored_locator(host::BackendProxy& backend, const std::string& key, Json locator,
                    const std::filesystem::path& cwd);
// Writes the manifest and forgets what this checkout held for an earlier object of the key
// (the caller writes the workspace file).
void register_object(Context& cx, model::ObjectManifest m);
// Deletes the manifest; the working ref stays for gc (the caller writes the workspace file).
void unregister_object(Context& cx, const std::string& key);

// ---- reclaiming (reclaim.cpp), shared by gc, abandon and drop ----
// "<group>\n<content state>" of every state these commits pinned or recorded (drop's gc
// deletes a branch whose head is one of them).
std::set<std::string> dropped_states(Context& cx, const std::vector<std::string>& commits);

}  // namespace tether::engine
