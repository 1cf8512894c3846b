// core/src/engine/backends.cpp: `tether backends` (docs/cli.md): the plugin host's findings as
// a result struct.
#include "tether/engine/backends.hpp"

#include "tether/host/plugin_host.hpp"
#include "tether/sdk/types.hpp"

namespace tether::engine {

BackendsReport installed_backends() {
  host::PluginHost host;
  BackendsReport r;
  for (const auto& i : host.list_installed())
    r.backends.push_back({i.kind, i.path, i.maturity, i.tier, sdk::capability_names(i.capabilities), i.abi, i.version,
                          i.uri_schemes, i.error});
  r.search_path = host.search_path();
  return r;
}

nlohmann::json BackendsReport::to_json() const {
  using nlohmann::json;
  auto arr = json::array();
  for (const auto& i : backends)
    arr.push_back({{"kind", i.kind},
                   {"installed", i.installed()},
                   {"maturity", i.error ? json(nullptr) : json(i.maturity)},
                   {"tier", i.error ? json(nullptr) : json(i.tier)},
                   {"capabilities", i.capabilities},
                   {"path", i.path.string()},
                   {"abi", i.abi},
                   {"version", i.version},
                   {"uri_schemes", i.uri_schemes},
                   {"note", i.error ? json(*i.error) : json(nullptr)}});
  return arr;
}

}  // namespace tether::engine
