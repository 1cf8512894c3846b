// core/cli/init.cpp: `tether init` and `tether backends`.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/sdk/types.hpp"

namespace tether::cli {

int run_init(const Global& g, const InitOptions& o) {
  auto r = engine::Repo::init(o.path);
  if (g.json) {
    print_json(nlohmann::json{{"root", r.root.string()}, {"dataset_id", r.dataset_id}, {"trunk", r.trunk}});
    return 0;
  }
  out("initialized tether dataset at " + r.root.string() + " (dataset id " + r.dataset_id + ": its pins and working branches are tether." +
      r.dataset_id + ".* / tether.ws." + r.dataset_id + ".*; trunk " + r.trunk + ")");
  return 0;
}

int run_backends(const Global& g, const BackendsOptions&) {
  host::PluginHost host;
  auto infos = host.list_installed();
  if (g.json) {
    auto arr = nlohmann::json::array();
    for (const auto& i : infos) {
      arr.push_back({{"kind", i.kind},
                     {"installed", !i.error},
                     {"maturity", i.error ? nlohmann::json(nullptr) : nlohmann::json(i.maturity)},
                     {"tier", i.error ? nlohmann::json(nullptr) : nlohmann::json(i.tier)},
                     {"capabilities", sdk::capability_names(i.capabilities)},
                     {"path", i.path.string()},
                     {"abi", i.abi},
                     {"version", i.version},
                     {"note", i.error ? nlohmann::json(*i.error) : nlohmann::json(nullptr)}});
    }
    print_json(arr);
    return 0;
  }
  if (infos.empty()) {
    out("no backend plugins found (searched:");
    for (const auto& p : host.search_path()) out("  " + p.string());
    out("); set TETHER_PLUGIN_PATH to a directory holding tether-backend-<kind>.so");
    return 0;
  }
  for (const auto& i : infos) {
    if (i.error) {
      out(ljust(i.kind, 10) + " not installed: " + *i.error);
      continue;
    }
    std::string caps;
    for (const auto& c : sdk::capability_names(i.capabilities & ~static_cast<uint32_t>(sdk::kFingerprint)))
      caps += (caps.empty() ? "" : ", ") + c;
    out(ljust(i.kind, 10) + " " + ljust(i.maturity, 13) + " " + ljust(i.tier, 11) + " " + caps);
    out(std::string(11, ' ') + i.path.string() + " (ABI " + i.abi + ", plugin " + i.version + ")");
  }
  out("");
  out("experimental commands: export, publish, import (registries and SQL; the table schema may change before 0.2)");
  return 0;
}

}  // namespace tether::cli
