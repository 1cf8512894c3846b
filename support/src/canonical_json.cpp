// canonical_json.cpp: the canonical writer, the scalar writer it shares with model's
// pretty_json, and Python's float repr.
#include "tether/support/canonical_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::support {
namespace {

void write_float(std::string& out, double v) {
  // json.dumps spells the non-finite floats as JavaScript does.
  if (std::isnan(v)) out += "NaN";
  else if (std::isinf(v)) out += v > 0 ? "Infinity" : "-Infinity";
  else out += python_float_repr(v);
}

template <typename J>
void write_scalar(std::string& out, const J& v, JsonEscape strings) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: out += "null"; break;
    case nlohmann::json::value_t::boolean: out += v.template get<bool>() ? "true" : "false"; break;
    case nlohmann::json::value_t::number_integer: out += std::to_string(v.template get<int64_t>()); break;
    case nlohmann::json::value_t::number_unsigned: out += std::to_string(v.template get<uint64_t>()); break;
    case nlohmann::json::value_t::number_float: write_float(out, v.template get<double>()); break;
    case nlohmann::json::value_t::string:
      append_json_string(out, v.template get_ref<const std::string&>(), strings);
      break;
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
      append_json_string(out, *k, JsonEscape::utf8);
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
    write_scalar(out, v, JsonEscape::utf8);
  }
}

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

std::string canonical_json(const nlohmann::json& value) {
  std::string out;
  write_canonical(out, value);
  return out;
}
std::string canonical_json(const nlohmann::ordered_json& value) {
  std::string out;
  write_canonical(out, value);
  return out;
}

void append_json_scalar(std::string& out, const nlohmann::json& value, JsonEscape strings) {
  write_scalar(out, value, strings);
}
void append_json_scalar(std::string& out, const nlohmann::ordered_json& value, JsonEscape strings) {
  write_scalar(out, value, strings);
}

}  // namespace tether::support
