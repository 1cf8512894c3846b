// PluginHost: load-on-first-use registry of BackendProxy objects, and `tether backends`.
#include "tether/host/plugin_host.hpp"

#include <utility>

#include "tether/host/discovery.hpp"

namespace fs = std::filesystem;

namespace tether::host {

PluginHost::PluginHost() : search_path_(plugin_search_path()) {}

PluginHost::PluginHost(std::vector<fs::path> search_path) : search_path_(std::move(search_path)) {}

void PluginHost::set_configurator(Configurator configurator) {
  std::lock_guard lock(mu_);
  configurator_ = std::move(configurator);
}

void PluginHost::set_backend_config(const std::string& kind, std::string config_json) {
  std::lock_guard lock(mu_);
  configs_[kind] = std::move(config_json);
}

void PluginHost::add_builtin(const tether_plugin_entry& entry) {
  std::string kind = entry.kind ? entry.kind : "";
  check_kind(kind);
  std::lock_guard lock(mu_);
  builtins_[kind] = &entry;
}

std::shared_ptr<Plugin> PluginHost::load_plugin(const std::string& kind, const fs::path& path) const {
  LoadOptions opts;
  opts.kind = kind;
  if (auto it = configs_.find(kind); it != configs_.end()) opts.config = it->second;
  if (auto it = builtins_.find(kind); it != builtins_.end())
    return Plugin::from_entry(*it->second, "builtin:" + kind, opts);
  return Plugin::load(path, opts);
}

BackendProxy& PluginHost::get(std::string_view kind) {
  check_kind(kind);
  // One lock for the whole load: loads are rare and init/create must not run concurrently.
  std::lock_guard lock(mu_);
  if (auto it = proxies_.find(kind); it != proxies_.end()) return *it->second;
  std::string k(kind);
  fs::path path;
  if (!builtins_.count(k)) path = require_plugin(k, search_path_);
  auto proxy = std::make_unique<BackendProxy>(load_plugin(k, path));
  if (configurator_) configurator_(*proxy);
  return *proxies_.emplace(k, std::move(proxy)).first->second;
}

BackendProxy* PluginHost::loaded(std::string_view kind) const {
  std::lock_guard lock(mu_);
  auto it = proxies_.find(kind);
  return it == proxies_.end() ? nullptr : it->second.get();
}

std::vector<PluginInfo> PluginHost::list_installed() {
  std::map<std::string, fs::path> found;
  for (auto& f : discover_plugins(search_path_)) found.emplace(f.kind, f.path);
  std::lock_guard lock(mu_);
  for (const auto& [kind, entry] : builtins_) found[kind] = "builtin:" + kind;

  auto describe = [](PluginInfo& info, const Plugin& p) {
    const auto& d = p.description();
    info.maturity = d.maturity;
    info.capabilities = d.capabilities;
    info.tier = sdk::tier_name(d.capabilities);
    info.abi = p.abi_version();
    info.version = p.plugin_version();
    info.uri_schemes = d.uri_schemes;
  };
  std::vector<PluginInfo> out;
  for (const auto& [kind, path] : found) {
    PluginInfo info;
    info.kind = kind;
    info.path = path;
    if (auto it = proxies_.find(kind); it != proxies_.end()) {
      info.path = it->second->path();
      describe(info, it->second->plugin());
    } else {
      try {
        describe(info, *load_plugin(kind, path));  // released again at once
      } catch (const std::exception& e) {
        info.error = e.what();
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace tether::host
