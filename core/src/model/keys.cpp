// model/keys.cpp: key validation and the key <-> manifest path mapping.
#include "tether/model/keys.hpp"

#include <optional>
#include <string>
#include <vector>

#include "tether/errors.hpp"
#include "tether/model/json.hpp"
#include "tether/support/utf8.hpp"

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

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The code points HFS+ ignores when it compares names (git's utf8.c next_hfs_char).
bool hfs_ignorable(uint32_t c) {
  return (c >= 0x200C && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x206A && c <= 0x206F) || c == 0xFEFF;
}

// git's is_ntfs_dotgit for one path component: `.git` or `git~1` (any case), then only dots
// and spaces up to the end or an NTFS stream separator `:` (`.git.`, `.git `, `GIT~1`,
// `.git::$INDEX_ALLOCATION`). core.protectNTFS is on by default everywhere since git 2.24.
bool ntfs_dotgit(std::string_view seg) {
  std::size_t i = 0;
  const auto match = [&](std::string_view word) {
    if (seg.size() - i < word.size()) return false;
    for (std::size_t k = 0; k < word.size(); ++k)
      if (ascii_lower(seg[i + k]) != word[k]) return false;
    i += word.size();
    return true;
  };
  if (!match(".git") && !match("git~1")) return false;
  for (; i < seg.size(); ++i) {
    if (seg[i] == ':') return true;
    if (seg[i] != '.' && seg[i] != ' ') return false;
  }
  return true;
}

// git's is_hfs_dotgit: `.git` (any case) once the HFS-ignorable code points are dropped, as
// HFS+ itself compares it (`.g<U+200C>it` is the directory `.git` on a Mac).
bool hfs_dotgit(std::string_view seg) {
  std::string folded;
  for (std::size_t i = 0; i < seg.size();) {
    const auto cp = support::utf8::decode(seg, i);
    if (!(cp.valid && hfs_ignorable(cp.value))) folded.append(seg.substr(i, cp.length));
    i += cp.length;
  }
  if (folded.size() != 4) return false;
  for (std::size_t k = 0; k < 4; ++k)
    if (ascii_lower(folded[k]) != ".git"[k]) return false;
  return true;
}

// The first segment of `key` git reserves, if any.
std::optional<std::string_view> first_git_reserved(std::string_view key) {
  std::size_t start = 0;
  while (true) {
    const auto slash = key.find('/', start);
    const auto seg = key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (is_git_reserved_segment(seg)) return seg;
    if (slash == std::string_view::npos) return std::nullopt;
    start = slash + 1;
  }
}

}  // namespace

bool is_git_reserved_segment(std::string_view seg) { return ntfs_dotgit(seg) || hfs_dotgit(seg); }

bool is_safe_key(std::string_view key) {
  if (key.empty() || key.front() == '/' || key.back() == '/') return false;
  if (key.find('\\') != std::string_view::npos) return false;
  for (std::size_t i = 0; i < key.size();) {
    const auto cp = support::utf8::decode(key, i);
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
    if (is_git_reserved_segment(seg)) return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

void validate_key(std::string_view key) {
  if (is_safe_key(key)) return;
  // Every other rule is about the key's shape; this one needs saying, or `.GIT/x` looks fine.
  if (auto seg = first_git_reserved(key))
    throw ConfigError("unsafe object key: " + py_repr(key) + " (git reserves the path segment " + py_repr(*seg) +
                      " and would not store the manifest; choose another key)");
  throw ConfigError("unsafe object key: " + py_repr(key));
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
