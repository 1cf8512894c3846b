// core/cli/main.cpp: the `tether` executable's command line. The one translation unit that
// includes CLI11: one define_<command> function per command declares its arguments into the
// plain option structs of options.hpp, and kCommands lists them in `tether --help` order with
// their one-line descriptions. The command's own code is core/cli/<command>.cpp.
// Errors: a TetherError prints `error: <message>` and exits 1; usage errors exit 2.
#include <csignal>
#include <cstring>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"

namespace {

using namespace tether::cli;

void on_sigint(int) { tether::cli::request_cancel(); }

// What parsing leaves behind: the global flags and the chosen command, ready to run.
struct Parsed {
  Global g;
  std::function<int()> action;
};

// The options of one command, alive as long as the app (the callback owns them); the
// callback picks `run` as the command to run once parsing succeeded.
template <class Options>
std::shared_ptr<Options> bind(CLI::App& c, Parsed& p, int (*run)(const Global&, const Options&)) {
  auto o = std::make_shared<Options>();
  c.callback([&p, o, run] { p.action = [&p, o, run] { return run(p.g, *o); }; });
  return o;
}

void add_json(CLI::App& c, Parsed& p) { c.add_flag("--json", p.g.json, "print the result as JSON"); }

// --dry-run / --plan FILE / --from-plan FILE (docs/cli.md, "Plans").
void add_plan_flags(CLI::App& c, PlanFlags& f) {
  c.add_flag("--dry-run", f.dry_run, "print the plan; change nothing");
  c.add_option("--plan", f.plan_file, "save the plan to FILE (JSON) and change nothing");
  c.add_option("--from-plan", f.from_plan, "apply a plan saved with --plan, if nothing it reviewed moved");
}

// ---- registering and looking ----

void define_init(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_init);
  c.add_option("path", o->path, "dataset directory (default: .)");
  add_json(c, p);
}

void define_backends(CLI::App& c, Parsed& p) {
  bind(c, p, run_backends);
  add_json(c, p);
}

void define_add(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_add);
  c.add_option("key", o->key,
               "object key, path-like (raw/plate1); given alone to a kind whose locator is a path or URI, the "
               "locator, and the key is its last segment")
      ->required();
  c.add_option("locator", o->locator, "where the object is: a path or URI");
  c.add_option("--kind", o->kind, "backend kind (tether backends lists them)")->required();
  c.add_option("--set", o->sets, "extra locator field key=value (repeatable)");
  c.add_option("--branch", o->branch, "base branch");
  c.add_option("--remote", o->remote, "remote name");
  c.add_option("--region", o->region, "region");
  c.add_option("--project-id", o->project_id, "Neon project id");
  c.add_option("--database", o->database, "database name (Neon)");
  c.add_option("--role", o->role, "role to connect as (Neon)");
  c.add_option("--host", o->host, "host name");
  c.add_option("--port", o->port, "port number (an integer)")->check(CLI::Range(1, 65535));
  c.add_option("--table", o->table, "table name");
  c.add_option("--at", o->at, "start at this native state (snapshot, version, commit, tag)");
  c.add_option("--file", o->file_policy, "file policy: immutable or versioned")
      ->check(CLI::IsMember({"immutable", "versioned"}));
  c.add_option("--pin", o->pin_policy, "pin policy: native or record")->check(CLI::IsMember({"native", "record"}));
  c.add_flag("--create", o->create, "create an empty store there (CREATE backends) [experimental]");
  c.add_flag("--pick", o->pick, "choose --at from the store's history (asks on a terminal)")->excludes("--at");
  add_json(c, p);
  c.footer(
      "Credentials never go in the locator: the manifest is committed and arrives with every clone. They come from "
      ".tether/secrets.toml ([objects.\"<key>\"], [uris.\"<prefix>\"], [backends.<kind>]) or from stores bound to a "
      "host (~/.pgpass, git credential helpers). Environment credentials ($PGPASSWORD, $PGSERVICE, $PGPASSFILE, client "
      "certificates) go only to hosts you named: $PGHOST, or `hosts = [...]` in secrets.toml (docs/security.md).");
}

void define_remove(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_remove);
  c.add_option("key", o->key, "object key")->required();
  add_json(c, p);
}

void define_set(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_set);
  c.add_option("keys", o->keys, "object keys");
  c.add_option("--file", o->file_policy, "immutable or versioned")->check(CLI::IsMember({"immutable", "versioned"}));
  c.add_option("--pin", o->pin_policy, "native or record")->check(CLI::IsMember({"native", "record"}));
  c.add_flag("--all", o->all, "every registered object");
  add_json(c, p);
}

void define_status(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_status);
  c.add_flag("--snapshot,!--no-snapshot", o->snapshot, "fingerprint every object now (default: [snapshot] auto)");
  add_json(c, p);
}

void define_snapshot(CLI::App& c, Parsed& p) {
  bind(c, p, run_snapshot);
  add_json(c, p);
}

void define_commit(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_commit);
  c.add_option("-m,--message", o->message, "commit message");
  add_plan_flags(c, o->plan);
  c.add_flag("--strict", o->strict, "refuse Observed objects (they cannot be pinned)");
  c.add_flag("--no-vcs", o->no_vcs, "write the manifests but make no VCS commit");
  c.add_flag("--no-snapshot", o->no_snapshot, "use the cached fingerprints");
  c.add_flag("--force", o->force, "commit even while a store reports writers (skip quiescence checks)");
  add_json(c, p);
}

// ---- branching ----

void define_new(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_new);
  c.add_option("rev", o->rev, "revision or bookmark to work on (default: where the working copy is)");
  c.add_option("-b,--bookmark", o->bookmark, "create this bookmark and work on it");
  c.add_flag("--shared", o->shared, "write a bookmark another live checkout works on too");
  c.add_flag("--keep", o->keep, "keep the working refs; refresh the baseline only");
  auto* eager = c.add_flag("--eager", o->eager_flag, "fork every working branch now (default: [new] fork, lazy)");
  c.add_flag("--lazy", o->lazy_flag, "fork each branch at its first writable open")->excludes(eager);
  c.add_flag("--discard", o->discard, "reset branches even when they hold uncommitted writes");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_open(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_open);
  c.add_option("key", o->key, "object key")->required();
  c.add_option("-r,--rev", o->rev, "read the state this revision recorded (default: $TETHER_REV)");
  auto* w = c.add_flag("--writable", o->writable_flag, "a writable handle (the default for Forkable objects)");
  c.add_flag("--read-only", o->read_only_flag, "a read-only handle")->excludes(w);
  auto* pw = c.add_flag("--with-password", o->with_password,
                        "show the password in the printed handle (redacted by default)");
  // JSON output goes to pipes and logs: it never carries a secret.
  c.add_flag("--json", p.g.json, "print the result as JSON (passwords always redacted)")->excludes(pw);
}

void define_pull(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_pull);
  c.add_option("bookmark", o->bookmark, "the bookmark (must be this workspace's)");
  c.add_option("-m,--message", o->message, "commit message");
  add_json(c, p);
}

void define_promote(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_promote);
  c.add_option("keys", o->keys, "land only these objects (never moves the trunk)");
  c.add_option("-r,--rev", o->rev, "land the states this revision recorded");
  c.add_option("--strategy", o->strategy, "auto, ff or merge")->check(CLI::IsMember({"auto", "ff", "merge"}));
  c.add_option("-m,--message", o->message, "merge commit message");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_restore(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_restore);
  c.add_option("keys", o->keys, "objects to restore")->required();
  c.add_option("-f,--from", o->from, "revision")->required();
  c.add_flag("--discard", o->discard, "reset branches even when they hold uncommitted writes");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

// ---- history ----

void define_diff(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_diff);
  c.add_option("revs", o->revs, "REV_A [REV_B]")->expected(0, 2);
  c.add_flag("-c,--content", o->content, "ask each system for its own diff");
  c.add_option("--limit", o->limit, "entries shown per object")->check(CLI::NonNegativeNumber);
  add_json(c, p);
}

void define_verify(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_verify);
  c.add_option("-r,--rev", o->rev, "revision to verify (default: the working tree)");
  c.add_flag("--all-history", o->all_history, "every commit's manifests");
  c.add_flag("--deep", o->deep, "open recorded states to confirm them");
  add_json(c, p);
}

void define_log(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_log);
  c.add_option("target", o->key, "object key; with --kind, where a store not registered is (path or URI)")
      ->required();
  c.add_option("--kind", o->kind, "the store's backend kind: TARGET is its locator, not a key");
  c.add_option("--branch", o->branch, "with --kind: the store's base branch");
  c.add_option("--set", o->sets, "with --kind: extra locator field key=value (repeatable)");
  c.add_option("--ref", o->ref, "start at this native ref");
  c.add_option("-n,--limit", o->limit, "entries")->check(CLI::PositiveNumber);
  add_json(c, p);
}

// ---- reclaiming storage ----

void define_gc(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_gc);
  c.add_flag("--no-dry-run", o->no_dry_run, "apply the plan");
  c.add_flag("--prune-bookmarks", o->prune_bookmarks, "also delete working branches of bookmarks that are gone");
  c.add_flag("--prune-workspaces", o->prune_workspaces,
             "also delete working branches of checkouts that are gone (per-checkout branches of older versions)");
  c.add_flag("--force-prune", o->force_prune, "delete such branches even when they hold unpinned writes");
  c.add_option("--keep-bookmark", o->keep_bookmarks, "treat this bookmark as live (repeatable)");
  c.add_flag("--release-foreign", o->release_foreign, "also release unreferenced pins this clone did not create");
  c.add_flag("--listings", o->listings, "only delete orphaned listings; ask no store anything");
  c.add_flag("--delete-stores", o->delete_stores,
             "experimental: also delete the stores `add --create` made that nothing references and that hold nothing else");
  c.add_option("--store", o->stores, "KIND=LOCATOR: also consider this store (its owner marker must name this dataset; repeatable; implies --delete-stores)");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_abandon(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_abandon);
  c.add_option("revs", o->revs, "commits to abandon")->required();
  c.add_flag("--gc", o->gc, "then release the pins only they referenced");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_drop(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_drop);
  c.add_option("bookmark", o->bookmark, "the bookmark")->required();
  c.add_option("--to", o->to, "where this checkout goes if it is on the bookmark (default: the trunk)");
  c.add_flag("--no-dry-run", o->no_dry_run, "apply the plan");
  c.add_flag("--force-prune", o->force_prune, "delete its branches even when they hold unpinned writes");
  c.add_flag("--delete-stores", o->delete_stores, "experimental: also delete the stores `add --create` made that go with it");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_forget_workspace(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_forget_workspace);
  c.add_option("workspace", o->workspace, "workspace id or its first 8 characters (default: this one)");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_upgrade(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_upgrade);
  c.add_flag("--ignore-immutable", o->ignore_immutable, "rewrite commits jj holds immutable (git has none: no effect)");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

// ---- the operation log ----

void define_ops(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_ops);
  c.add_option("-n,--limit", o->limit, "entries (0: all)")->check(CLI::NonNegativeNumber);
  add_json(c, p);
}

void define_undo(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_undo);
  c.add_option("op_id", o->op_id, "operation id (tether ops lists them)");
  c.add_flag("--discard", o->discard, "delete created branches even when they gained writes");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_repair(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_repair);
  c.add_flag("--all-history", o->all_history, "also the pins every commit's manifests name");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

// ---- registries and SQL (experimental) ----

void define_export(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_export);
  c.add_option("path", o->path, "a .sqlite file, or a directory for parquet, csv, jsonl")->required();
  c.add_option("-r,--rev", o->revs, "export only this revision (repeatable)");
  c.add_flag("--all-history,!--no-all-history", o->all_history,
             "every reachable commit (default); --no-all-history: only HEAD");
  c.add_option("--format", o->format, "sqlite (default), parquet, csv or jsonl");
  c.add_flag("--listings", o->listings, "fill listings and listing_entries");
  c.add_flag("--workspace", o->workspace, "fill workspace (this checkout's working refs)");
  c.add_flag("--append", o->append, "upsert into an existing SQLite file instead of replacing it");
  c.add_flag("--force", o->force, "replace an existing file or directory that is not a tether export");
  add_json(c, p);
}

void define_import(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_import);
  c.add_option("source", o->source, "PostgreSQL DSN, SQLite file, .csv or .jsonl")->required();
  c.add_option("--table", o->table, "read every row of this table (SQL sources)");
  c.add_option("--query", o->query, "read the rows of this SELECT (SQL sources; default: secrets.toml [import] query)");
  c.add_flag("--sync", o->sync, "also remove registered objects the source does not list");
  add_plan_flags(c, o->plan);
  add_json(c, p);
}

void define_publish(CLI::App& c, Parsed& p) {
  auto o = bind(c, p, run_publish);
  c.add_option("--to", o->to, "PostgreSQL DSN (default: $TETHER_PUBLISH_DSN)");
  c.add_option("--schema", o->schema, "schema to write (default: tether)");
  c.add_option("-r,--rev", o->revs, "publish only these revisions (repeatable; default: all history)");
  c.add_flag("--listings", o->listings, "also publish the per-file listings");
  c.add_flag("--dry-run", o->dry_run, "print the plan; write nothing");
  add_json(c, p);
}

// Every command, in `tether --help` order: its name, its one line of help, and what declares
// its arguments.
struct Command {
  const char* name;
  const char* description;
  void (*define)(CLI::App&, Parsed&);
};
const Command kCommands[] = {
    {"init", "make this directory (or PATH) a tether dataset", define_init},
    {"backends", "list the installed backend plugins", define_backends},
    {"add", "register an object (nothing is contacted)", define_add},
    {"remove", "unregister an object (its store is not touched)", define_remove},
    {"set", "change objects' policies", define_set},
    {"status", "show each object against its committed state", define_status},
    {"snapshot", "fingerprint every object and cache the states", define_snapshot},
    {"commit", "pin every object's state and commit the manifests", define_commit},
    {"new", "work on a bookmark: check it out and set up its writable branches", define_new},
    {"open", "print a native handle on an object (writable on its working branch)", define_open},
    {"pull", "commit what the bookmark's branches (on the trunk: upstream) hold now", define_pull},
    {"promote", "land the bookmark's branches on their base branches", define_promote},
    {"restore", "reset working branches onto the states a revision recorded", define_restore},
    {"diff", "compare manifests of two revisions (default: HEAD and the working tree)", define_diff},
    {"verify", "check that committed pins and states still resolve", define_verify},
    {"log", "list an object's native history", define_log},
    {"gc", "release pins and branches no commit references (a dry run unless --no-dry-run)", define_gc},
    {"abandon", "remove dataset commits from the history (git history rewriting)", define_abandon},
    {"drop",
     "delete a bookmark, the commits only it reaches and their store branches (a dry run unless --no-dry-run)",
     define_drop},
    {"forget-workspace", "delete a checkout's tether state and its linked worktree", define_forget_workspace},
    {"upgrade", "bring a dataset of an older format to this version's", define_upgrade},
    {"ops", "list this checkout's operations, newest first", define_ops},
    {"undo", "reverse an operation (default: the newest not undone)", define_undo},
    {"repair", "recreate missing pins and working branches the manifests promise", define_repair},
    {"export", "write the history as SQL tables: a SQLite file or a directory [experimental]", define_export},
    {"import", "register, update and (--sync) remove objects as a table lists them [experimental]", define_import},
    {"publish", "upsert the history's registry tables into PostgreSQL [experimental]", define_publish},
};

// `tether completion bash`: the completion script, made from the commands and options as
// declared above, so it cannot drift from them. Commands complete at the first word, a
// command's options after a '-', and paths otherwise.
std::string option_words(const CLI::App& c) {
  std::string words;
  for (const CLI::Option* o : c.get_options()) {
    if (!o->nonpositional()) continue;
    for (const auto& n : o->get_snames()) words += (words.empty() ? "-" : " -") + n;
    for (const auto& n : o->get_lnames()) words += (words.empty() ? "--" : " --") + n;
  }
  return words;
}

std::string bash_completion(CLI::App& app) {
  std::string names, cases;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : " ") + c->get_name();
    cases += "    " + c->get_name() + ") opts=\"" + option_words(*c) + "\" ;;\n";
  }
  return "# bash completion for tether (tether completion bash; generated from its command line)\n"
         "_tether() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" opts=\"\"\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W \"" + names + " --help --version\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  case \"${COMP_WORDS[1]}\" in\n" + cases +
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    local IFS=$'\\n'  # a path may hold spaces\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _tether tether\n";
}

}  // namespace

int main(int argc, char** argv) {
  // `tether help [COMMAND]` is `tether [COMMAND] --help`, word for word.
  std::vector<char*> args(argv, argv + argc);
  char help_flag[] = "--help";
  if (argc > 1 && std::strcmp(argv[1], "help") == 0) {
    if (argc > 3) {
      std::cerr << "error: help takes one command at most (tether help COMMAND)\n";
      return tether::kExitUsage;
    }
    if (argc == 3 && std::none_of(std::begin(kCommands), std::end(kCommands),
                                  [&](const Command& c) { return std::strcmp(c.name, argv[2]) == 0; })) {
      std::cerr << "error: no such command: " << argv[2] << " (tether help lists them)\n";
      return tether::kExitUsage;
    }
    args.erase(args.begin() + 1);  // the command, if any, then --help
    args.push_back(help_flag);
    argc = static_cast<int>(args.size());
    argv = args.data();
  }
  CLI::App app{"tether: version control for datasets that live in many systems at once"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("tether ") + TETHER_VERSION);
  app.fallthrough(false);
  Parsed parsed;
  // Only the invoked command is registered, with its arguments: building all 26 option sets
  // was about a sixth of a small `tether status`, and registering the other 25 commands still
  // cost a twentieth. A command's own help names no other command, and a word after the
  // command is its argument either way. With no command first (help, --version, a typo),
  // all are registered and declared, so help and suggestions see everything.
  const char* invoked = argc > 1 ? argv[1] : "";
  bool known = false;
  for (const auto& c : kCommands) known = known || std::strcmp(c.name, invoked) == 0;
  for (const auto& c : kCommands)
    if (!known || std::strcmp(c.name, invoked) == 0) c.define(*app.add_subcommand(c.name, c.description), parsed);
  if (!known) {
    app.add_subcommand("help", "show this help, or a command's (tether help COMMAND)");
    auto* completion = app.add_subcommand("completion", "print the bash completion script (tether completion bash)");
    auto shell = std::make_shared<std::string>();
    completion->add_option("shell", *shell, "the shell: bash")->required()->check(CLI::IsMember({"bash"}));
    completion->callback([&app, &parsed, shell] {
      parsed.action = [&app] {
        std::cout << bash_completion(app);
        return 0;
      };
    });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : tether::kExitUsage;
  }
  if (!parsed.action) {
    std::cout << app.help();
    return 0;
  }
  std::signal(SIGINT, on_sigint);
  return guarded(parsed.action);
}
