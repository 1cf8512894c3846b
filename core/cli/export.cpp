// core/cli/export.cpp: `tether export PATH` (experimental; docs/registry.md#export).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/export.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/registry/registry.hpp"

namespace tether::cli {

int run_export(const Global& g, const ExportOptions& o) {
  static const std::vector<std::string> formats = {"sqlite", "parquet", "csv", "jsonl"};
  if (std::find(formats.begin(), formats.end(), o.format) == formats.end())
    throw ConfigError("--format must be one of sqlite, parquet, csv, jsonl");
  if (o.append && o.format != "sqlite") throw ConfigError("--append upserts into a SQLite file; it has no meaning for --format " + o.format);
  registry_note(g);
  auto repo = open_repo();
  // Before the (possibly long) history walk: a refused target should cost nothing.
  registry::check_export_target(o.path, o.format, o.force, repo->root());
  engine::ExportOptions opt;
  opt.revs = o.revs;
  opt.all_history = o.all_history;
  opt.listings = o.listings;
  opt.workspace = o.workspace;
  Progress progress("export: commits", !g.json);
  opt.progress = progress.callback();
  auto bundle = engine::export_bundle(*repo, opt);
  progress.finish();
  std::size_t files = 1;
  if (o.format == "sqlite")
    registry::write_sqlite(bundle, o.path, o.append);
  else
    files = registry::write_dir(bundle, o.path, o.format);
  const engine::ExportResult r{o.path, o.format, bundle.head, bundle.row_counts()};
  // Half a million rows and the history walk's caches: the exit returns them at once.
  engine::keep_until_exit(std::make_shared<registry::Bundle>(std::move(bundle)));
  repo->leave_vcs_to_exit();
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  out("exported " + std::to_string(files) + " file(s) to " + o.path + " (" + o.format + ")");
  print_table_counts(r.rows);
  return 0;
}

}  // namespace tether::cli
