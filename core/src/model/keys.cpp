// model/keys.cpp: key validation and the key <-> manifest path mapping.
#include "tether/model/keys.hpp"

#include <vector>

#include "model/utf8.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::model {
namespace {

// Python str.isspace() minus the plain space, plus the C0 controls (ord < 32).
bool forbidden_code_point(uint32_t c) {
  if (c < 0x20) return true;
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

}  // namespace

bool is_safe_key(std::string_view key) {
  if (key.empty() || key.front() == '/' || key.back() == '/') return false;
  if (key.find('\\') != std::string_view::npos) return false;
  for (std::size_t i = 0; i < key.size();) {
    const auto cp = utf8::decode(key, i);
    if (cp.valid && forbidden_code_point(cp.value)) return false;
    i += cp.length;
  }
  std::size_t start = 0;
  while (true) {
    const auto slash = key.find('/', start);
    const auto seg = key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    const auto is_alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
    if (seg.size() >= 2 && is_alpha(seg[0]) && seg[1] == ':') return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

void validate_key(std::string_view key) {
  if (!is_safe_key(key)) throw ConfigError("unsafe object key: " + py_repr(key));
}

std::filesystem::path key_to_manifest_path(const std::filesystem::path& objects_dir, std::string_view key) {
  validate_key(key);
  std::filesystem::path p = objects_dir;
  std::size_t start = 0;
  while (true) {
    const auto slash = key.find('/', start);
    if (slash == std::string_view::npos) {
      p /= std::string(key.substr(start)) + ".toml";
      break;
    }
    p /= std::string(key.substr(start, slash - start));
    start = slash + 1;
  }
  return p;
}

std::string manifest_path_to_key(const std::filesystem::path& objects_dir, const std::filesystem::path& path) {
  const auto rel = path.lexically_relative(objects_dir);
  std::string key;
  std::vector<std::string> parts;
  for (const auto& part : rel) parts.push_back(part.string());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string seg = parts[i];
    if (i + 1 == parts.size() && seg.size() > 5 && seg.compare(seg.size() - 5, 5, ".toml") == 0)
      seg.resize(seg.size() - 5);
    if (i) key += '/';
    key += seg;
  }
  return key;
}

}  // namespace tether::model
