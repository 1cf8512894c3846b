// tether/engine/export.hpp: `tether export` (experimental; docs/registry.md#export): the
// registry tables of the history, which export_bundle builds and the registry layer
// writes as SQLite, Parquet, CSV or JSONL.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tether/engine/progress.hpp"
#include "tether/registry/registry.hpp"

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct ExportOptions {
  std::vector<std::string> revs;  // --rev; empty = every reachable commit (or HEAD without all_history)
  bool all_history = true;
  bool listings = false;   // fill listings / listing_entries
  bool workspace = false;  // fill workspace
  ProgressFn progress;

  // Incremental publish (engine/publish.cpp): commits whose commit-keyed rows (commits,
  // commit_parents, objects) the target already holds. Their trees are not read and their
  // rows not built; they still count for ancestry depths, refs and the head. Only ids of
  // walked commits matter: any other id in it changes nothing. Bundle::omitted_commits
  // says how many were left out. Null: every walked commit is built.
  const std::unordered_set<std::string>* skip = nullptr;
  // With `skip`, what the target stores of the states the built commits record, so
  // object_states names the first commit over the whole walk (see add_object_states): per
  // key, its stored first commit (at most one record), and, asked only for the keys whose
  // stored first commit is not walked, every commit recording it.
  using StateRecords = std::function<std::vector<std::vector<registry::StateRecord>>(const std::vector<registry::StateKey>&)>;
  StateRecords first_records, all_records;
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
