// The index format is git's Documentation/gitformat-index.txt: a 12-byte header ("DIRC",
// version, entry count, big-endian), the entries sorted by path and stage, extensions, and a
// trailing hash. An entry is 40 bytes of stat data, the object id, 16 bits of flags (assume
// valid, extended, a 2-bit stage, a 12-bit name length that saturates at 0xFFF), 16 more bits
// of flags when "extended" is set (version 3 and later), and the path: in versions 2 and 3
// NUL-terminated and padded with NULs to a multiple of 8 bytes from the entry's start; in
// version 4 a varint count of bytes to drop from the end of the previous entry's path, then
// the NUL-terminated rest, with no padding.
#include "vcs/git_index.hpp"

#include <cstdint>
#include <cstring>

namespace tether::vcs::index {
namespace {

constexpr std::size_t kOidSize = 20;
constexpr std::size_t kHeaderSize = 12;
constexpr std::size_t kStatSize = 40;
constexpr std::size_t kFlagsAt = kStatSize + kOidSize;  // 60
constexpr uint16_t kExtended = 0x4000;
constexpr uint16_t kNameMask = 0x0FFF;
constexpr uint32_t kModeMask = 0170000;
constexpr uint32_t kDirMode = 0040000;  // a sparse index's directory entry

uint32_t be32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

uint16_t be16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>((u[0] << 8) | u[1]);
}

// Git's offset varint (varint.c): 7 bits a byte, high bit = more, and each continuation adds
// one before shifting so that every value has one encoding. False on overflow or at the end.
bool read_varint(std::string_view bytes, std::size_t& at, uint64_t& out) {
  if (at >= bytes.size()) return false;
  auto c = static_cast<unsigned char>(bytes[at++]);
  uint64_t v = c & 127;
  while (c & 128) {
    ++v;
    if (v == 0 || (v >> 57) != 0) return false;  // the next shift would drop bits
    if (at >= bytes.size()) return false;
    c = static_cast<unsigned char>(bytes[at++]);
    v = (v << 7) | (c & 127);
  }
  out = v;
  return true;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// What one asked path met in the index.
struct Seen {
  bool tracked = false;     // at stage 0, or an entry under "p/"
  bool elsewhere = false;   // only at a conflict stage, or only without case: libgit2 decides
};

void look(std::string_view entry, unsigned stage, const std::vector<std::string>& paths, std::vector<Seen>& seen) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    if (entry.size() < p.size() || seen[i].tracked) continue;
    const bool exact_size = entry.size() == p.size();
    if (!exact_size && entry[p.size()] != '/') continue;
    std::string_view head = entry.substr(0, p.size());
    if (head == p) {
      if (!exact_size || stage == 0) seen[i].tracked = true;
      else seen[i].elsewhere = true;
    } else if (equal_nocase(head, p)) {
      seen[i].elsewhere = true;
    }
  }
}

// Byte order of paths, then stage: the order git writes and libgit2 expects.
bool after(std::string_view prev, unsigned prev_stage, std::string_view path, unsigned stage) {
  int c = prev.compare(path);
  return c < 0 || (c == 0 && prev_stage < stage);
}

}  // namespace

std::optional<std::vector<std::string>> tracked_paths(std::string_view bytes, const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (p.empty()) return std::nullopt;
  if (bytes.size() < kHeaderSize + kOidSize || std::memcmp(bytes.data(), "DIRC", 4) != 0) return std::nullopt;
  const uint32_t version = be32(bytes.data() + 4);
  if (version < 2 || version > 4) return std::nullopt;
  const uint32_t count = be32(bytes.data() + 8);
  const std::size_t end = bytes.size() - kOidSize;  // the trailing hash
  const char* data = bytes.data();

  std::vector<Seen> seen(paths.size());
  std::string last, built;  // version 4: the previous path, and the one being built from it
  std::string_view prev;
  unsigned prev_stage = 0;
  std::size_t at = kHeaderSize;
  for (uint32_t n = 0; n < count; ++n) {
    if (end - at < kFlagsAt + 2) return std::nullopt;
    const char* e = data + at;
    const uint32_t mode = be32(e + 24);
    const uint16_t flags = be16(e + kFlagsAt);
    const unsigned stage = (flags >> 12) & 3;
    std::size_t name_at = kFlagsAt + 2;
    if (flags & kExtended) {
      if (version < 3 || end - at < name_at + 2) return std::nullopt;
      name_at += 2;
    }
    if ((mode & kModeMask) == kDirMode) return std::nullopt;
    const std::size_t name_len = flags & kNameMask;
    std::string_view path;
    if (version < 4) {
      const std::size_t from = at + name_at;
      const void* nul = std::memchr(data + from, '\0', end - from);
      if (!nul) return std::nullopt;
      const std::size_t len = static_cast<const char*>(nul) - (data + from);
      if (len == 0 || (name_len != kNameMask && len != name_len) || (name_len == kNameMask && len < kNameMask))
        return std::nullopt;
      const std::size_t size = (name_at + len + 8) & ~std::size_t{7};
      if (end - at < size) return std::nullopt;
      for (std::size_t i = name_at + len; i < size; ++i)
        if (e[i] != '\0') return std::nullopt;
      path = std::string_view(data + from, len);
      at += size;
    } else {
      std::size_t pos = at + name_at;
      uint64_t drop = 0;
      if (!read_varint(bytes.substr(0, end), pos, drop) || drop > last.size()) return std::nullopt;
      const void* nul = std::memchr(data + pos, '\0', end - pos);
      if (!nul) return std::nullopt;
      const std::size_t len = static_cast<const char*>(nul) - (data + pos);
      built.assign(last, 0, last.size() - drop);
      built.append(data + pos, len);
      if (built.empty() || (name_len != kNameMask && built.size() != name_len) ||
          (name_len == kNameMask && built.size() < kNameMask))
        return std::nullopt;
      at = pos + len + 1;
      path = built;
    }
    if (n > 0 && !after(prev, prev_stage, path, stage)) return std::nullopt;
    look(path, stage, paths, seen);
    if (version < 4) {
      prev = path;
    } else {
      last.swap(built);  // the next entry is built from this one
      prev = last;
    }
    prev_stage = stage;
  }
  // Extensions: a 4-byte signature and a 32-bit size each, ending exactly at the hash.
  while (at < end) {
    if (end - at < 8) return std::nullopt;
    const char sig = data[at];
    const uint32_t size = be32(data + at + 4);
    if (sig < 'A' || sig > 'Z') return std::nullopt;  // mandatory: libgit2 decides
    if (end - at - 8 < size) return std::nullopt;
    at += 8 + size;
  }

  std::vector<std::string> out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (seen[i].tracked) out.push_back(paths[i]);
    else if (seen[i].elsewhere) return std::nullopt;
  }
  return out;
}

}  // namespace tether::vcs::index
