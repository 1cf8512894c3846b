// tether/engine/new.hpp: `tether new` (docs/cli.md): put this checkout on a bookmark (or none)
// and set up the working branches its objects are written through.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"
#include "tether/engine/progress.hpp"

namespace tether::engine {

class Repo;

struct NewOptions {
  std::optional<std::string> rev, bookmark;  // REV, -b NAME
  bool shared = false, keep = false, discard = false;
  std::optional<bool> eager;  // --eager / --lazy; default [new] fork
  bool dry_run = false;
  std::optional<Plan> saved;
  ProgressFn progress;
};
struct NewResult {
  Plan plan;
  bool applied = false;
  std::optional<std::string> bookmark;
  bool trunk = false;
  std::map<std::string, std::string> working_refs, pending_forks;
  std::map<std::string, Json> fork_points;
  std::vector<std::string> unregistered;  // working refs kept for keys not registered here
  bool kept = false;  // --keep: the working refs were kept, only the baseline refreshed
  Json to_json() const;  // `tether new --json` (docs/cli.md)
};

NewResult new_workspace(Repo& repo, const NewOptions& options);

}  // namespace tether::engine
