// tether/engine/abandon.hpp: `tether abandon` (docs/cli.md): remove dataset commits from the
// history, and with --gc release what became unreferenced.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tether/engine/gc.hpp"
#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct AbandonOptions {
  std::vector<std::string> revs;
  bool gc = false;  // also release what became unreferenced
  bool dry_run = false;
  std::optional<Plan> saved;
};
struct AbandonResult {
  Plan plan;
  bool applied = false;
  std::vector<std::string> abandoned;
  std::map<std::string, std::string> rewritten, bookmarks_moved;  // old -> new commit; bookmark -> commit
  Plan gc_plan;
  std::optional<GcReport> gc;  // when --gc applied it
  std::map<std::string, std::string> failed;  // bookmark -> why it could not be moved
  std::map<std::string, std::string> gc_unreachable;  // gc_plan's stores that could not be listed
  Json to_json() const;  // `tether abandon --json` (docs/cli.md)
};

AbandonResult abandon(Repo& repo, const AbandonOptions& options);

}  // namespace tether::engine
