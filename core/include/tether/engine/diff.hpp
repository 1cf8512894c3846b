// tether/engine/diff.hpp: `tether diff` (docs/cli.md): the manifests of two revisions compared,
// with the backends' content diff under --content.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/sdk/types.hpp"

namespace tether::engine {

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

}  // namespace tether::engine
