// core/cli/diff.cpp: `tether diff`: manifests of two revisions compared.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/diff.hpp"

namespace tether::cli {

int run_diff(const Global& g, const DiffOptions& o) {
  auto repo = open_repo();
  Progress progress("diffing", !g.json);
  auto r = engine::diff(*repo, o.revs, o.content, progress.callback());
  progress.finish();
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  for (const auto& e : r.entries) {
    if (e.change == "unchanged") continue;
    std::string line = "  " + rjust(e.change, 9) + "  " + e.key;
    if (e.detail) line += "  [" + e.detail->summary() + "]";
    else if (e.detail_error) line += "  [diff failed: " + *e.detail_error + "]";
    else if (e.change == "changed" && std::find(e.why.begin(), e.why.end(), "state") == e.why.end()) {
      std::string why;
      for (const auto& w : e.why) why += (why.empty() ? "" : " and ") + w;
      line += "  [" + why + " changed; same state]";
    }
    out(line);
    if (!e.detail) continue;
    std::size_t shown = 0;
    for (const auto& c : e.detail->entries) {
      if (shown == static_cast<std::size_t>(o.limit)) break;
      out(std::string(14, ' ') + rjust(c.change, 9) + "  " + c.path + (c.detail.empty() ? "" : "  " + c.detail));
      ++shown;
    }
    if (e.detail->entries.size() > shown)
      out(std::string(14, ' ') + "... " + std::to_string(e.detail->entries.size() - shown) + " more (use --limit)");
  }
  return 0;
}

}  // namespace tether::cli
