// json_escape.cpp: one pass over the text; ASCII takes the short path, anything else is
// copied (utf8) or decoded and written as UTF-16 escapes (ascii, python_ascii).
#include "tether/support/json_escape.hpp"

#include <cstdint>

#include "tether/support/utf8.hpp"

namespace tether::support {
namespace {

void append_u(std::string& out, uint32_t unit) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(unit >> shift) & 0xF];
}

// Printable ASCII other than '"' and '\\': copied as it is in every mode.
bool plain(unsigned char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

}  // namespace

void append_json_string(std::string& out, std::string_view s, JsonEscape mode) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (plain(c)) {  // a run of them at once: most strings are nothing else
      std::size_t end = i + 1;
      while (end < s.size() && plain(static_cast<unsigned char>(s[end]))) ++end;
      out.append(s.data() + i, end - i);
      i = end;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20 || (c == 0x7F && mode == JsonEscape::python_ascii)) append_u(out, c);
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    if (mode == JsonEscape::utf8) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const auto cp = utf8::decode(s, i);
    uint32_t v = cp.value;
    if (!cp.valid) v = mode == JsonEscape::python_ascii ? (0xDC00u | c) : 0xFFFDu;
    if (v >= 0x10000) {
      const uint32_t u = v - 0x10000;
      append_u(out, 0xD800u + (u >> 10));
      append_u(out, 0xDC00u + (u & 0x3FF));
    } else {
      append_u(out, v);
    }
    i += cp.length;
  }
  out += '"';
}

}  // namespace tether::support
