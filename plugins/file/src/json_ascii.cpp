#include "json_ascii.hpp"

#include <cstdint>

namespace tether::file {
namespace {

// Decodes one strict UTF-8 sequence at s[i]; returns its length, or 0 when invalid.
std::size_t decode(std::string_view s, std::size_t i, uint32_t& cp) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len;
  uint32_t min;
  if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; min = 0x80; }
  else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; min = 0x800; }
  else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void append_u(std::string& out, uint32_t unit) {
  static const char* digits = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += digits[(unit >> shift) & 15];
}

}  // namespace

void append_json_ascii(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    std::size_t n = decode(s, i, cp);
    if (n == 0) {  // surrogateescape: the raw byte as U+DC80..U+DCFF
      append_u(out, 0xDC00u | static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    i += n;
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    if (cp >= 0x20 && cp <= 0x7E) {
      out += static_cast<char>(cp);
    } else if (cp < 0x10000) {
      append_u(out, cp);
    } else {
      uint32_t v = cp - 0x10000;
      append_u(out, 0xD800u | (v >> 10));
      append_u(out, 0xDC00u | (v & 0x3FF));
    }
  }
  out += '"';
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    std::size_t n = decode(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace tether::file
