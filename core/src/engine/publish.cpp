// core/src/engine/publish.cpp: `tether publish` (docs/registry.md#publish): export the history
// as a bundle, upsert it through registry::publish, and describe a dry run as a plan.
#include "tether/engine/publish.hpp"

#include "tether/engine/export.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/registry/publish.hpp"

namespace tether::engine {

namespace {

// `at`: when the plan was made (the bundle's export time, from the dataset's clock).
Plan dry_run_plan(const PublishResult& r, const std::string& at) {
  Plan plan;
  plan.command = "publish";
  plan.created_at = at;
  plan.context = {{"schema", r.schema}, {"head", r.head}};
  for (const auto& [table, n] : r.upserted)
    if (n > 0) plan.actions.push_back({PlanOp::Upsert, "", "", r.schema + "." + table, std::to_string(n) + " row(s)", {}});
  if (r.skipped_commits > 0) plan.notes.push_back(std::to_string(r.skipped_commits) + " commit(s) already published");
  return plan;
}

}  // namespace

void check_publish_options(const PublishOptions& o) {
  if (o.dsn.empty()) throw ConfigError("a Postgres DSN is required: --to or $TETHER_PUBLISH_DSN");
  registry::validate_identifier(o.schema);
}

std::size_t PublishResult::total() const {
  std::size_t n = 0;
  for (const auto& [table, rows] : upserted) n += rows;
  return n;
}

nlohmann::json PublishResult::to_json() const {
  nlohmann::json tables = nlohmann::json::object();
  for (const auto& [table, n] : upserted) tables[table] = n;
  return {{"schema", schema},
          {"head", head.empty() ? nlohmann::json(nullptr) : nlohmann::json(head)},
          {"upserted", tables},
          {"skipped_commits", skipped_commits}};
}

PublishResult publish(Repo& repo, const PublishOptions& o) {
  check_publish_options(o);
  registry::PublishOptions popt;
  popt.dsn = o.dsn;
  popt.schema = o.schema;
  popt.dry_run = o.dry_run;
  popt.progress = o.writing;
  // Connect and read the published commits first: the walk then skips their trees, so a
  // publish with every commit present costs the commit list, not the history's manifests.
  registry::Publication pub(popt);

  ExportOptions eopt;
  eopt.revs = o.revs;
  eopt.listings = o.listings;
  eopt.progress = o.reading;
  // Not with --listings: listings are rewritten from the states of every walked commit, and
  // the publish that wrote a known commit may have been made without them.
  if (!o.listings) {
    eopt.skip = &pub.known();
    eopt.first_records = [&pub](const std::vector<registry::StateKey>& keys) { return pub.first_records(keys); };
    eopt.all_records = [&pub](const std::vector<registry::StateKey>& keys) { return pub.all_records(keys); };
  }
  registry::Bundle bundle = export_bundle(repo, eopt);
  registry::PublishReport rep = pub.write(bundle);

  PublishResult r;
  r.schema = rep.schema;
  r.head = bundle.head;
  r.upserted = rep.upserted;
  r.skipped_commits = rep.skipped_commits;
  r.dry_run = o.dry_run;
  if (o.dry_run) r.plan = dry_run_plan(r, bundle.exported_at);
  return r;
}

}  // namespace tether::engine
