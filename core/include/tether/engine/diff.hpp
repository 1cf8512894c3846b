// tether/engine/diff.hpp: `tether diff` (docs/cli.md): the manifests of two revisions compared,
// with the backends' content diff under --content.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/sdk/types.hpp"

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct DiffEntry {
  std::string key;
  std::string change;  // added | removed | changed | unchanged
  std::optional<Json> a, b;  // manifest canonical values
  std::vector<std::string> why;
  std::optional<sdk::ObjectDiff> detail;
  std::optional<std::string> detail_error;
  Json to_json() const;  // one element of `tether diff --json`
};

struct DiffResult {
  std::vector<DiffEntry> entries;  // one per key of either revision, unchanged ones included
  Json to_json() const;            // `tether diff --json` (docs/cli.md): the entries as an array
};

// Between two revisions, a revision and the working copy, or (no revs) HEAD and the working copy;
// `content` asks each backend for its own diff.
DiffResult diff(Repo& repo, const std::vector<std::string>& revs, bool content, const ProgressFn& progress = {});

}  // namespace tether::engine
