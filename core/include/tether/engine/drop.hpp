// tether/engine/drop.hpp: `tether drop` (docs/cli.md): delete a bookmark, the commits only it
// reaches and their branches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tether/engine/gc.hpp"
#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct DropOptions {
  std::string bookmark;
  std::optional<std::string> to;  // where this checkout goes if it is on the bookmark (default trunk)
  bool force_prune = false;
  bool delete_stores = false;  // experimental: also the stores `add --create` made that go with it
  bool dry_run = true;
  std::optional<Plan> saved;
};
struct DropResult {
  Plan plan;
  bool applied = false;
  std::string bookmark;
  std::optional<std::string> left_for;
  std::vector<std::string> abandoned;
  std::optional<GcReport> gc;
  Json to_json() const;  // `tether drop --no-dry-run --json`: gc's report without "dry_run"
};

DropResult drop(Repo& repo, const DropOptions& options);

}  // namespace tether::engine
