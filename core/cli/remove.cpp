// core/cli/remove.cpp: `tether remove`: unregister an object (its store is not touched).
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/objects.hpp"

namespace tether::cli {

int run_remove(const Global& g, const RemoveOptions& o) {
  auto repo = open_repo();
  auto r = engine::remove(*repo, o.key);
  if (g.json) print_json(r.to_json());
  else out("removed " + r.key);
  return 0;
}

}  // namespace tether::cli
