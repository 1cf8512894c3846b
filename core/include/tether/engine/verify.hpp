// tether/engine/verify.hpp: `tether verify` (docs/cli.md): do the committed pins and states
// still resolve in their stores.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct VerifyEntry {
  std::string label;
  std::string status;  // ok | drifted | missing | unknown
  std::string message;
};
struct VerifyOptions {
  std::optional<std::string> rev;
  bool all_history = false, deep = false;
  // The process exits after this (the CLI): the walk's parsed manifests, texts and labels go
  // to keep_until_exit (tether/engine/repo.hpp) instead of being freed one by one.
  bool leave_memory_to_exit = false;
  ProgressFn reading;   // --all-history: the commits the history index lacks, read from the VCS
  ProgressFn progress;  // the distinct records verified
};
struct VerifyResult {
  std::vector<VerifyEntry> entries;
  // History records skipped because they promise nothing (Observed: no pin, not recoverable).
  std::size_t skipped_observed = 0;
  bool ok() const;
  Json to_json() const;  // `tether verify --json`: {label: {status, message}} (docs/cli.md)
};

VerifyResult verify(Repo& repo, const VerifyOptions& options);

}  // namespace tether::engine
