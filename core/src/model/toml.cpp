// model/toml.cpp: the one place toml++ is used. Parsing goes TOML -> JSON; writing is our own
// small emitter, because toml++ tables are sorted and manifests have a fixed field order.
#include "tether/model/toml.hpp"

#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <vector>

#include <toml++/toml.h>

#include "model/toml_subset.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/support/canonical_json.hpp"

namespace tether::model {
namespace {

// How deeply a TOML text nests, found without parsing it: toml++ and everything after it
// recurse once per level, and a header `[a.a.a...]` with 20,000 segments overflows the stack.
// Levels as written: the document is 1; a header adds one per key segment (and `[[...]]` one
// more for its array); a dotted key adds one per segment but the last; an inline table or
// array adds one. (An array of tables named again by a later header adds a level the scan does
// not see, so the real depth can be up to twice the written one: still far inside the stack.)
// Strings of all four kinds and comments are skipped, so brackets and dots inside them do not
// count. On text that is not TOML the scan may lose its place, but only after the first
// syntax error, and toml++ stops there.
class TomlDepthScan {
 public:
  TomlDepthScan(std::string_view text, std::size_t max_depth) : s_(text), max_(max_depth) {}

  // The 1-based line where the text first nests deeper than the limit; nullopt if it never does.
  std::optional<std::size_t> run() {
    std::size_t table_depth = 1;
    while (true) {
      skip_space(/*newlines=*/true);
      if (i_ >= s_.size()) return std::nullopt;
      if (s_[i_] == '[') {
        const bool array = i_ + 1 < s_.size() && s_[i_ + 1] == '[';
        i_ += array ? 2 : 1;
        table_depth = 1 + key() + (array ? 1 : 0);
        if (table_depth > max_) return line_;
        for (int closing = array ? 2 : 1; closing > 0 && i_ < s_.size() && s_[i_] == ']'; --closing) ++i_;
        continue;  // anything after the header on its line is scanned like a statement
      } else {
        const std::size_t start = i_;
        const std::size_t segments = key();
        skip_space(false);
        if (i_ < s_.size() && s_[i_] == '=') {
          ++i_;
          const std::size_t base = table_depth + segments - 1;  // the table the value lands in
          if (base > max_ || !value(base)) return line_;
        } else if (i_ == start) {
          ++i_;  // not a key: a syntax error toml++ reports; keep moving
        }
      }
      // The rest of the line holds a comment or an error; neither can nest.
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    }
  }

 private:
  void skip_space(bool newlines) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '\n' && newlines) {
        ++line_;
        ++i_;
      } else if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  bool starts(std::string_view what) const { return s_.substr(i_, what.size()) == what; }

  // Past a string of any of the four kinds; `i_` is at its opening quote.
  void skip_string() {
    const char q = s_[i_];
    const bool basic = q == '"';
    const std::string_view triple = basic ? std::string_view("\"\"\"") : std::string_view("'''");
    if (starts(triple)) {
      i_ += 3;
      while (i_ < s_.size()) {
        if (basic && s_[i_] == '\\') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') ++line_;
          i_ += 2;
        } else if (starts(triple)) {
          // Up to two more quotes right before the closing three belong to the string.
          std::size_t extra = 0;
          while (extra < 2 && i_ + 3 < s_.size() && s_[i_ + 3] == q) ++i_, ++extra;
          i_ += 3;
          return;
        } else {
          if (s_[i_] == '\n') ++line_;
          ++i_;
        }
      }
      return;
    }
    ++i_;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (basic && s_[i_] == '\\') {
        i_ += 2;
        continue;
      }
      if (s_[i_++] == q) return;
    }
  }

  static bool bare(char c) {
    // Everything that cannot end a key segment; generous on purpose (unicode bare keys).
    switch (c) {
      case ' ': case '\t': case '\r': case '\n': case '.': case '=': case '[': case ']':
      case '{': case '}': case ',': case '#': case '"': case '\'':
        return false;
      default:
        return true;
    }
  }

  // Past a (dotted) key; the number of its segments.
  std::size_t key() {
    std::size_t segments = 1;
    while (i_ < s_.size()) {
      skip_space(false);
      if (i_ >= s_.size()) break;
      if (s_[i_] == '"' || s_[i_] == '\'') skip_string();
      else
        while (i_ < s_.size() && bare(s_[i_])) ++i_;
      skip_space(false);
      if (i_ >= s_.size() || s_[i_] != '.') break;
      ++i_;
      ++segments;
    }
    return segments;
  }

  // Past one value whose containers would start at `base + 1`; false when one nests deeper than
  // the limit. Iterative: the scan must not recurse on the input it protects against.
  bool value(std::size_t base) {
    struct Open {
      char kind;  // '[' or '{'
      std::size_t depth;
    };
    std::vector<Open> open;
    enum { kValue, kKey, kAfter } state = kValue;
    std::size_t value_base = base;
    while (true) {
      skip_space(/*newlines=*/!open.empty());
      if (i_ >= s_.size()) return true;
      const char c = s_[i_];
      if (c == ']' || c == '}') {  // closes a container (also an empty one, or after a trailing comma)
        if (open.empty()) return true;
        open.pop_back();
        ++i_;
        state = kAfter;
        continue;
      }
      if (state == kValue) {
        if (c == '[' || c == '{') {
          const std::size_t depth = value_base + 1;
          if (depth > max_) return false;
          open.push_back({c, depth});
          ++i_;
          state = c == '{' ? kKey : kValue;
          value_base = depth;
        } else if (c == '"' || c == '\'') {
          skip_string();
          state = kAfter;
        } else {
          // A number, boolean, date or time: up to the next separator. A space inside a
          // date-time stops it early; the rest is skipped as kAfter noise.
          const std::size_t start = i_;
          while (i_ < s_.size() && !std::strchr(",]}#= \t\r\n", s_[i_])) ++i_;
          if (i_ == start) ++i_;
          state = kAfter;
        }
      } else if (state == kKey) {
        const std::size_t start = i_;
        const std::size_t segments = key();
        skip_space(false);
        if (i_ < s_.size() && s_[i_] == '=') ++i_;
        else if (i_ == start) ++i_;
        value_base = open.back().depth + segments - 1;
        if (value_base > max_) return false;
        state = kValue;
      } else {  // kAfter
        if (open.empty()) return true;
        ++i_;
        if (c == ',') {
          state = open.back().kind == '{' ? kKey : kValue;
          value_base = open.back().depth;
        }
      }
    }
  }

  std::string_view s_;
  std::size_t max_;
  std::size_t i_ = 0, line_ = 1;
};

Json node_to_json(const toml::node& node);

Json table_to_json(const toml::table& t) {
  Json out = Json::object();
  for (auto&& [k, v] : t) out[std::string(k.str())] = node_to_json(v);
  return out;
}

template <typename T>
std::string stream_text(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

Json node_to_json(const toml::node& node) {
  if (auto t = node.as_table()) return table_to_json(*t);
  if (auto a = node.as_array()) {
    Json out = Json::array();
    for (auto&& e : *a) out.push_back(node_to_json(e));
    return out;
  }
  if (auto s = node.as_string()) return s->get();
  if (auto i = node.as_integer()) return i->get();
  if (auto f = node.as_floating_point()) return f->get();
  if (auto b = node.as_boolean()) return b->get();
  if (auto d = node.as_date()) return stream_text(d->get());
  if (auto t = node.as_time()) return stream_text(t->get());
  if (auto dt = node.as_date_time()) return stream_text(dt->get());
  return nullptr;
}

bool bare_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  return true;
}

void write_toml_string(std::string& out, const std::string& s) {
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void write_key(std::string& out, const std::string& k) {
  if (bare_key(k)) out += k;
  else write_toml_string(out, k);
}

void write_value(std::string& out, const OrderedJson& v) {
  switch (v.type()) {
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case Json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); break;
    case Json::value_t::number_unsigned: {
      const auto u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX))
        throw ConfigError("integer " + std::to_string(u) + " is too large for TOML");
      out += std::to_string(u);
      break;
    }
    case Json::value_t::number_float: out += support::python_float_repr(v.get<double>()); break;
    case Json::value_t::string: write_toml_string(out, v.get_ref<const std::string&>()); break;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (e.is_null()) continue;
        if (!first) out += ", ";
        first = false;
        write_value(out, e);
      }
      out += ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it->is_null()) continue;
        out += first ? " " : ", ";
        first = false;
        write_key(out, it.key());
        out += " = ";
        write_value(out, it.value());
      }
      out += first ? "}" : " }";
      break;
    }
    default: break;
  }
}

void write_table(std::string& out, const std::string& header, const OrderedJson& t) {
  bool has_direct = false;
  for (auto it = t.begin(); it != t.end(); ++it)
    if (!it->is_null() && !it->is_object()) has_direct = true;
  if (!header.empty() && (has_direct || t.empty())) {
    if (!out.empty()) out += '\n';
    out += '[' + header + "]\n";
  }
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (it->is_null() || it->is_object()) continue;
    write_key(out, it.key());
    out += " = ";
    write_value(out, it.value());
    out += '\n';
  }
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (!it->is_object()) continue;
    std::string key;
    write_key(key, it.key());
    write_table(out, header.empty() ? key : header + "." + key, it.value());
  }
}

}  // namespace

namespace {

// toml++'s reading, after the limits: both before toml++ sees a byte, as its parser and our
// conversion recurse per level.
Json parse_with_tomlplusplus(std::string_view text, const std::string& source, bool redact) {
  if (auto line = TomlDepthScan(text, kMaxNesting).run())
    throw ConfigError(source + ":" + std::to_string(*line) + ": nesting deeper than " + std::to_string(kMaxNesting) +
                      " levels; fix or remove it");
  try {
    // No source path: toml++ would share a copy of it with every node it makes, and the
    // message below names the source itself.
    toml::table t = toml::parse(text);
    return table_to_json(t);
  } catch (const toml::parse_error& e) {
    std::string msg = source + ":" + std::to_string(e.source().begin.line) + ": ";
    msg += redact ? std::string("invalid TOML (details withheld: the file may hold credentials)")
                  : std::string(e.description());
    throw ConfigError(msg);
  }
}

void check_size(std::string_view text, const std::string& source) {
  if (text.size() > kMaxDocumentBytes)
    throw ConfigError(source + ": " + std::to_string(text.size()) + " bytes, more than the " +
                      std::to_string(kMaxDocumentBytes) + "-byte limit for a TOML file; fix or remove it");
}

}  // namespace

Json parse_toml(std::string_view text, const std::string& source, bool redact) {
  check_size(text, source);
  // The shape tether writes is read directly (toml_subset.hpp); anything else by toml++.
  if (auto doc = parse_toml_subset(text)) return std::move(*doc);
  return parse_with_tomlplusplus(text, source, redact);
}

Json parse_toml_reference(std::string_view text, const std::string& source) {
  check_size(text, source);
  return parse_with_tomlplusplus(text, source, false);
}

std::string toml_type_name(const Json& v) {
  if (v.is_object()) return "a table";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  return "null";
}

OrderedJson to_ordered(const Json& value) {
  // A sorted object becomes an ordered one in the same order; every value type survives.
  if (value.is_object()) {
    OrderedJson out = OrderedJson::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = to_ordered(it.value());
    return out;
  }
  if (value.is_array()) {
    OrderedJson out = OrderedJson::array();
    for (const auto& e : value) out.push_back(to_ordered(e));
    return out;
  }
  switch (value.type()) {
    case Json::value_t::boolean: return value.get<bool>();
    case Json::value_t::number_integer: return value.get<int64_t>();
    case Json::value_t::number_unsigned: return value.get<uint64_t>();
    case Json::value_t::number_float: return value.get<double>();
    case Json::value_t::string: return value.get<std::string>();
    default: return nullptr;
  }
}

std::string dump_toml(const OrderedJson& table) {
  if (!table.is_object()) throw ConfigError("a TOML document must be a table");
  std::string out;
  write_table(out, "", table);
  return out;
}

std::string dump_toml(const Json& table) { return dump_toml(to_ordered(table)); }

}  // namespace tether::model
