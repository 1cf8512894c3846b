// core/cli/backends.cpp: `tether backends`: the installed backend plugins (no dataset needed).
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/engine/backends.hpp"

namespace tether::cli {

int run_backends(const Global& g, const BackendsOptions&) {
  const engine::BackendsReport r = engine::installed_backends();
  if (g.json) {
    print_json(r.to_json());
    return 0;
  }
  if (r.backends.empty()) {
    out("no backend plugins found (searched:");
    for (const auto& p : r.search_path) out("  " + p.string());
    out("); set TETHER_PLUGIN_PATH to a directory holding tether-backend-<kind>.so");
    return 0;
  }
  for (const auto& i : r.backends) {
    if (i.error) {
      out(ljust(i.kind, 10) + " not installed: " + *i.error);
      continue;
    }
    std::string caps;  // every backend fingerprints: the line names the rest
    for (const auto& c : i.capabilities)
      if (c != "fingerprint") caps += (caps.empty() ? "" : ", ") + c;
    out(ljust(i.kind, 10) + " " + ljust(i.maturity, 13) + " " + ljust(i.tier, 11) + " " + caps);
    out(std::string(11, ' ') + i.path.string() + " (ABI " + i.abi + ", plugin " + i.version + ")");
    if (!i.uri_schemes.empty()) {
      // Schemes of one maturity together: "object stores: s3, s3a stable; az, gs experimental".
      std::map<std::string, std::string> by_maturity;
      for (const auto& [scheme, maturity] : i.uri_schemes)
        by_maturity[maturity] += (by_maturity[maturity].empty() ? "" : ", ") + scheme;
      std::string line;
      for (const char* m : {"stable", "experimental"})
        if (by_maturity.count(m)) line += (line.empty() ? "" : "; ") + by_maturity[m] + " " + m;
      for (const auto& [m, schemes] : by_maturity)
        if (m != "stable" && m != "experimental") line += (line.empty() ? "" : "; ") + schemes + " " + m;
      out(std::string(11, ' ') + "object stores: " + line);
    }
  }
  out("");
  out("experimental commands: export, publish, import (registries and SQL; the table schema may change before 0.2)");
  return 0;
}

}  // namespace tether::cli
