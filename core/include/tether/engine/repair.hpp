// tether/engine/repair.hpp: `tether repair` (docs/cli.md): recreate what the manifests promise
// and the stores lost (pins, working branches), and finish an interrupted promote.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct RepairOptions {
  bool all_history = false;
  bool dry_run = false;
  std::optional<Plan> saved;
};
struct RepairResult {
  Plan plan;
  bool applied = false;
  std::map<std::string, std::string> repinned;  // target label -> pin ref
  std::map<std::string, std::string> reforked;  // key -> working ref
  std::map<std::string, std::string> finished;  // interrupted promote's op id -> what landed
  std::map<std::string, std::string> failed;    // "<op> <target>" -> why
  std::vector<std::string> notes;
  Json to_json() const;  // `tether repair --json` (docs/cli.md)
};

RepairResult repair(Repo& repo, const RepairOptions& options);

}  // namespace tether::engine
