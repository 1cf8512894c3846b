// Plugin discovery: the search path of tether/host/discovery.hpp and the look-ups over it.
#include "tether/host/discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <system_error>

#include "tether/errors.hpp"
#include "tether/host/load_error.hpp"

namespace fs = std::filesystem;

namespace tether::host {
namespace {

constexpr std::string_view kPrefix = "tether-backend-";
constexpr std::string_view kSuffix = ".so";

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The meson build root above `exe_dir`, if the executable runs from a build tree.
std::optional<fs::path> build_root(const fs::path& exe_dir) {
  if (exe_dir.empty()) return std::nullopt;
  for (fs::path p = exe_dir;; p = p.parent_path()) {
    if (is_file(p / "meson-info" / "meson-info.json")) return p;
    if (p == p.parent_path()) return std::nullopt;
  }
}

std::vector<fs::path> sorted_subdirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// Directories under `root` (any depth) holding a tether-backend-*.so, in path order.
std::vector<fs::path> dirs_with_plugins(const fs::path& root) {
  std::set<fs::path> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (kind_from_file_name(it->path()) && it->is_regular_file(ec)) found.insert(it->path().parent_path());
  return {found.begin(), found.end()};
}

}  // namespace

bool valid_kind(std::string_view kind) {
  if (kind.empty() || kind.size() > 64) return false;
  return std::all_of(kind.begin(), kind.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

void check_kind(std::string_view kind) {
  if (!valid_kind(kind))
    throw ConfigError("invalid backend kind '" + std::string(kind) +
                      "': a kind is lower-case letters, digits, '_' and '-'");
}

std::string plugin_file_name(std::string_view kind) {
  return std::string(kPrefix) + std::string(kind) + std::string(kSuffix);
}

std::optional<std::string> kind_from_file_name(const fs::path& file) {
  std::string name = file.filename().string();
  if (name.size() <= kPrefix.size() + kSuffix.size()) return std::nullopt;
  if (name.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  if (name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) return std::nullopt;
  std::string kind = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (!valid_kind(kind)) return std::nullopt;
  return kind;
}

SearchEnv SearchEnv::from_process() {
  SearchEnv e;
  e.plugin_path = env("TETHER_PLUGIN_PATH");
  e.xdg_data_home = env("XDG_DATA_HOME");
  e.home = env("HOME");
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) e.exe_dir = exe.parent_path();
  return e;
}

std::vector<fs::path> plugin_search_path(const SearchEnv& e) {
  std::vector<fs::path> dirs;
  auto add = [&dirs](fs::path p) {
    if (p.empty()) return;
    p = p.lexically_normal();
    if (std::find(dirs.begin(), dirs.end(), p) == dirs.end()) dirs.push_back(std::move(p));
  };
  if (e.plugin_path) {
    std::string_view rest = *e.plugin_path;
    while (true) {
      size_t colon = rest.find(':');
      add(fs::path(std::string(rest.substr(0, colon))));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (!e.exe_dir.empty()) {
    add(e.exe_dir / ".." / "lib" / "tether" / "backends");
    add(e.exe_dir / ".." / "lib" / "x86_64-linux-gnu" / "tether" / "backends");
    if (auto root = build_root(e.exe_dir)) {
      for (const auto& d : sorted_subdirs(*root / "plugins")) add(d);
      for (const auto& d : dirs_with_plugins(*root / "conformance")) add(d);
    }
  }
  if (e.xdg_data_home && !e.xdg_data_home->empty())
    add(fs::path(*e.xdg_data_home) / "tether" / "backends");
  else if (e.home && !e.home->empty())
    add(fs::path(*e.home) / ".local" / "share" / "tether" / "backends");
  return dirs;
}

std::vector<fs::path> plugin_search_path() { return plugin_search_path(SearchEnv::from_process()); }

std::optional<fs::path> find_plugin(std::string_view kind, const std::vector<fs::path>& dirs) {
  check_kind(kind);
  const std::string name = plugin_file_name(kind);
  for (const auto& d : dirs)
    if (is_file(d / name)) return d / name;
  return std::nullopt;
}

std::optional<fs::path> find_plugin(std::string_view kind) { return find_plugin(kind, plugin_search_path()); }

fs::path require_plugin(std::string_view kind, const std::vector<fs::path>& dirs) {
  if (auto p = find_plugin(kind, dirs)) return *p;
  std::string looked;
  for (const auto& d : dirs) looked += (looked.empty() ? "" : ", ") + d.string();
  if (looked.empty()) looked = "nowhere: the search path is empty";
  throw LoadError("no backend plugin for kind '" + std::string(kind) + "' (looked in: " + looked + "); install " +
                  plugin_file_name(kind) + " or set TETHER_PLUGIN_PATH");
}

std::vector<FoundPlugin> discover_plugins(const std::vector<fs::path>& dirs) {
  std::map<std::string, fs::path> first;
  for (const auto& d : dirs) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      if (kind_from_file_name(it->path()) && it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) first.emplace(*kind_from_file_name(f), f);  // keeps the earlier dir's
  }
  std::vector<FoundPlugin> out;
  for (auto& [kind, path] : first) out.push_back({kind, path});
  return out;
}

std::vector<FoundPlugin> discover_plugins() { return discover_plugins(plugin_search_path()); }

}  // namespace tether::host
