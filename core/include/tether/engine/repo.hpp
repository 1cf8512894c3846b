// tether/engine/repo.hpp: Repo, one open dataset. It owns the configuration, the manifests,
// the workspace file, the secrets, the VCS adapter and the backends, and implements every
// command as a method returning a result struct the CLI renders (text, or --json through the
// result's to_json()). Each command's options and result live in its own header
// (tether/engine/<command>.hpp); this one only names them.
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
namespace tether::registry {
class Bundle;
}

namespace tether::engine {

struct OpEntry;  // engine/internal.hpp: one operation as the journal tells it
class OpLog;     // engine/internal.hpp: the journal
struct PreconditionChecker;  // plan.cpp
class PinIndex;  // engine/internal.hpp: the pins this clone created

using Json = nlohmann::json;
// Receives a warning the moment a command finds it (a malformed op-log line, ...).
using WarningFn = std::function<void(const std::string& text)>;

// The commands' options and results: one header each (tether/engine/<command>.hpp), included
// by the code that runs or renders that command; here only their names.
struct InitResult;
struct AddRequest;
struct AddResult;
struct RemoveResult;
struct SetResult;
struct SnapshotResult;
struct StatusReport;
struct CommitOptions;
struct CommitResult;
struct DiffResult;
struct VerifyOptions;
struct VerifyResult;
struct NewOptions;
struct NewResult;
struct OpenResult;
struct PromoteOptions;
struct PromoteReport;
struct PullResult;
struct RestoreOptions;
struct RestoreResult;
struct GcOptions;
struct GcReport;
struct AbandonOptions;
struct AbandonResult;
struct DropOptions;
struct DropResult;
struct ForgetWorkspaceOptions;
struct ForgetWorkspaceResult;
struct ExportOptions;
struct ImportOptions;
struct ImportResult;
struct OpsEntry;
struct VcsDrift;
struct UndoOptions;
struct UndoResult;
struct RepairOptions;
struct RepairResult;
struct Plan;

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
};

class Repo {
 public:
  // Walk up from `start` to the directory holding tether.toml.
  static std::unique_ptr<Repo> open(const std::filesystem::path& start);
  static std::unique_ptr<Repo> open(const std::filesystem::path& start, Services services);
  static InitResult init(const std::filesystem::path& path);
  ~Repo();

  const std::filesystem::path& root() const { return root_; }
  const model::RepoConfig& config() const { return config_; }
  const std::string& dataset_id() const { return dataset_id_; }
  const std::map<std::string, model::ObjectManifest>& manifests() const { return manifests_; }
  std::optional<std::string> bookmark() const;
  // Warnings found while opening (a world-readable secrets file, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Where warnings found later, while a command runs, go (each distinct one once); without a
  // sink they are added to warnings().
  void on_warning(WarningFn sink) { warning_sink_ = std::move(sink); }

  host::BackendProxy& backend(const std::string& kind);
  uint32_t effective_capabilities(const model::ObjectManifest& m);

  AddResult add(const AddRequest& request);
  RemoveResult remove(const std::string& key);
  SetResult set_policy(const std::vector<std::string>& keys, bool all, const std::optional<std::string>& file,
                       const std::optional<std::string>& pin);
  SnapshotResult snapshot(const ProgressFn& progress = {});
  StatusReport status(std::optional<bool> snapshot, const ProgressFn& progress = {});
  CommitResult commit(const CommitOptions& options);
  DiffResult diff(const std::vector<std::string>& revs, bool content, const ProgressFn& progress = {});
  VerifyResult verify(const VerifyOptions& options);
  std::vector<sdk::HistoryEntry> log(const std::string& key, const std::optional<std::string>& ref, int limit);

  // Branching (docs/cli.md: pull, new, open, restore, promote).
  NewResult new_workspace(const NewOptions& options);
  // with_password: the backend may show a secret in `display` (`tether open --with-password`).
  OpenResult open_object(const std::string& key, const std::optional<std::string>& rev, std::optional<bool> writable,
                         bool with_password = false);
  PromoteReport promote(const PromoteOptions& options);
  PullResult pull(const std::optional<std::string>& bookmark, const std::optional<std::string>& message,
                  const ProgressFn& progress = {});
  RestoreResult restore(const RestoreOptions& options);
  // Reclaiming storage (docs/cli.md: gc, abandon, drop, forget-workspace).
  GcReport gc(const GcOptions& options);
  AbandonResult abandon(const AbandonOptions& options);
  DropResult drop(const DropOptions& options);
  ForgetWorkspaceResult forget_workspace(const ForgetWorkspaceOptions& options);

  // The registry tables of the exported commits (docs/registry.md#the-tables): one history
  // walk, each distinct manifest text parsed and hashed once.
  registry::Bundle export_bundle(const ExportOptions& options);
  // Registers, updates and (with sync) unregisters objects as a source lists them; never
  // contacts a store and never records a state (only `commit` does).
  ImportResult import_objects(const ImportOptions& options);

  // Keys whose working branch was forked from a state the manifests no longer record
  // (docs/concepts.md, stale working copies).
  std::vector<std::string> stale_keys() const;
  // Where the VCS disagrees with the workspace's bookmark (docs/concepts.md): one warning each.
  std::vector<std::string> bookmark_drift();
  const model::Workspace& workspace() const { return *workspace_; }
  // Saving a plan binds it to this checkout: the workspace id must be on disk.
  void require_persisted_workspace();

  // The operation log (docs/FORMAT.md#the-op-log; ops.cpp, undo.cpp, repair.cpp).
  std::vector<OpsEntry> ops(std::size_t limit);  // newest first; 0 = all
  std::vector<VcsDrift> vcs_drift() const;
  UndoResult undo(const UndoOptions& options);
  RepairResult repair(const RepairOptions& options);

 private:
  Repo() = default;
  struct Lock;
  std::unique_ptr<Lock> lock_checkout();
  std::unique_ptr<Lock> lock_repository();
  void reload();
  // ---- branching internals (branching.cpp) ----
  bool on_trunk_bookmark() const;  // the workspace is on the trunk bookmark (not on none)
  Json vcs_position() const;
  // The source a committed state is read or forked from: the pin when it still resolves
  // (verified), else the recorded state where the backend is ADDRESSABLE (docs/concepts.md,
  // tiers).
  sdk::Source checked_source(const model::ObjectManifest& m);
  void check_preconditions(const Plan& plan);
  // ---- saved plans (plan_vet.cpp) ----
  // Refuses (StalePlanError) a saved plan that names anything tether would not derive here:
  // an unsafe key, a kind or locator its manifest does not record, a pin id that is not the
  // hash of the object's kind, identity and state in this dataset, a branch outside
  // tether.<dataset>.* / tether.ws.<dataset>.*. Called by check_preconditions first.
  void vet_saved_plan(const Plan& plan);
  // Refuses a saved plan whose actions differ from `derived`, the same command planned again.
  void require_rederived(const Plan& saved, const Plan& derived);
  bool owns_ref(const std::string& ref) const;  // in tether.<ds8>.* or tether.ws.<ds8>.*
  friend struct Undoer;  // undo.cpp: one handler per command, over the Repo's internals
  friend struct PreconditionChecker;  // plan.cpp: the table of precondition kinds and their checks
  Plan plan_undo(const UndoOptions& options);
  UndoResult apply_undo(const Plan& plan);
  Plan plan_repair(const RepairOptions& options);
  RepairResult apply_repair(const Plan& plan);
  void check_not_stale();
  void check_on_bookmark();
  // Other live checkouts of this repository: workspace id -> bookmark ("" for none).
  std::map<std::string, std::string> other_workspaces() const;
  std::string materialize_fork(const std::string& key);
  struct NewPlanner;  // branching.cpp: planning `new` stage by stage
  Plan plan_new(const NewOptions& options);
  NewResult apply_new(const Plan& plan);
  struct NewApplier;  // branching.cpp: applying `new` stage by stage
  struct PromotePlanner;  // promote.cpp: planning stage by stage
  Plan plan_promote(const PromoteOptions& options);
  // The plan to apply for a saved promote plan: planned again from its options, and refused
  // when it would move anything the saved one did not show.
  Plan rederive_promote(const Plan& saved);
  // `resume`: the journal entry of a promote a kill interrupted, which repair finishes.
  PromoteReport apply_promote(const Plan& plan, const OpEntry* resume = nullptr);
  struct PromoteApplier;  // promote.cpp: applying stage by stage
  Plan plan_restore(const RestoreOptions& options);
  struct RestorePlanner;  // pull.cpp: planning a restore stage by stage
  RestoreResult apply_restore(const Plan& plan);
  Plan plan_commit(const CommitOptions& options, const std::optional<std::map<std::string, Json>>& fetched,
                   std::vector<std::string>& unchanged);
  CommitResult apply_commit(const Plan& plan, bool verify, const std::string& op_name, const ProgressFn& progress);
  struct Committer;  // commit.cpp: applying a commit plan stage by stage
  // gc internals (gc.cpp); GcScope is defined in internal.hpp, GcPlanner (planning stage by
  // stage) in gc.cpp.
  struct GcScope;
  struct GcPlanner;
  struct Exporter;  // export.cpp: the registry tables, table by table
  struct Verifier;  // verify.cpp: verifying stage by stage
  Plan plan_gc(const GcOptions& options, const GcScope& scope);
  GcReport apply_gc(const Plan& plan, const std::optional<std::string>& parent);
  // "<kind>|<ref namespace>": the store a manifest's pins and branches live in ("" if unknown).
  std::string store_group(const model::ObjectManifest& m);
  // "<group>\n<content state>" of every state these commits pinned or recorded (drop's gc
  // deletes a branch whose head is one of them).
  std::set<std::string> dropped_states(const std::vector<std::string>& commits);
  Plan plan_abandon(const AbandonOptions& options);
  AbandonResult apply_abandon(const Plan& plan);
  Plan plan_drop(const DropOptions& options);
  DropResult apply_drop(const Plan& plan);
  Plan plan_forget_workspace(const ForgetWorkspaceOptions& options);
  ForgetWorkspaceResult apply_forget_workspace(const Plan& plan);
  void write_workspace();
  // ---- registering (objects.cpp), shared by add, remove and import ----
  // The locator a manifest stores: local paths made absolute against `cwd`, then validated.
  Json stored_locator(host::BackendProxy& backend, const std::string& key, Json locator,
                      const std::filesystem::path& cwd);
  // Writes the manifest and forgets what this checkout held for an earlier object of the key
  // (the caller writes the workspace file).
  void register_object(model::ObjectManifest m);
  // Deletes the manifest; the working ref stays for gc (the caller writes the workspace file).
  void unregister_object(const std::string& key);
  Plan plan_import(const std::vector<Json>& rows, bool sync, const std::filesystem::path& cwd);
  ImportResult apply_import(const Plan& plan);
  void log_op(const std::string& command, const Json& pre, const Json& result);
  // An op log's entries (this checkout's, or the one of the checkout rooted at `checkout`);
  // malformed lines are skipped with one warning (support.cpp).
  std::vector<OpEntry> read_ops(const std::optional<std::filesystem::path>& checkout = std::nullopt) const;
  void warn(const std::string& text) const;
  // The time from the Services clock: `...T12:00:00.123456+00:00`, or whole seconds.
  std::string now_iso() const;
  std::string now_iso_seconds() const;
  // The journal and the pinned index, stamped by that clock.
  OpLog op_log() const;
  PinIndex pin_index() const;
  // `tether-pinned.jsonl` in the VCS shared dir: the pins this clone created
  // (docs/FORMAT.md#the-pinned-index).
  std::filesystem::path pinned_index_path() const;
  // `.tether` and `.tether/objects`: every file there is opened through model/checkout.hpp,
  // never through a symlink.
  model::CheckoutPath tether_dir() const { return model::tether_path(root_); }
  model::CheckoutPath objects_dir() const { return model::tether_path(root_, "objects"); }
  std::string vcs_path(const std::string& rel_to_root) const;
  std::vector<std::string> vcs_paths() const;
  bool on_trunk() const;
  std::vector<std::string> moving_keys();
  std::optional<std::string> working_ref(const std::string& key) const;
  std::map<std::string, model::ObjectManifest> manifests_at(const std::string& rev) const;
  std::optional<std::string> read_listing(const std::string& name, const std::optional<std::string>& rev) const;
  void check_immutable(const model::ObjectManifest& m, const Json& state);
  // Fingerprint `keys` concurrently; errors per key.
  SnapshotResult fingerprint_keys(const std::vector<std::string>& keys, bool upstream, const ProgressFn& progress);
  void configure_backend(host::BackendProxy& proxy);
  std::string cache_dir();

  std::filesystem::path root_;
  model::RepoConfig config_;
  std::string dataset_id_;
  std::map<std::string, model::ObjectManifest> manifests_;
  std::unique_ptr<model::Workspace> workspace_;
  Json secrets_ = Json::object();
  std::unique_ptr<vcs::VcsAdapter> vcs_;
  std::unique_ptr<host::PluginHost> host_;
  // mutable: reading (a const operation) is what finds most warnings
  mutable std::vector<std::string> warnings_;
  mutable std::set<std::string> warned_;
  WarningFn warning_sink_;
  std::function<std::chrono::system_clock::time_point()> clock_;
  bool checkout_locked_ = false, repository_locked_ = false;  // the locks are re-entrant
  model::Fd cache_fd_;  // .tether/cache, opened on the first configure (cache_dir())
  std::mutex cache_mu_;
  std::optional<std::string> op_parent_;  // set while a drop runs `new`: its entry is a step of the drop
};

}  // namespace tether::engine
