// core/cli/snapshot.cpp: `tether snapshot`: fingerprint every object and cache the states.
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/status.hpp"
#include "tether/model/json.hpp"

namespace tether::cli {

int run_snapshot(const Global& g, const SnapshotOptions&) {
  auto repo = open_repo();
  Progress progress("fingerprinting", !g.json);
  auto r = engine::snapshot(*repo, progress.callback());
  progress.finish();
  if (g.json) {
    // {key: state}; objects that failed are reported on stderr.
    print_json(r.to_json());
  } else {
    for (const auto& [k, s] : r.states) out("  " + k + ": " + model::py_repr(s));
  }
  for (const auto& [k, e] : r.errors) error_line(e);
  return r.errors.empty() ? 0 : 1;
}

}  // namespace tether::cli
