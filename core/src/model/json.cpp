// model/json.cpp: canonical and pretty JSON writers, Python float repr, repr()/str() renderings.
#include "tether/model/json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tether/errors.hpp"
#include "tether/support/json_escape.hpp"
#include "tether/support/redact.hpp"
#include "tether/support/utf8.hpp"

namespace tether::model {
namespace {

// A JSON string body with Python's escapes. ensure_ascii escapes every non-ASCII code point.
void write_string(std::string& out, std::string_view s, bool ensure_ascii) {
  support::append_json_string(out, s, ensure_ascii ? support::JsonEscape::ascii : support::JsonEscape::utf8);
}

void write_float(std::string& out, double v) {
  // json.dumps spells the non-finite floats as JavaScript does.
  if (std::isnan(v)) out += "NaN";
  else if (std::isinf(v)) out += v > 0 ? "Infinity" : "-Infinity";
  else out += python_float_repr(v);
}

template <typename J>
void write_scalar(std::string& out, const J& v, bool ensure_ascii) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: out += "null"; break;
    case nlohmann::json::value_t::boolean: out += v.template get<bool>() ? "true" : "false"; break;
    case nlohmann::json::value_t::number_integer: out += std::to_string(v.template get<int64_t>()); break;
    case nlohmann::json::value_t::number_unsigned: out += std::to_string(v.template get<uint64_t>()); break;
    case nlohmann::json::value_t::number_float: write_float(out, v.template get<double>()); break;
    case nlohmann::json::value_t::string: write_string(out, v.template get_ref<const std::string&>(), ensure_ascii); break;
    case nlohmann::json::value_t::binary: out += "null"; break;  // never produced by tether
    default: break;
  }
}

template <typename J>
void write_canonical(std::string& out, const J& v) {
  if (v.is_object()) {
    std::vector<std::pair<const std::string*, const J*>> items;
    items.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) items.emplace_back(&it.key(), &it.value());
    // std::string compares as unsigned bytes via char_traits<char>::compare: UTF-8 byte order.
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
    out += '{';
    bool first = true;
    for (const auto& [k, val] : items) {
      if (!first) out += ',';
      first = false;
      write_string(out, *k, false);
      out += ':';
      write_canonical(out, *val);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ',';
      first = false;
      write_canonical(out, e);
    }
    out += ']';
  } else {
    write_scalar(out, v, false);
  }
}

template <typename J>
void write_pretty(std::string& out, const J& v, int depth) {
  const auto newline = [&](int d) {
    out += '\n';
    out.append(static_cast<std::size_t>(d) * 2, ' ');
  };
  if (v.is_object()) {
    if (v.empty()) { out += "{}"; return; }
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      write_string(out, it.key(), true);
      out += ": ";
      write_pretty(out, it.value(), depth + 1);
    }
    newline(depth);
    out += '}';
  } else if (v.is_array()) {
    if (v.empty()) { out += "[]"; return; }
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      write_pretty(out, e, depth + 1);
    }
    newline(depth);
    out += ']';
  } else {
    write_scalar(out, v, true);
  }
}

// Python's unicodedata-free approximation of str.isprintable() for non-ASCII code points.
bool printable_non_ascii(uint32_t cp) {
  if (cp <= 0xA0) return false;                     // C1 controls and NO-BREAK SPACE (Zs)
  if (cp == 0xAD) return false;                     // SOFT HYPHEN (Cf)
  if (cp == 0x1680) return false;                   // OGHAM SPACE MARK (Zs)
  if (cp >= 0x2000 && cp <= 0x200F) return false;   // spaces, zero-width and direction marks
  if (cp >= 0x2028 && cp <= 0x202F) return false;   // separators, embeddings, NNBSP
  if (cp >= 0x205F && cp <= 0x206F) return false;   // MMSP, invisible operators, isolates
  if (cp == 0x3000 || cp == 0xFEFF) return false;   // IDEOGRAPHIC SPACE, BOM
  if (cp >= 0xFFF9 && cp <= 0xFFFB) return false;   // interlinear annotations
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;   // private use
  if (cp >= 0xF0000) return false;                  // supplementary private use
  if ((cp & 0xFFFE) == 0xFFFE) return false;        // non-characters
  return true;
}

void py_repr_into(std::string& out, const Json& v);

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // Shortest round-trip digits in scientific form: d[.ddd]e(+|-)XX.
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const auto epos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, epos))
    if (c != '.') digits += c;
  int exp10 = 0;
  std::from_chars(sci.data() + epos + 1 + (sci[epos + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp10);
  const int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  const int nd = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-decpt), '0');
      out += digits;
    } else if (decpt < nd) {
      out += digits.substr(0, static_cast<std::size_t>(decpt));
      out += '.';
      out += digits.substr(static_cast<std::size_t>(decpt));
    } else {
      out += digits;
      out.append(static_cast<std::size_t>(decpt - nd), '0');
      out += ".0";
    }
  } else {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out += digits.substr(1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    out += ebuf;
  }
  return out;
}

std::optional<Json> try_parse_json(std::string_view text, const JsonLimits& limits, std::string* why) {
  return sdk::parse_json_bounded(text, limits.max_bytes, why, limits.max_depth);
}

Json parse_json(std::string_view text, const std::string& source, const JsonLimits& limits) {
  std::string why;
  if (auto j = try_parse_json(text, limits, &why)) return std::move(*j);
  // nlohmann's messages can run over lines (they quote the input); errors are one line.
  for (char& c : why)
    if (c == '\n' || c == '\r') c = ' ';
  throw ConfigError(source + ": " + why + "; fix or remove it");
}

std::string canonical_json(const Json& value) {
  std::string out;
  write_canonical(out, value);
  return out;
}
std::string canonical_json(const OrderedJson& value) {
  std::string out;
  write_canonical(out, value);
  return out;
}
std::string pretty_json(const Json& value) {
  std::string out;
  write_pretty(out, value, 0);
  return out;
}
std::string pretty_json(const OrderedJson& value) {
  std::string out;
  write_pretty(out, value, 0);
  return out;
}

std::string py_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out(1, quote);
  char buf[16];
  for (std::size_t i = 0; i < s.size();) {
    const auto cp = support::utf8::decode(s, i);
    const uint32_t c = cp.value;
    if (!cp.valid) {
      // Python would hold a surrogate escape here; show the byte.
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == static_cast<uint32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c < 0x80 || printable_non_ascii(c)) {
      out.append(s.substr(i, cp.length));
    } else {
      if (c < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", c);
      else if (c < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", c);
      else std::snprintf(buf, sizeof buf, "\\U%08x", c);
      out += buf;
    }
    i += cp.length;
  }
  out += quote;
  return out;
}

namespace {
void py_repr_into(std::string& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: out += "None"; break;
    case Json::value_t::boolean: out += v.get<bool>() ? "True" : "False"; break;
    case Json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); break;
    case Json::value_t::number_unsigned: out += std::to_string(v.get<uint64_t>()); break;
    case Json::value_t::number_float: out += python_float_repr(v.get<double>()); break;
    case Json::value_t::string: out += py_repr(v.get_ref<const std::string&>()); break;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ", ";
        first = false;
        py_repr_into(out, e);
      }
      out += ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        out += py_repr(it.key());
        out += ": ";
        py_repr_into(out, it.value());
      }
      out += '}';
      break;
    }
    default: out += "None"; break;
  }
}
}  // namespace

std::string py_repr(const Json& value) {
  std::string out;
  py_repr_into(out, value);
  return out;
}

std::string py_str(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return py_repr(value);
}

std::size_t utf8_length(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); i += support::utf8::decode(text, i).length) ++n;
  return n;
}

std::string short_state(const Json& state) {
  if (state.is_null() || (state.is_object() && state.empty())) return "?";
  if (!state.is_object()) return py_str(state);
  std::string out;
  for (auto it = state.begin(); it != state.end(); ++it) {
    if (!out.empty()) out += ' ';
    out += it.key();
    out += '=';
    const std::string text = py_str(it.value());
    std::size_t i = 0, count = 0;
    while (i < text.size() && count < 16) {
      i += support::utf8::decode(text, i).length;
      ++count;
    }
    out.append(text, 0, i);
    if (i < text.size()) out += "\u2026";
  }
  return out;
}

Json redacted_json(const Json& value) {
  if (value.is_string()) return support::redact_secrets(value.get_ref<const std::string&>());
  if (!value.is_structured()) return value;
  Json out = value;
  for (auto it = out.begin(); it != out.end(); ++it) *it = redacted_json(*it);
  return out;
}

}  // namespace tether::model
