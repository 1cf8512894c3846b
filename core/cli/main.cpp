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
  add->add_option("--at", add_o.at, "start at this native state (snapshot, version, commit, tag)");
  add->add_option("--file", add_o.file_policy, "file policy: immutable or versioned")
      ->check(CLI::IsMember({"immutable", "versioned"}));
  add->add_option("--pin", add_o.pin_policy, "pin policy: native or record")
      ->check(CLI::IsMember({"native", "record"}));
  add->add_flag("--create", add_o.create, "create an empty store there (CREATE backends) [experimental]");
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
  commit->add_flag("--dry-run", commit_o.dry_run, "print the plan; change nothing");
  commit->add_flag("--strict", commit_o.strict, "refuse Observed objects (they cannot be pinned)");
  commit->add_flag("--no-vcs", commit_o.no_vcs, "write the manifests but make no VCS commit");
  commit->add_flag("--no-snapshot", commit_o.no_snapshot, "use the cached fingerprints");
  add_json(commit);
  commit->callback([&] { action = [&] { return run_commit(g, commit_o); }; });

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
