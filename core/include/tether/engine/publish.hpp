// tether/engine/publish.hpp: `tether publish` (experimental; docs/registry.md#publish): the
// history's registry tables upserted into a PostgreSQL schema. The engine walks the history,
// publishes, and under --dry-run returns the plan the CLI prints.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct PublishOptions {
  std::string dsn;  // libpq connection string; the CLI takes it from --to or $TETHER_PUBLISH_DSN only
  std::string schema = "tether";
  std::vector<std::string> revs;  // empty: every reachable commit
  bool listings = false, dry_run = false;
  std::function<void(std::size_t done, std::size_t total)> reading, writing;  // progress of each step
};

struct PublishResult {
  std::string schema;
  std::string head;  // the working copy's commit at export ("" when unborn)
  std::vector<std::pair<std::string, std::size_t>> upserted;  // table -> rows, in table order
  std::size_t skipped_commits = 0;  // commits the schema already held
  bool dry_run = false;
  Plan plan;  // dry run: one `upsert` action per table with rows to write
  std::size_t total() const;
  nlohmann::json to_json() const;  // applied: `tether publish --json` (docs/cli.md)
};

// Refuses (ConfigError) an empty DSN or a schema name that is no SQL identifier: cheap, so the
// CLI calls it before opening the dataset; publish() calls it again.
void check_publish_options(const PublishOptions& options);
PublishResult publish(Repo& repo, const PublishOptions& options);

}  // namespace tether::engine
