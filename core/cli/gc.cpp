// core/cli/gc.cpp: `tether gc`, `abandon`, `drop` and `forget-workspace`: reclaiming storage.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"

namespace tether::cli {

using nlohmann::json;

namespace {

// What the plan could not account for (a store that cannot be listed): stderr, one line each.
void print_failed(const std::map<std::string, std::string>& failed) {
  for (const auto& [what, why] : failed) error_line(what + ": " + why);
}

std::map<std::string, std::string> unreachable_of(const engine::Plan& plan) {
  std::map<std::string, std::string> out;
  if (auto u = plan.context.find("unreachable"); u != plan.context.end() && u->is_object())
    for (const auto& [k, v] : u->items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

}  // namespace

// gc's text report (docs/cli.md, `tether gc`).
void print_gc_report(const engine::GcReport& r) {
  auto count = [](const std::map<std::string, std::vector<std::string>>& m) {
    std::size_t n = 0;
    for (const auto& [k, v] : m) n += v.size();
    return n;
  };
  out("unpinned " + std::to_string(count(r.unpinned)) + " pin(s)");
  for (const auto& [kind, ids] : r.unpinned)
    for (const auto& id : ids) out("  " + kind + ": " + id);
  if (std::size_t n = count(r.kept_pins)) {
    out(yellow("kept " + std::to_string(n) + " unreferenced pin(s) this clone did not create (--release-foreign releases)"));
    for (const auto& [kind, ids] : r.kept_pins)
      for (const auto& id : ids) out("  " + kind + ": " + id);
  }
  if (std::size_t n = count(r.deleted_working_refs)) {
    out("deleted " + std::to_string(n) + " working branch(es)");
    for (const auto& [key, refs] : r.deleted_working_refs)
      for (const auto& ref : refs) out("  " + key + ": " + ref);
  }
  if (std::size_t n = count(r.kept_working_refs)) {
    out(yellow("kept " + std::to_string(n) + " working branch(es) holding unpinned data (--force-prune deletes)"));
    for (const auto& [key, refs] : r.kept_working_refs)
      for (const auto& ref : refs) out("  " + key + ": " + ref);
  }
  if (std::size_t n = count(r.forgotten_working_refs)) out("forgot " + std::to_string(n) + " working ref(s) of removed object(s)");
  if (!r.deleted_listings.empty()) out("deleted " + std::to_string(r.deleted_listings.size()) + " orphan listing(s)");
}

// Exit status of an applied gc: 3 when part failed and something applied, 1 when nothing did.
int gc_exit(const engine::GcReport& r) {
  if (r.failed.empty()) return 0;
  return r.wrote_anything() ? kExitPartial : kExitFailure;
}

int run_gc(const Global& g, const GcOptions& o) {
  auto repo = open_repo();
  engine::GcOptions opt;
  opt.prune_bookmarks = o.prune_bookmarks;
  opt.prune_workspaces = o.prune_workspaces;
  opt.force_prune = o.force_prune;
  opt.release_foreign = o.release_foreign;
  opt.listings_only = o.listings;
  opt.keep_bookmarks = o.keep_bookmarks;
  if (o.no_dry_run && (o.plan.dry_run || o.plan.plan_file)) throw ConfigError("--no-dry-run cannot be combined with --dry-run or --plan");
  opt.saved = load_saved_plan(o.plan, "gc");
  opt.dry_run = !o.no_dry_run && !opt.saved;
  Progress progress("listing pins", !g.json);
  opt.progress = progress.callback();
  auto r = repo->gc(opt);
  progress.finish();
  if (!r.applied) {
    PlanFlags shown = o.plan;
    shown.dry_run = true;
    show_plan(g, shown, *repo, r.plan);
    auto failed = unreachable_of(r.plan);
    if (!g.json) {
      if (r.plan.writes() > 0) out("(dry run; `tether gc --no-dry-run` applies it)");
      print_failed(failed);
    }
    return failed.empty() ? 0 : kExitPartial;
  }
  if (g.json) print_json(r.to_json());
  else {
    print_gc_report(r);
    print_failed(r.failed);
  }
  return gc_exit(r);
}

int run_abandon(const Global& g, const AbandonOptions& o) {
  auto repo = open_repo();
  engine::AbandonOptions opt;
  opt.revs = o.revs;
  opt.gc = o.gc;
  set_plan_options(opt, o.plan, "abandon");
  auto r = repo->abandon(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  // The commits are abandoned either way; a bookmark left behind or a store gc could not
  // list makes it partial (exit 3).
  auto failed = r.gc ? r.gc->failed : unreachable_of(r.gc_plan);
  for (const auto& [b, why] : r.failed) failed["bookmark " + b] = why;
  const int rc = failed.empty() ? 0 : kExitPartial;
  if (g.json) {
    print_json({{"abandoned", r.abandoned},
                {"rewritten_commits", r.rewritten},
                {"bookmarks_moved", r.bookmarks_moved},
                {"gc_plan", r.gc_plan.to_json()},
                {"gc_applied", r.gc.has_value()},
                {"gc", r.gc ? r.gc->to_json() : json(nullptr)},
                {"failed", r.failed}});
    return rc;
  }
  std::vector<std::string> ids;
  for (const auto& c : r.abandoned) ids.push_back(c.substr(0, 12));
  std::string line;
  for (const auto& id : ids) line += (line.empty() ? "" : ", ") + id;
  out("abandoned " + line);
  for (const auto& [b, c] : r.bookmarks_moved) out("  bookmark " + b + " -> " + c.substr(0, 12));
  if (r.gc) {
    print_gc_report(*r.gc);
  } else if (r.gc_plan.writes() == 0 && failed.empty()) {
    out("nothing became unreferenced");
  } else {
    out(render_plan(r.gc_plan));
    if (r.gc_plan.writes() > 0) out("(not applied; `tether gc --no-dry-run` releases these, or re-run with --gc)");
  }
  print_failed(failed);
  return rc;
}

int run_drop(const Global& g, const DropOptions& o) {
  auto repo = open_repo();
  engine::DropOptions opt;
  opt.bookmark = o.bookmark;
  opt.to = o.to;
  opt.force_prune = o.force_prune;
  if (o.no_dry_run && (o.plan.dry_run || o.plan.plan_file)) throw ConfigError("--no-dry-run cannot be combined with --dry-run or --plan");
  opt.saved = load_saved_plan(o.plan, "drop");
  opt.dry_run = !o.no_dry_run && !opt.saved;
  auto r = repo->drop(opt);
  if (!r.applied) {
    PlanFlags shown = o.plan;
    shown.dry_run = true;
    show_plan(g, shown, *repo, r.plan);
    if (!g.json) out("(not applied; `--no-dry-run` drops it)");
    return 0;
  }
  if (g.json) {
    json gc = r.gc ? r.gc->to_json() : json(nullptr);
    if (gc.is_object()) gc.erase("dry_run");
    print_json({{"bookmark", r.bookmark},
                {"left_for", r.left_for ? json(*r.left_for) : json(nullptr)},
                {"abandoned", r.abandoned},
                {"gc", gc}});
    return r.gc ? gc_exit(*r.gc) : 0;
  }
  if (r.left_for) out("left " + r.bookmark + " for " + *r.left_for);
  std::string ids;
  for (const auto& c : r.abandoned) ids += (ids.empty() ? "" : ", ") + c.substr(0, 12);
  out("dropped " + r.bookmark + ": " + std::to_string(r.abandoned.size()) + " commit(s)" + (ids.empty() ? "" : " (" + ids + ")"));
  if (r.gc && r.gc->applied) {
    print_gc_report(*r.gc);
    print_failed(r.gc->failed);
    return gc_exit(*r.gc);
  }
  return 0;
}

int run_forget_workspace(const Global& g, const ForgetWorkspaceOptions& o) {
  auto repo = open_repo();
  engine::ForgetWorkspaceOptions opt;
  opt.workspace = o.workspace;
  set_plan_options(opt, o.plan, "forget-workspace");
  auto r = repo->forget_workspace(opt);
  if (show_plan(g, o.plan, *repo, r.plan)) return 0;
  int rc = r.failed.empty() ? 0 : (r.removed_files.empty() && !r.vcs ? kExitFailure : kExitPartial);
  if (g.json) {
    print_json({{"workspace", r.workspace},
                {"removed_files", r.removed_files},
                {"vcs", r.vcs ? json(*r.vcs) : json(nullptr)},
                {"failed", r.failed}});
    return rc;
  }
  if (r.plan.actions.empty()) {
    for (const auto& n : r.plan.notes) out(n);
    return 0;
  }
  out("forgot workspace " + r.workspace);
  for (const auto& f : r.removed_files) out("  removed  " + f);
  if (r.vcs) out("  vcs      " + *r.vcs);
  for (const auto& [what, why] : r.failed) err("  FAILED   " + what + ": " + why);
  return rc;
}

}  // namespace tether::cli
