// tether/engine/import.hpp: `tether import` (experimental; docs/registry.md#import): the rows
// of a source become add / update / remove actions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct ImportOptions {
  std::string source;  // PostgreSQL DSN, SQLite file, .csv, .jsonl (registry/import_source.hpp)
  // --table / --query; with neither, a SQL source uses secrets.toml's [import] query.
  std::optional<std::string> table, query;
  bool sync = false;  // also remove registered objects the source does not list
  bool dry_run = false;
  std::optional<Plan> saved;  // --from-plan: the source is not read again
  std::filesystem::path cwd;  // relative local paths in locators resolve against it
};
struct ImportResult {
  Plan plan;
  bool applied = false;
  std::vector<std::string> added, updated, removed, unchanged;
  Json to_json() const;  // `tether import --json` (docs/cli.md)
};

// Registers, updates and (with sync) unregisters objects as a source lists them; never
// contacts a store and never records a state (only `commit` does).
ImportResult import_objects(Repo& repo, const ImportOptions& options);

}  // namespace tether::engine
