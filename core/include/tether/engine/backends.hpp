// tether/engine/backends.hpp: `tether backends`, what the plugin host finds installed. Needs
// no dataset: it runs anywhere, and the CLI renders the result as text or --json.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

// One plugin found on the search path.
struct BackendInfo {
  std::string kind;
  std::filesystem::path path;
  std::string maturity;                    // stable | experimental ("" when it failed to load)
  std::string tier;                        // observed | addressable | pinnable | forkable
  std::vector<std::string> capabilities;   // every capability's name, in bit order
  std::string abi, version;
  std::map<std::string, std::string> uri_schemes;  // object-store scheme -> maturity
  std::optional<std::string> error;        // why it did not load
  bool installed() const { return !error; }
};

struct BackendsReport {
  std::vector<BackendInfo> backends;
  std::vector<std::filesystem::path> search_path;  // where the host looked
  nlohmann::json to_json() const;                  // `tether backends --json` (docs/cli.md)
};

// Loads every plugin on the search path ($TETHER_PLUGIN_PATH, beside the executable) once.
BackendsReport installed_backends();

}  // namespace tether::engine
