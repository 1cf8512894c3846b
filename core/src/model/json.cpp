// model/json.cpp: the pretty JSON writer (on support's escaper and scalar writer), repr()/str()
// renderings, bounded parsing.
#include "tether/model/json.hpp"

#include <cstdint>
#include <cstdio>

#include "tether/errors.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/support/json_escape.hpp"
#include "tether/support/redact.hpp"
#include "tether/support/utf8.hpp"

namespace tether::model {
namespace {

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
      support::append_json_string(out, it.key(), support::JsonEscape::ascii);
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
    support::append_json_scalar(out, v, support::JsonEscape::ascii);
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
    case Json::value_t::number_float: out += support::python_float_repr(v.get<double>()); break;
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
