// tether/support/utf8.hpp: one UTF-8 decoder for the JSON writers, Python reprs, key
// validation, import sources and the file backend's name check. Forgiving by design: an
// invalid byte decodes as itself with length 1 and `valid = false`, so a caller chooses what to
// make of it (pass it through, replace it, refuse the text).
#pragma once

#include <cstdint>
#include <string_view>

namespace tether::support::utf8 {

struct CodePoint {
  uint32_t value;
  std::size_t length;
  bool valid;
};

inline CodePoint decode(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1, true};
  std::size_t n = 0;
  uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) { n = 2; cp = b0 & 0x1F; }
  else if ((b0 & 0xF0) == 0xE0) { n = 3; cp = b0 & 0x0F; }
  else if ((b0 & 0xF8) == 0xF0) { n = 4; cp = b0 & 0x07; }
  else return {b0, 1, false};
  if (i + n > s.size()) return {b0, 1, false};
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {b0, 1, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong forms, surrogates and values past U+10FFFF.
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {b0, 1, false};
  return {cp, n, true};
}

// Strict UTF-8 throughout (no overlong forms, no surrogates, nothing above U+10FFFF): what
// Python accepts when it encodes a str to UTF-8.
inline bool valid(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto cp = decode(s, i);
    if (!cp.valid) return false;
    i += cp.length;
  }
  return true;
}

}  // namespace tether::support::utf8
