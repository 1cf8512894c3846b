// tether/engine/promote.hpp: `tether promote` (docs/cli.md): land a bookmark's working
// branches on their base branches, whole or not at all.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"
#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

struct PromoteOptions {
  std::vector<std::string> keys;
  std::optional<std::string> rev;
  std::string strategy = "auto";  // auto | ff | merge
  std::optional<std::string> message;
  bool dry_run = false;
  std::optional<Plan> saved;
  ProgressFn progress;
};
struct PromoteReport {
  Plan plan;
  bool applied = false;
  std::map<std::string, Json> fast_forwarded, merged;
  std::vector<std::string> skipped;
  std::map<std::string, std::string> refused, held, kept_forks, failed;
  // Moves that landed and went back because another did not (the bookmark lands whole).
  std::map<std::string, std::string> rolled_back;
  std::map<std::string, std::vector<std::string>> conflicts;
  std::optional<std::string> trunk_moved, trunk_held;
  Json to_json() const;  // `tether promote --json` (docs/cli.md; "failed" only when any)
};

PromoteReport promote(Repo& repo, const PromoteOptions& options);

}  // namespace tether::engine
