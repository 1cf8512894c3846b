// tether/engine/restore.hpp: `tether restore` (docs/cli.md): reset working branches onto the
// states a revision records.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

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

RestoreResult restore(Repo& repo, const RestoreOptions& options);

}  // namespace tether::engine
