// core/cli/publish.cpp: `tether publish` (experimental): the export tables upserted into a
// PostgreSQL schema (docs/registry.md#publish, docs/cli.md). The DSN comes from --to or
// $TETHER_PUBLISH_DSN only: a committed tether.toml arrives with every clone and must not
// choose where a checkout writes.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/registry/publish.hpp"

namespace tether::cli {

namespace {

engine::Plan publish_plan(const registry::PublishReport& r, const std::string& head) {
  engine::Plan plan;
  plan.command = "publish";
  plan.created_at = model::now_iso_utc_seconds();
  plan.context = {{"schema", r.schema}, {"head", head}};
  for (const auto& [table, n] : r.upserted)
    if (n > 0) plan.actions.push_back({"upsert", "", "", r.schema + "." + table, std::to_string(n) + " row(s)", {}});
  if (r.skipped_commits > 0) plan.notes.push_back(std::to_string(r.skipped_commits) + " commit(s) already published");
  return plan;
}

}  // namespace

int run_publish(const Global& g, const PublishOptions& o) {
  registry_note(g);
  registry::PublishOptions popt;
  if (o.to) popt.dsn = *o.to;
  else if (const char* env = std::getenv("TETHER_PUBLISH_DSN")) popt.dsn = env;
  if (popt.dsn.empty()) throw ConfigError("a Postgres DSN is required: --to or $TETHER_PUBLISH_DSN");
  registry::validate_identifier(o.schema);  // before the history walk, which can be long
  popt.schema = o.schema;
  popt.dry_run = o.dry_run;

  auto repo = open_repo();
  engine::ExportOptions eopt;
  eopt.revs = o.revs;
  eopt.listings = o.listings;
  Progress reading("reading history", !g.json);
  eopt.progress = reading.callback();
  registry::Bundle bundle = repo->export_bundle(eopt);
  reading.finish();

  Progress writing("publishing rows", !g.json);
  popt.progress = writing.callback();
  registry::PublishReport r = registry::publish(bundle, popt);
  writing.finish();

  if (o.dry_run) {
    engine::Plan plan = publish_plan(r, bundle.head);
    if (g.json) print_json(plan.to_json());
    else out(render_plan(plan));
    return 0;
  }
  if (g.json) {
    nlohmann::json upserted = nlohmann::json::object();
    for (const auto& [table, n] : r.upserted) upserted[table] = n;
    print_json({{"schema", r.schema}, {"head", bundle.head.empty() ? nlohmann::json(nullptr) : nlohmann::json(bundle.head)}, {"upserted", upserted}, {"skipped_commits", r.skipped_commits}});
    return 0;
  }
  out("published " + std::to_string(r.total()) + " row(s) to schema '" + r.schema + "' (" +
      std::to_string(r.skipped_commits) + " commit(s) already present)");
  print_table_counts(r.upserted);
  return 0;
}

}  // namespace tether::cli
