// tether/host/plugin_host.hpp: the registry of backends the engine uses. One BackendProxy per
// kind, loaded on first use from the search path (discovery.hpp), configured once by the
// engine's configurator, and kept for the host's lifetime.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tether/host/proxy.hpp"

namespace tether::host {

// One row of `tether backends`.
struct PluginInfo {
  std::string kind;
  std::filesystem::path path;
  std::string maturity;  // stable | experimental ("" when it failed to load)
  std::string tier;      // observed | addressable | pinnable | forkable
  uint32_t capabilities = 0;
  std::string abi;      // "0.1"
  std::string version;  // the plugin's own version
  std::map<std::string, std::string> uri_schemes;  // object-store scheme -> maturity
  std::optional<std::string> error;  // why it did not load
};

class PluginHost {
 public:
  // Searches plugin_search_path() (the process's environment and executable).
  PluginHost();
  explicit PluginHost(std::vector<std::filesystem::path> search_path);

  // Called once per kind after loading, before get() returns it: the engine passes the
  // cache dir, checkout root and secrets with BackendProxy::configure. If it throws, the
  // kind is not registered and the next get() tries again.
  using Configurator = std::function<void(BackendProxy&)>;
  void set_configurator(Configurator configurator);

  // The config JSON handed to create() for `kind` ("{}" unless set before first use).
  void set_backend_config(const std::string& kind, std::string config_json);

  // A backend linked into the process (tests, built-ins); takes precedence over the path.
  void add_builtin(const tether_plugin_entry& entry);

  // The proxy for `kind`, loading it on first use. Thread-safe. Throws ConfigError for an
  // invalid kind and LoadError when no plugin is found or it cannot be loaded.
  BackendProxy& get(std::string_view kind);
  // Already loaded (no loading, no errors).
  BackendProxy* loaded(std::string_view kind) const;

  // Every plugin on the search path (and every builtin), loaded to read its description; a
  // plugin that fails is listed with its error. Sorted by kind.
  std::vector<PluginInfo> list_installed();

  const std::vector<std::filesystem::path>& search_path() const { return search_path_; }

 private:
  std::shared_ptr<Plugin> load_plugin(const std::string& kind, const std::filesystem::path& path) const;

  std::vector<std::filesystem::path> search_path_;
  mutable std::mutex mu_;
  Configurator configurator_;
  std::map<std::string, std::string, std::less<>> configs_;
  std::map<std::string, const tether_plugin_entry*, std::less<>> builtins_;
  std::map<std::string, std::unique_ptr<BackendProxy>, std::less<>> proxies_;
};

}  // namespace tether::host
