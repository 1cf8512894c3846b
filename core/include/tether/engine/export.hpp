// tether/engine/export.hpp: `tether export` (experimental; docs/registry.md#export): the
// registry tables of the history, which export_bundle builds and the registry layer
// writes as SQLite, Parquet, CSV or JSONL.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tether/engine/progress.hpp"

namespace tether::registry {
class Bundle;
}

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct ExportOptions {
  std::vector<std::string> revs;  // --rev; empty = every reachable commit (or HEAD without all_history)
  bool all_history = true;
  bool listings = false;   // fill listings / listing_entries
  bool workspace = false;  // fill workspace
  ProgressFn progress;
};

// What an export wrote: the target, the working copy's commit at export ("" when unborn) and
// the rows of each table, in table order.
struct ExportResult {
  std::string path, format, head;
  std::vector<std::pair<std::string, std::size_t>> rows;
  Json to_json() const;  // `tether export --json` (docs/cli.md)
};

// The registry tables of the exported commits (docs/registry.md#the-tables): one history
// walk, each distinct manifest text parsed and hashed once.
registry::Bundle export_bundle(Repo& repo, const ExportOptions& options);

}  // namespace tether::engine
