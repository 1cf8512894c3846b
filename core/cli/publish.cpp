// core/cli/publish.cpp: `tether publish` (experimental): the export tables upserted into a
// PostgreSQL schema (docs/registry.md#publish, docs/cli.md). The DSN comes from --to or
// $TETHER_PUBLISH_DSN only: a committed tether.toml arrives with every clone and must not
// choose where a checkout writes.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/publish.hpp"

namespace tether::cli {

int run_publish(const Global& g, const PublishOptions& o) {
  registry_note(g);
  engine::PublishOptions opt;
  if (o.to) opt.dsn = *o.to;
  else if (const char* env = std::getenv("TETHER_PUBLISH_DSN")) opt.dsn = env;
  opt.schema = o.schema;
  opt.revs = o.revs;
  opt.listings = o.listings;
  opt.dry_run = o.dry_run;
  engine::check_publish_options(opt);  // before the history walk, which can be long

  auto repo = open_repo();
  Progress reading("reading history", !g.json), writing("publishing rows", !g.json);
  opt.reading = reading.callback();
  opt.writing = writing.callback();
  engine::PublishResult r = engine::publish(*repo, opt);
  reading.finish();
  writing.finish();

  if (r.dry_run) {
    if (g.json) print_json(r.plan.to_json());
    else out(render_plan(r.plan));
    return 0;
  }
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  out("published " + std::to_string(r.total()) + " row(s) to schema '" + r.schema + "' (" +
      std::to_string(r.skipped_commits) + " commit(s) already present)");
  print_table_counts(r.upserted);
  return 0;
}

}  // namespace tether::cli
