// core/cli/init.cpp: `tether init`.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/init.hpp"

namespace tether::cli {

int run_init(const Global& g, const InitOptions& o) {
  auto r = engine::init(o.path);
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  out("initialized tether dataset at " + r.root.string() + " (dataset id " + r.dataset_id + ": its pins and working branches are tether." +
      r.dataset_id + ".* / tether.ws." + r.dataset_id + ".*; trunk " + r.trunk + ")");
  return 0;
}

}  // namespace tether::cli
