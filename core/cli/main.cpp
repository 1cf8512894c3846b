// core/cli/main.cpp: the `tether` executable's command line. The one translation unit that
// includes CLI11: it parses into the plain option structs of options.hpp and dispatches.
// Errors: a TetherError prints `error: <message>` and exits 1; usage errors exit 2.
#include <csignal>
#include <cstdio>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"

namespace {

using namespace tether::cli;

void on_sigint(int) { tether::cli::request_cancel(); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tether: version control for datasets that live in many systems at once"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("tether ") + TETHER_VERSION);
  app.fallthrough(false);

  Global g;
  std::function<int()> action;

  auto add_json = [&](CLI::App* c) { c->add_flag("--json", g.json, "print the result as JSON"); };

  // init
  InitOptions init_o;
  auto* init = app.add_subcommand("init", "make this directory (or PATH) a tether dataset");
  init->add_option("path", init_o.path, "dataset directory (default: .)");
  add_json(init);
  init->callback([&] { action = [&] { return run_init(g, init_o); }; });

  // backends
  BackendsOptions backends_o;
  auto* backends = app.add_subcommand("backends", "list the installed backend plugins");
  add_json(backends);
  backends->callback([&] { action = [&] { return run_backends(g, backends_o); }; });

  // add
  AddOptions add_o;
  auto* add = app.add_subcommand("add", "register an object (nothing is contacted)");
  add->add_option("key", add_o.key, "object key, path-like (raw/plate1)")->required();
  add->add_option("locator", add_o.locator, "where the object is: a path or URI");
  add->add_option("--kind", add_o.kind, "backend kind (tether backends lists them)")->required();
  add->add_option("--set", add_o.sets, "extra locator field key=value (repeatable)");
  add->add_option("--branch", add_o.branch, "base branch");
  add->add_option("--remote", add_o.remote, "remote name");
  add->add_option("--region", add_o.region, "region");
  add->add_option("--project-id", add_o.project_id, "Neon project id");
  add->add_option("--database", add_o.database, "database name (Neon)");
  add->add_option("--role", add_o.role, "role to connect as (Neon)");
  add->add_option("--at", add_o.at, "start at this native state (snapshot, version, commit, tag)");
  add->add_option("--file", add_o.file_policy, "file policy: immutable or versioned")
      ->check(CLI::IsMember({"immutable", "versioned"}));
  add->add_option("--pin", add_o.pin_policy, "pin policy: native or record")
      ->check(CLI::IsMember({"native", "record"}));
  add->add_flag("--create", add_o.create, "create an empty store there (CREATE backends) [experimental]");
  add->footer(
      "Credentials never go in the locator: the manifest is committed and arrives with every clone. They come from "
      ".tether/secrets.toml ([objects.\"<key>\"], [uris.\"<prefix>\"], [backends.<kind>]) or from stores bound to a "
      "host (~/.pgpass, git credential helpers). Environment credentials ($PGPASSWORD, $PGSERVICE, $PGPASSFILE, client "
      "certificates) go only to hosts you named: $PGHOST, or `hosts = [...]` in secrets.toml (docs/security.md).");
  add->callback([&] { action = [&] { return run_add(g, add_o); }; });

  // remove
  RemoveOptions remove_o;
  auto* remove = app.add_subcommand("remove", "unregister an object (its store is not touched)");
  remove->add_option("key", remove_o.key, "object key")->required();
  remove->callback([&] { action = [&] { return run_remove(g, remove_o); }; });

  // set
  SetOptions set_o;
  auto* set = app.add_subcommand("set", "change objects' policies");
  set->add_option("keys", set_o.keys, "object keys");
  set->add_option("--file", set_o.file_policy, "immutable or versioned")->check(CLI::IsMember({"immutable", "versioned"}));
  set->add_option("--pin", set_o.pin_policy, "native or record")->check(CLI::IsMember({"native", "record"}));
  set->add_flag("--all", set_o.all, "every registered object");
  add_json(set);
  set->callback([&] { action = [&] { return run_set(g, set_o); }; });

  // status
  StatusOptions status_o;
  auto* status = app.add_subcommand("status", "show each object against its committed state");
  status->add_flag("--snapshot,!--no-snapshot", status_o.snapshot, "fingerprint every object now (default: [snapshot] auto)");
  add_json(status);
  status->callback([&] { action = [&] { return run_status(g, status_o); }; });

  // snapshot
  SnapshotOptions snapshot_o;
  auto* snapshot = app.add_subcommand("snapshot", "fingerprint every object and cache the states");
  add_json(snapshot);
  snapshot->callback([&] { action = [&] { return run_snapshot(g, snapshot_o); }; });

  // commit
  CommitOptions commit_o;
  auto* commit = app.add_subcommand("commit", "pin every object's state and commit the manifests");
  commit->add_option("-m,--message", commit_o.message, "commit message");
  auto add_plan_flags = [&](CLI::App* c, PlanFlags& f) {
    c->add_flag("--dry-run", f.dry_run, "print the plan; change nothing");
    c->add_option("--plan", f.plan_file, "save the plan to FILE (JSON) and change nothing");
    c->add_option("--from-plan", f.from_plan, "apply a plan saved with --plan, if nothing it reviewed moved");
  };
  add_plan_flags(commit, commit_o.plan);
  commit->add_flag("--strict", commit_o.strict, "refuse Observed objects (they cannot be pinned)");
  commit->add_flag("--no-vcs", commit_o.no_vcs, "write the manifests but make no VCS commit");
  commit->add_flag("--no-snapshot", commit_o.no_snapshot, "use the cached fingerprints");
  commit->add_flag("--force", commit_o.force, "commit even while a store reports writers (skip quiescence checks)");
  add_json(commit);
  commit->callback([&] { action = [&] { return run_commit(g, commit_o); }; });

  // new
  NewOptions new_o;
  auto* newc = app.add_subcommand("new", "work on a bookmark: check it out and set up its writable branches");
  newc->add_option("rev", new_o.rev, "revision or bookmark to work on (default: where the working copy is)");
  newc->add_option("-b,--bookmark", new_o.bookmark, "create this bookmark and work on it");
  newc->add_flag("--shared", new_o.shared, "write a bookmark another live checkout works on too");
  newc->add_flag("--keep", new_o.keep, "keep the working refs; refresh the baseline only");
  auto* eager = newc->add_flag("--eager", new_o.eager_flag, "fork every working branch now (default: [new] fork, lazy)");
  newc->add_flag("--lazy", new_o.lazy_flag, "fork each branch at its first writable open")->excludes(eager);
  newc->add_flag("--discard", new_o.discard, "reset branches even when they hold uncommitted writes");
  add_plan_flags(newc, new_o.plan);
  add_json(newc);
  newc->callback([&] { action = [&] { return run_new(g, new_o); }; });

  // open
  OpenOptions open_o;
  auto* openc = app.add_subcommand("open", "print a native handle on an object (writable on its working branch)");
  openc->add_option("key", open_o.key, "object key")->required();
  openc->add_option("-r,--rev", open_o.rev, "read the state this revision recorded (default: $TETHER_REV)");
  auto* w = openc->add_flag("--writable", open_o.writable_flag, "a writable handle (the default for Forkable objects)");
  openc->add_flag("--read-only", open_o.read_only_flag, "a read-only handle")->excludes(w);
  auto* pw = openc->add_flag("--with-password", open_o.with_password,
                             "show the password in the printed handle (redacted by default)");
  // JSON output goes to pipes and logs: it never carries a secret.
  openc->add_flag("--json", g.json, "print the result as JSON (passwords always redacted)")->excludes(pw);
  openc->callback([&] { action = [&] { return run_open(g, open_o); }; });

  // pull
  PullOptions pull_o;
  auto* pull = app.add_subcommand("pull", "commit what the bookmark's branches (on the trunk: upstream) hold now");
  pull->add_option("bookmark", pull_o.bookmark, "the bookmark (must be this workspace's)");
  pull->add_option("-m,--message", pull_o.message, "commit message");
  add_json(pull);
  pull->callback([&] { action = [&] { return run_pull(g, pull_o); }; });

  // promote
  PromoteOptions promote_o;
  auto* promote = app.add_subcommand("promote", "land the bookmark's branches on their base branches");
  promote->add_option("keys", promote_o.keys, "land only these objects (never moves the trunk)");
  promote->add_option("-r,--rev", promote_o.rev, "land the states this revision recorded");
  promote->add_option("--strategy", promote_o.strategy, "auto, ff or merge")->check(CLI::IsMember({"auto", "ff", "merge"}));
  promote->add_option("-m,--message", promote_o.message, "merge commit message");
  add_plan_flags(promote, promote_o.plan);
  add_json(promote);
  promote->callback([&] { action = [&] { return run_promote(g, promote_o); }; });

  // restore
  RestoreOptions restore_o;
  auto* restore = app.add_subcommand("restore", "reset working branches onto the states a revision recorded");
  restore->add_option("keys", restore_o.keys, "objects to restore")->required();
  restore->add_option("-f,--from", restore_o.from, "revision")->required();
  restore->add_flag("--discard", restore_o.discard, "reset branches even when they hold uncommitted writes");
  add_plan_flags(restore, restore_o.plan);
  add_json(restore);
  restore->callback([&] { action = [&] { return run_restore(g, restore_o); }; });

  // diff
  DiffOptions diff_o;
  auto* diff = app.add_subcommand("diff", "compare manifests of two revisions (default: HEAD and the working tree)");
  diff->add_option("revs", diff_o.revs, "REV_A [REV_B]")->expected(0, 2);
  diff->add_flag("-c,--content", diff_o.content, "ask each system for its own diff");
  diff->add_option("--limit", diff_o.limit, "entries shown per object")->check(CLI::NonNegativeNumber);
  add_json(diff);
  diff->callback([&] { action = [&] { return run_diff(g, diff_o); }; });

  // verify
  VerifyOptions verify_o;
  auto* verify = app.add_subcommand("verify", "check that committed pins and states still resolve");
  verify->add_option("-r,--rev", verify_o.rev, "revision to verify (default: the working tree)");
  verify->add_flag("--all-history", verify_o.all_history, "every commit's manifests");
  verify->add_flag("--deep", verify_o.deep, "open recorded states to confirm them");
  add_json(verify);
  verify->callback([&] { action = [&] { return run_verify(g, verify_o); }; });

  // log
  LogOptions log_o;
  auto* log = app.add_subcommand("log", "list an object's native history");
  log->add_option("key", log_o.key, "object key")->required();
  log->add_option("--ref", log_o.ref, "start at this native ref");
  log->add_option("-n,--limit", log_o.limit, "entries")->check(CLI::PositiveNumber);
  add_json(log);
  log->callback([&] { action = [&] { return run_log(g, log_o); }; });

  // gc
  GcOptions gc_o;
  auto* gc = app.add_subcommand("gc", "release pins and branches no commit references (a dry run unless --no-dry-run)");
  gc->add_flag("--no-dry-run", gc_o.no_dry_run, "apply the plan");
  gc->add_flag("--prune-bookmarks", gc_o.prune_bookmarks, "also delete working branches of bookmarks that are gone");
  gc->add_flag("--prune-workspaces", gc_o.prune_workspaces,
               "also delete working branches of checkouts that are gone (per-checkout branches of older versions)");
  gc->add_flag("--force-prune", gc_o.force_prune, "delete such branches even when they hold unpinned writes");
  gc->add_option("--keep-bookmark", gc_o.keep_bookmarks, "treat this bookmark as live (repeatable)");
  gc->add_flag("--release-foreign", gc_o.release_foreign, "also release unreferenced pins this clone did not create");
  gc->add_flag("--listings", gc_o.listings, "only delete orphaned listings; ask no store anything");
  add_plan_flags(gc, gc_o.plan);
  add_json(gc);
  gc->callback([&] { action = [&] { return run_gc(g, gc_o); }; });

  // abandon
  AbandonOptions abandon_o;
  auto* abandon = app.add_subcommand("abandon", "remove dataset commits from the history (git history rewriting)");
  abandon->add_option("revs", abandon_o.revs, "commits to abandon")->required();
  abandon->add_flag("--gc", abandon_o.gc, "then release the pins only they referenced");
  add_plan_flags(abandon, abandon_o.plan);
  add_json(abandon);
  abandon->callback([&] { action = [&] { return run_abandon(g, abandon_o); }; });

  // drop
  DropOptions drop_o;
  auto* drop = app.add_subcommand("drop", "delete a bookmark, the commits only it reaches and their store branches "
                                          "(a dry run unless --no-dry-run)");
  drop->add_option("bookmark", drop_o.bookmark, "the bookmark")->required();
  drop->add_option("--to", drop_o.to, "where this checkout goes if it is on the bookmark (default: the trunk)");
  drop->add_flag("--no-dry-run", drop_o.no_dry_run, "apply the plan");
  drop->add_flag("--force-prune", drop_o.force_prune, "delete its branches even when they hold unpinned writes");
  add_plan_flags(drop, drop_o.plan);
  add_json(drop);
  drop->callback([&] { action = [&] { return run_drop(g, drop_o); }; });

  // forget-workspace
  ForgetWorkspaceOptions forget_o;
  auto* forget = app.add_subcommand("forget-workspace", "delete a checkout's tether state and its linked worktree");
  forget->add_option("workspace", forget_o.workspace, "workspace id or its first 8 characters (default: this one)");
  add_plan_flags(forget, forget_o.plan);
  add_json(forget);
  forget->callback([&] { action = [&] { return run_forget_workspace(g, forget_o); }; });
  // ops, undo, repair
  OpsOptions ops_o;
  auto* ops = app.add_subcommand("ops", "list this checkout's operations, newest first");
  ops->add_option("-n,--limit", ops_o.limit, "entries (0: all)")->check(CLI::NonNegativeNumber);
  add_json(ops);
  ops->callback([&] { action = [&] { return run_ops(g, ops_o); }; });
  UndoOptions undo_o;
  auto* undo = app.add_subcommand("undo", "reverse an operation (default: the newest not undone)");
  undo->add_option("op_id", undo_o.op_id, "operation id (tether ops lists them)");
  undo->add_flag("--discard", undo_o.discard, "delete created branches even when they gained writes");
  add_plan_flags(undo, undo_o.plan);
  add_json(undo);
  undo->callback([&] { action = [&] { return run_undo(g, undo_o); }; });
  RepairOptions repair_o;
  auto* repair = app.add_subcommand("repair", "recreate missing pins and working branches the manifests promise");
  repair->add_flag("--all-history", repair_o.all_history, "also the pins every commit's manifests name");
  add_plan_flags(repair, repair_o.plan);
  add_json(repair);
  repair->callback([&] { action = [&] { return run_repair(g, repair_o); }; });

  // registries and SQL (experimental)
  ExportOptions export_o;
  auto* exportc = app.add_subcommand("export", "write the history as SQL tables: a SQLite file or a directory [experimental]");
  exportc->add_option("path", export_o.path, "a .sqlite file, or a directory for parquet, csv, jsonl")->required();
  exportc->add_option("-r,--rev", export_o.revs, "export only this revision (repeatable)");
  exportc->add_flag("--all-history,!--no-all-history", export_o.all_history,
                    "every reachable commit (default); --no-all-history: only HEAD");
  exportc->add_option("--format", export_o.format, "sqlite (default), parquet, csv or jsonl");
  exportc->add_flag("--listings", export_o.listings, "fill listings and listing_entries");
  exportc->add_flag("--workspace", export_o.workspace, "fill workspace (this checkout's working refs)");
  exportc->add_flag("--append", export_o.append, "upsert into an existing SQLite file instead of replacing it");
  exportc->add_flag("--force", export_o.force, "replace an existing file or directory that is not a tether export");
  add_json(exportc);
  exportc->callback([&] { action = [&] { return run_export(g, export_o); }; });

  ImportOptions import_o;
  auto* importc = app.add_subcommand(
      "import", "register, update and (--sync) remove objects as a table lists them [experimental]");
  importc->add_option("source", import_o.source, "PostgreSQL DSN, SQLite file, .csv or .jsonl")->required();
  importc->add_option("--table", import_o.table, "read every row of this table (SQL sources)");
  importc->add_option("--query", import_o.query, "read the rows of this SELECT (SQL sources; default: secrets.toml [import] query)");
  importc->add_flag("--sync", import_o.sync, "also remove registered objects the source does not list");
  add_plan_flags(importc, import_o.plan);
  add_json(importc);
  importc->callback([&] { action = [&] { return run_import(g, import_o); }; });
  PublishOptions publish_o;
  auto* publish = app.add_subcommand("publish", "upsert the history's registry tables into PostgreSQL [experimental]");
  publish->add_option("--to", publish_o.to, "PostgreSQL DSN (default: $TETHER_PUBLISH_DSN)");
  publish->add_option("--schema", publish_o.schema, "schema to write (default: tether)");
  publish->add_option("-r,--rev", publish_o.revs, "publish only these revisions (repeatable; default: all history)");
  publish->add_flag("--listings", publish_o.listings, "also publish the per-file listings");
  publish->add_flag("--dry-run", publish_o.dry_run, "print the plan; write nothing");
  add_json(publish);
  publish->callback([&] { action = [&] { return run_publish(g, publish_o); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : tether::kExitUsage;
  }
  if (!action) {
    std::cout << app.help();
    return 0;
  }
  std::signal(SIGINT, on_sigint);
  return guarded(action);
}
