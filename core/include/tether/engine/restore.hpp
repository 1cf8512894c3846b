// tether/engine/restore.hpp: `tether restore` (docs/cli.md): reset working branches onto the
// states a revision records.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

struct RestoreOptions {
  std::vector<std::string> keys;
  std::string from;
  bool discard = false;
  bool dry_run = false;
  std::optional<Plan> saved;
};
struct RestoreResult {
  Plan plan;
  bool applied = false;
  std::string from;
  std::map<std::string, std::string> working_refs;
  Json to_json() const;  // `tether restore --json` (docs/cli.md)
};

}  // namespace tether::engine
