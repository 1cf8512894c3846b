// tether/host/discovery.hpp: where backend plugins are looked up.
//
// A plugin for kind K is a file named tether-backend-K.so. The search path, first hit wins:
//   1. each directory of $TETHER_PLUGIN_PATH (colon-separated; empty entries skipped);
//   2. next to the executable: <exe dir>/../lib/tether/backends and
//      <exe dir>/../lib/x86_64-linux-gnu/tether/backends (installed layouts);
//   3. the build tree, when the executable runs from a meson build directory: walking up
//      from <exe dir>, the first directory holding meson-info/meson-info.json is the build
//      root; its plugins/<K>/ directories and every directory under conformance/ that holds a
//      tether-backend-*.so are searched (plugins/ first, each level in name order);
//   4. the user's data directory: $XDG_DATA_HOME/tether/backends, else
//      ~/.local/share/tether/backends.
//
// Nothing here takes a dataset path, on purpose: a dataset checkout arrives with `git clone`,
// and a committed file must never be able to make tether load code.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tether::host {

// [a-z0-9_-]+, at most 64 characters.
bool valid_kind(std::string_view kind);
// Throws ConfigError naming the kind when it is not valid.
void check_kind(std::string_view kind);

// "tether-backend-<kind>.so"
std::string plugin_file_name(std::string_view kind);
// The kind a file name declares ("tether-backend-git.so" -> "git"), if it follows the rule.
std::optional<std::string> kind_from_file_name(const std::filesystem::path& file);

// The inputs of the search path, separated from the process so tests can set them.
struct SearchEnv {
  std::optional<std::string> plugin_path;    // $TETHER_PLUGIN_PATH
  std::filesystem::path exe_dir;             // directory of the running executable ("" = none)
  std::optional<std::string> xdg_data_home;  // $XDG_DATA_HOME
  std::optional<std::string> home;           // $HOME

  static SearchEnv from_process();
};

// The directories to search, in order, without duplicates. Build-tree directories are
// listed only when they exist; other entries are listed whether or not they exist.
std::vector<std::filesystem::path> plugin_search_path(const SearchEnv& env);
std::vector<std::filesystem::path> plugin_search_path();

// The first tether-backend-<kind>.so on the search path (ConfigError on an invalid kind).
std::optional<std::filesystem::path> find_plugin(std::string_view kind, const std::vector<std::filesystem::path>& dirs);
std::optional<std::filesystem::path> find_plugin(std::string_view kind);

// find_plugin, or a LoadError: "no backend plugin for kind 'x' (looked in: a, b, c); install
// tether-backend-x.so or set TETHER_PLUGIN_PATH".
std::filesystem::path require_plugin(std::string_view kind, const std::vector<std::filesystem::path>& dirs);

struct FoundPlugin {
  std::string kind;
  std::filesystem::path path;
};
// Every kind on the search path, the first file of each kind, sorted by kind. Files whose
// kind part is not a valid kind are skipped.
std::vector<FoundPlugin> discover_plugins(const std::vector<std::filesystem::path>& dirs);
std::vector<FoundPlugin> discover_plugins();

}  // namespace tether::host
