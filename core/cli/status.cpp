// core/cli/status.cpp: `tether status`: each object against its committed state.
#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/ops.hpp"
#include "tether/engine/status.hpp"

namespace tether::cli {

namespace {

// "12s ago", "5m ago", "3h ago", "2d ago" from an ISO-8601 UTC timestamp.
std::string age(const std::optional<std::string>& iso) {
  if (!iso) return "never";
  std::tm tm{};
  if (!strptime(iso->c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return *iso;
  std::time_t then = timegm(&tm);
  long s = static_cast<long>(std::time(nullptr) - then);
  if (s < 0) s = 0;
  if (s < 60) return std::to_string(s) + "s ago";
  if (s < 3600) return std::to_string(s / 60) + "m ago";
  if (s < 86400) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

}  // namespace

int run_status(const Global& g, const StatusOptions& o) {
  auto repo = open_repo();
  Progress progress("fingerprinting", !g.json);
  auto r = engine::status(*repo, o.snapshot, progress.callback());
  progress.finish();
  if (g.json) {
    print_json(r.to_json());
    return r.has_error() ? 1 : 0;
  }
  std::string where;
  if (!r.bookmark) where = "on no bookmark: read-only (`tether new -b NAME` to write)";
  else if (*r.bookmark == r.trunk) where = "on trunk bookmark " + *r.bookmark;
  else where = "on bookmark " + *r.bookmark;
  std::string stale;
  if (!r.stale_keys.empty()) {
    for (const auto& k : r.stale_keys) stale += (stale.empty() ? "" : ", ") + k;
    stale = red(" (STALE: " + stale + ")");
  }
  out("dataset " + r.manifest_hash.substr(0, 12) + "; " + where + stale);
  for (const auto& w : r.bookmark_drift) warning(w);
  for (const auto& d : repo->vcs_drift()) warning(d.message());  // docs/cli.md, `tether ops`
  if (!r.stale_keys.empty())
    out("  the committed state of these changed since this workspace forked; `tether new` reforks before writing");
  if (!r.fresh) out("  states as fingerprinted " + age(r.snapshot_at) + "; --snapshot to refresh");
  if (r.objects.empty()) out("  no objects yet: `tether add KEY PATH --kind file` registers one");
  for (const auto& ob : r.objects) {
    std::string line = "  " + rjust(ob.label, 9) + "  " + ob.key + "  [" + ob.kind + "/" + ob.tier + "]";
    if (ob.origin && *ob.origin == "created") line += " (created)";
    if (!ob.recoverable) line += " unrecoverable";
    if (ob.verify) line += " verify=" + *ob.verify;
    // `dirty` (git, dolt): the store's checkout has changes no native commit holds yet.
    if (ob.state && ob.state->is_object() && ob.state->value("dirty", false) == true)
      line += " dirty: uncommitted changes in its working tree";
    if (ob.label == "error") line = red(line);
    else if (ob.label == "modified" || ob.label == "new") line = yellow(line);
    out(line);
  }
  for (const auto& ob : r.objects)
    if (ob.error) error_line(*ob.error);
  return r.has_error() ? 1 : 0;
}

}  // namespace tether::cli
