// core/src/engine/internal.hpp: helpers the engine's command files share, not part of the
// public API.
#pragma once

#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/context.hpp"
#include "tether/engine/plan.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/model/manifest.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

using Json = nlohmann::json;

// secrets [vcs] git_path, then $TETHER_GIT, else "" (git on PATH).
std::string git_executable(const Json& secrets);

// Refuse a checkout whose VCS tracks per-checkout files (secrets, workspace, op log, lock,
// cache) under any name their path resolves through. Runs before anything from secrets.toml
// (git_path, endpoints) is used: a clone must not choose them. With `remember`, a "none
// tracked" answer is kept in .tether/cache/tracked-check with the VCS's index stamp, and
// the index is read again only once that stamp changes (or was racy).
void refuse_tracked_checkout_files(const vcs::VcsAdapter& vcs, const std::filesystem::path& root,
                                   const std::string& tether_vcs_dir, bool remember = false);

// Manifests from files read out of the VCS (`path relative to objects/` -> text).
std::map<std::string, model::ObjectManifest> parse_manifest_files(const vcs::FileMap& files, const std::string& commit);

// Typed reads of JSON tether wrote but someone may have edited since (op-log records, their
// result and pre): a missing key or a value of another type gives the empty value instead of
// a json exception.
std::string str_of(const Json& j, const char* key);
bool bool_of(const Json& j, const char* key);
std::vector<std::string> strings_of(const Json& j, const char* key);  // the strings of an array

// Typed reads of a plan's context into its command's payload struct (each command keeps one in
// its file, with `from(const Plan&)` reading it through a ContextReader once). A saved plan is
// untrusted input, so a field that is missing or of another type is refused with one line
// naming the plan and the field -- `the commit plan's "states" is not an object; re-run the
// plan` -- where a json exception or a silent default would otherwise be.
struct ContextReader {
  const Json& context;
  const std::string command;  // names the plan in the refusal

  [[noreturn]] void refuse(const char* key, const char* what) const {
    throw StalePlanError("the " + command + " plan's \"" + key + "\" " + what + "; re-run the plan");
  }
  // The field, or null when the plan has none (an optional field).
  const Json* find(const char* key) const {
    if (!context.is_object()) throw StalePlanError("the " + command + " plan's context is not an object; re-run the plan");
    auto it = context.find(key);
    return it == context.end() ? nullptr : &*it;
  }
  const Json& at(const char* key) const {
    const Json* v = find(key);
    if (!v) refuse(key, "is missing");
    return *v;
  }
  std::string string(const char* key) const {
    const Json& v = at(key);
    if (!v.is_string()) refuse(key, "is not a string");
    return v.get<std::string>();
  }
  // A field the planner writes as a string or null (an option not given).
  std::optional<std::string> string_or_null(const char* key) const {
    const Json& v = at(key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_string()) refuse(key, "is not a string or null");
    return v.get<std::string>();
  }
  bool boolean(const char* key) const {
    const Json& v = at(key);
    if (!v.is_boolean()) refuse(key, "is not true or false");
    return v.get<bool>();
  }
  std::size_t count(const char* key) const {
    const Json& v = at(key);
    if (!v.is_number_unsigned()) refuse(key, "is not a count");
    return v.get<std::size_t>();
  }
  std::vector<std::string> strings(const char* key) const {
    const Json& v = at(key);
    if (!v.is_array()) refuse(key, "is not a list of strings");
    std::vector<std::string> out;
    for (const auto& e : v) {
      if (!e.is_string()) refuse(key, "is not a list of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::map<std::string, Json> object(const char* key) const {
    const Json& v = at(key);
    if (!v.is_object()) refuse(key, "is not an object");
    return v.get<std::map<std::string, Json>>();
  }
};
// The null-or-string field back into the context, as the planner writes it.
inline Json string_or_null(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

// One operation as the log tells it, its done mark and progress records folded in
// (docs/FORMAT.md#the-op-log).
struct OpEntry {
  std::string id, at, command;
  std::string status = "started";  // started | done
  Json plan, result = Json::object(), pre = Json::object();
  Json undoes, undone_by, parent;   // op id or null
  Json progress = Json::array();    // the progress records, in order
  bool incomplete() const { return status != "done"; }
  Json to_json() const;
};

// The text after the command in `tether ops` (docs/cli.md); undo records its target's
// ("" for a command the table does not know).
std::string op_summary(const OpEntry& e);

// How undo reverses one command (engine/undoer.hpp): `apply` does it, `plan` lists what apply
// will attempt and throws the refusals (branches with writes). No apply: undo refuses it.
struct Undoer;
struct UndoHandler {
  void (*apply)(Undoer&) = nullptr;
  void (*plan)(Undoer&) = nullptr;
};

// One command as the op log and saved plans know it; commands.cpp holds the table.
struct CommandSpec {
  std::string (*summarize)(const OpEntry&);  // what `tether ops` says of its entries
  UndoHandler undo;
  std::vector<std::string> preconditions;  // the kinds a saved plan of it must carry
};
// The command the op log or a plan names, or null (a log written by another tool may name
// others).
const CommandSpec* find_command(std::string_view name);
// Reading a journal result for a summary (ops.cpp): the keys of an object or the strings of an
// array; a count field, or the size of an array or object; "N what(s)".
std::vector<std::string> names_of(const Json& j);
std::size_t count_of(const Json& r, const char* key);
std::string plural(std::size_t n, const std::string& what);
// What `tether ops` says of each command's entries, defined in that command's file.
std::string summarize_add(const OpEntry& e);
std::string summarize_remove(const OpEntry& e);
std::string summarize_set(const OpEntry& e);
std::string summarize_commit(const OpEntry& e);
std::string summarize_pull(const OpEntry& e);
std::string summarize_new(const OpEntry& e);
std::string summarize_fork(const OpEntry& e);
std::string summarize_restore(const OpEntry& e);
std::string summarize_promote(const OpEntry& e);
std::string summarize_gc(const OpEntry& e);
std::string summarize_abandon(const OpEntry& e);
std::string summarize_drop(const OpEntry& e);
std::string summarize_forget_workspace(const OpEntry& e);
std::string summarize_import(const OpEntry& e);
std::string summarize_undo(const OpEntry& e);
std::string summarize_repair(const OpEntry& e);
std::string summarize_upgrade(const OpEntry& e);  // ops.cpp: the Python version's format upgrade

// `.tether/ops.jsonl`: append-only, one fsync'd JSON line per record
// (docs/FORMAT.md#the-op-log).
// The time an entry is stamped with, `YYYY-MM-DDTHH:MM:SS+00:00` (now_iso_seconds, so a
// test's clock reaches the journal); null: the system clock.
using StampFn = std::function<std::string()>;

class OpLog {
 public:
  explicit OpLog(model::CheckoutPath path, StampFn stamp = {}) : path_(std::move(path)), stamp_(std::move(stamp)) {}
  // Writes the entry (status started) before the first side effect; returns its id.
  // `parent`: the op this one is a step of (drop's new and gc); `undoes`: undo's target.
  std::string begin(const std::string& command, const Json& pre, const std::optional<std::string>& parent = std::nullopt,
                    const std::optional<std::string>& undoes = std::nullopt);
  void progress(const std::string& id, const Json& record);
  void end(const std::string& id, const Json& result);
  // The done mark of an undo: also marks `target` as undone by `id`.
  void end_undo(const std::string& id, const Json& result, const std::string& target);
  // Every entry, oldest first; a missing file is an empty log. Blank lines are skipped; so are
  // malformed ones (torn, not JSON within the limits of model/limits.hpp, or a field of the
  // wrong type), their 1-based numbers added to `skipped`. Read through read_ops, which
  // warns about them.
  std::vector<OpEntry> read(std::vector<std::size_t>* skipped = nullptr) const;
  // `<shown>: skipped N malformed line(s) (line 7); ...`
  static std::string skipped_warning(const std::string& shown, const std::vector<std::size_t>& lines);
  std::filesystem::path path() const { return path_.full(); }

 private:
  void append(const Json& line);
  std::string stamp() const;
  model::CheckoutPath path_;
  StampFn stamp_;
};

// `tether-pinned.jsonl` in the VCS shared dir (docs/FORMAT.md#the-pinned-index): the pins this
// clone created, so gc releases only those (another clone's commits may name the rest). One
// JSON line per claim `{"dataset_id", "kind", "pin_id", "at"}`; set semantics on pin_id; a
// torn last line is skipped; release rewrites the file (temp + rename).
class PinIndex {
 public:
  explicit PinIndex(std::filesystem::path path, StampFn stamp = {}) : path_(std::move(path)), stamp_(std::move(stamp)) {}
  // Best effort: a failure is returned as a message (the pin exists either way).
  std::optional<std::string> claim(const std::string& dataset_id, const std::string& kind, const std::string& pin_id);
  void release(const std::set<std::string>& pin_ids);
  // Pin ids claimed (of any dataset).
  std::set<std::string> known() const;
  bool exists() const;

 private:
  std::filesystem::path path_;
  StampFn stamp_;
};

// A repository-wide store index in the VCS shared dir (docs/FORMAT.md#the-store-indexes):
// `tether-created.jsonl`, the stores `add --create` made (the only ones `gc --delete-stores`
// may delete), and `tether-touched.jsonl`, the stores this clone wrote refs into (a pin or a
// fork), whose refs `gc --delete-stores` releases once no manifest names the store. One JSON
// line per store `{"dataset_id", "kind", "identity", "locator", "key"[, "bookmark"], "at"}`;
// set semantics on (dataset_id, kind, identity), the last line wins; a torn or malformed line
// is skipped; forgetting rewrites the file (temp + rename).
struct StoreRecord {
  std::string dataset_id, kind, key, bookmark, at;  // bookmark: created stores only
  Json identity, locator;
  // (kind, identity) as one string: what two records of one store share.
  std::string store_id() const;
};
class StoreIndex {
 public:
  explicit StoreIndex(std::filesystem::path path, StampFn stamp = {}) : path_(std::move(path)), stamp_(std::move(stamp)) {}
  // Best effort, as the pinned index: a failure is returned as a message (the store exists).
  std::optional<std::string> record(StoreRecord store);
  // Every well-formed record, one per (dataset, store), in file order of their last line.
  std::vector<StoreRecord> stores() const;
  // Drops the records of `dataset_id` whose store_id() is in `store_ids`.
  void forget(const std::string& dataset_id, const std::set<std::string>& store_ids);
  // Rewrites the records `change` changes (it returns true); other lines stay as they are.
  // Returns how many changed.
  std::size_t rewrite(const std::function<bool(StoreRecord&)>& change);

 private:
  std::filesystem::path path_;
  StampFn stamp_;
};

// The listing of `state` for `m` where its backend diffs (DIFF), stored in .tether/listings
// under its content-addressed name unless already there (write-once). Returns the name when
// this call wrote it.
std::optional<std::string> write_listing(Context& cx, const model::ObjectManifest& m, const Json& state);

// Notes in the touched-store index that this clone wrote a ref (pin or fork) into the store of
// `key`: once per store and command, best effort (a failure warns once).
void record_touched(Context& cx, const std::string& key, const std::string& kind, const Json& locator);

// What a gc is planned against besides the live repository: drop and abandon plan it as if
// commits were already gone.
struct GcScope {
  std::set<std::string> exclude_commits;  // planned as if these commits were gone (drop, abandon)
  std::optional<std::string> only_bookmark;  // drop: only this bookmark's branches, and it counts as gone
  // drop: states the dropped commits pinned or recorded, as "<group>\n<content state>"
  std::set<std::string> dropped_states;
  // drop leaving the bookmark: this checkout will hold these manifests and no working refs
  std::optional<std::map<std::string, model::ObjectManifest>> here_manifests;
};

// An object's error as users see it: `[key] message` (a BackendError carries the prefix
// already; a configuration error such as an unknown kind gets it here).
std::string keyed_error(const std::string& key, const std::exception& e);

// The flow every planned command shares: a saved plan (--from-plan) has its preconditions
// checked against the live systems, then is applied; otherwise the command plans, and
// applies unless it is a dry run (then the result carries just the plan).
template <class Result, class Check, class PlanFn, class Apply>
Result run_planned(const std::optional<Plan>& saved, bool dry_run, Check&& check, PlanFn&& plan, Apply&& apply) {
  if (saved) {
    check(*saved);
    return apply(*saved);
  }
  Plan p = plan();
  if (dry_run) {
    Result r;
    r.plan = std::move(p);
    return r;
  }
  return apply(p);
}

// What one command's module lends another: pull commits with commit's plan and apply, abandon
// and drop collect with gc's, repair finishes an interrupted promote.
struct CommitOptions;
struct CommitResult;
struct GcOptions;
struct GcReport;
struct PromoteReport;
Plan plan_commit(Context& cx, const CommitOptions& opt, const std::optional<std::map<std::string, Json>>& fetched,
                 std::vector<std::string>& unchanged);
CommitResult apply_commit(Context& cx, const Plan& plan, bool verify, const std::string& op_name, const ProgressFn& progress);
// The commit plan's "pull" flag (a pull made it); a context of the wrong shape is refused.
bool commit_plan_pulls(const Plan& plan);
Plan plan_gc(Context& cx, const GcOptions& options, const GcScope& scope);
GcReport apply_gc(Context& cx, const Plan& plan, const std::optional<std::string>& parent);
// `resume`: the journal entry of a promote a kill interrupted, which repair finishes.
PromoteReport apply_promote(Context& cx, const Plan& plan, const OpEntry* resume = nullptr);

// What a gc plan could not list (its "unreachable" context): what -> why (gc.cpp).
std::map<std::string, std::string> plan_unreachable(const Plan& plan);

// "a, b, c" of keys.
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

// The first 12 hex digits of a commit id, as people read it.
inline std::string short12(const std::string& id) { return id.substr(0, 12); }

// A URL scheme (`s3:`, `file:`, `ducklake:`) starts `v` (objects.cpp).
bool has_scheme(const std::string& v);
// Refuses (ConfigError) a file or pin policy value that is not one of its kind (objects.cpp).
void check_policy(const std::string& field, const std::string& value);
// The locator is pinned to a native state by `at` (branching.cpp).
bool has_at(const Json& locator);

}  // namespace tether::engine
