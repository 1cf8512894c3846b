#include "tether/support/json_text.hpp"

#include <cstddef>

namespace tether::support {
namespace {

struct Checker {
  std::string_view s;
  std::size_t i = 0;
  int max_depth;

  void space() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  }
  bool digits() {
    std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  }
  // Also short (no float overflow, no precision question): a longer one is left to a full reader.
  bool number() {
    const std::size_t from = i;
    eat('-');
    if (eat('0')) {
    } else if (i < s.size() && s[i] >= '1' && s[i] <= '9') {
      digits();
    } else {
      return false;
    }
    if (eat('.') && !digits()) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (!eat('+')) eat('-');
      const std::size_t exp = i;
      if (!digits() || i - exp > 2) return false;
    }
    return i - from <= 24;
  }
  bool string() {
    if (!eat('"')) return false;
    while (i < s.size()) {
      const unsigned char c = static_cast<unsigned char>(s[i++]);
      if (c == '"') return true;
      if (c < 0x20 || c >= 0x80) return false;
      if (c == '\\') {
        if (i >= s.size()) return false;
        switch (s[i++]) {
          case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
          default: return false;  // \u (and anything else): left to a full reader
        }
      }
    }
    return false;
  }
  bool value(int depth) {
    space();
    if (i >= s.size()) return false;
    switch (s[i]) {
      case '{': {
        if (depth >= max_depth) return false;
        ++i;
        space();
        if (eat('}')) return true;
        do {
          space();
          if (!string()) return false;
          space();
          if (!eat(':') || !value(depth + 1)) return false;
          space();
        } while (eat(','));
        return eat('}');
      }
      case '[': {
        if (depth >= max_depth) return false;
        ++i;
        space();
        if (eat(']')) return true;
        do {
          if (!value(depth + 1)) return false;
          space();
        } while (eat(','));
        return eat(']');
      }
      case '"': return string();
      case 't': return word("true");
      case 'f': return word("false");
      case 'n': return word("null");
      default: return number();
    }
  }
};

}  // namespace

bool is_plain_json(std::string_view text, int max_depth) noexcept {
  Checker c{text, 0, max_depth};
  if (!c.value(0)) return false;
  c.space();
  return c.i == text.size();
}

}  // namespace tether::support
