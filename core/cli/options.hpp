// core/cli/options.hpp: the parsed command line of every command, as plain structs, and the
// run_<command> each core/cli/<command>.cpp defines. Only main.cpp sees CLI11; each command's
// file sees these structs and the engine.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tether::cli {

struct Global {
  bool json = false;
};

struct InitOptions { std::string path = "."; };
struct BackendsOptions {};
struct AddOptions {
  std::string key;
  std::optional<std::string> locator;  // positional: becomes `uri` (or the kind's path key)
  std::string kind;
  std::vector<std::string> sets;  // k=v
  std::optional<std::string> branch, remote, region, at;
  std::optional<std::string> project_id, database, role;  // neon
  std::optional<std::string> host, table;
  std::optional<int> port;  // an integer in the locator, as the reference writes it
  std::optional<std::string> file_policy, pin_policy;
  bool create = false;
  bool pick = false;  // choose `at` from the store's history, on a terminal
};
struct RemoveOptions { std::string key; };
struct SetOptions {
  std::vector<std::string> keys;
  std::optional<std::string> file_policy, pin_policy;
  bool all = false;
};
struct StatusOptions { std::optional<bool> snapshot; };
struct SnapshotOptions {};
// --dry-run / --plan FILE / --from-plan FILE of every planned command.
struct PlanFlags {
  bool dry_run = false;
  std::optional<std::string> plan_file, from_plan;
};
struct CommitOptions {
  std::optional<std::string> message;
  bool strict = false, no_vcs = false, no_snapshot = false, force = false;
  PlanFlags plan;
};
struct NewOptions {
  std::optional<std::string> rev, bookmark;
  bool shared = false, keep = false, discard = false;
  bool eager_flag = false, lazy_flag = false;
  PlanFlags plan;
};
struct OpenOptions {
  std::string key;
  std::optional<std::string> rev;
  bool writable_flag = false, read_only_flag = false;
  bool with_password = false;
};
struct PullOptions {
  std::optional<std::string> bookmark, message;
};
struct PromoteOptions {
  std::vector<std::string> keys;
  std::optional<std::string> rev, message;
  std::string strategy = "auto";
  PlanFlags plan;
};
struct RestoreOptions {
  std::vector<std::string> keys;
  std::string from;
  bool discard = false;
  PlanFlags plan;
};
struct DiffOptions {
  std::vector<std::string> revs;
  bool content = false;
  int limit = 20;
};
struct VerifyOptions {
  std::optional<std::string> rev;
  bool all_history = false, deep = false;
};
struct LogOptions {
  std::string key;                  // or, with --kind, the store's locator (uri)
  std::optional<std::string> kind;  // a store not registered: its kind
  std::optional<std::string> branch;
  std::vector<std::string> sets;    // k=v, with --kind
  std::optional<std::string> ref;
  int limit = 20;
};

// Reclaiming storage: gc, abandon, drop, forget-workspace.
struct GcOptions {
  bool no_dry_run = false;
  bool prune_bookmarks = false, prune_workspaces = false, force_prune = false, release_foreign = false, listings = false;
  bool delete_stores = false;
  std::vector<std::string> stores;  // KIND=LOCATOR
  std::vector<std::string> keep_bookmarks;
  PlanFlags plan;
};
struct AbandonOptions {
  std::vector<std::string> revs;
  bool gc = false;
  PlanFlags plan;
};
struct DropOptions {
  std::string bookmark;
  std::optional<std::string> to;
  bool no_dry_run = false, force_prune = false, delete_stores = false;
  PlanFlags plan;
};
struct ForgetWorkspaceOptions {
  std::optional<std::string> workspace;
  PlanFlags plan;
};
struct UpgradeOptions {
  bool ignore_immutable = false;
  PlanFlags plan;
};
// The operation log: ops, undo, repair.
struct OpsOptions { int limit = 20; };
struct UndoOptions {
  std::optional<std::string> op_id;
  bool discard = false;
  PlanFlags plan;
};
struct RepairOptions {
  bool all_history = false;
  PlanFlags plan;
};
// ---- registries and SQL (experimental) ----
struct ExportOptions {
  std::string path;
  std::vector<std::string> revs;
  bool all_history = true;
  std::string format = "sqlite";
  bool listings = false, workspace = false, append = false, force = false;
};

// import (experimental)
struct ImportOptions {
  std::string source;
  std::optional<std::string> table, query;
  bool sync = false;
  PlanFlags plan;
};
// publish (experimental)
struct PublishOptions {
  std::optional<std::string> to;  // DSN; else $TETHER_PUBLISH_DSN
  std::string schema = "tether";
  std::vector<std::string> revs;
  bool listings = false, dry_run = false;
};

int run_init(const Global&, const InitOptions&);
int run_backends(const Global&, const BackendsOptions&);
int run_add(const Global&, const AddOptions&);
int run_remove(const Global&, const RemoveOptions&);
int run_set(const Global&, const SetOptions&);
int run_status(const Global&, const StatusOptions&);
int run_snapshot(const Global&, const SnapshotOptions&);
int run_commit(const Global&, const CommitOptions&);
int run_new(const Global&, const NewOptions&);
int run_open(const Global&, const OpenOptions&);
int run_pull(const Global&, const PullOptions&);
int run_promote(const Global&, const PromoteOptions&);
int run_restore(const Global&, const RestoreOptions&);
int run_diff(const Global&, const DiffOptions&);
int run_verify(const Global&, const VerifyOptions&);
int run_log(const Global&, const LogOptions&);
int run_gc(const Global&, const GcOptions&);
int run_abandon(const Global&, const AbandonOptions&);
int run_drop(const Global&, const DropOptions&);
int run_forget_workspace(const Global&, const ForgetWorkspaceOptions&);
int run_upgrade(const Global&, const UpgradeOptions&);
int run_ops(const Global&, const OpsOptions&);
int run_undo(const Global&, const UndoOptions&);
int run_repair(const Global&, const RepairOptions&);
int run_publish(const Global&, const PublishOptions&);
int run_export(const Global&, const ExportOptions&);
int run_import(const Global&, const ImportOptions&);

}  // namespace tether::cli
