// model/toml.cpp: the one place toml++ is used. Parsing goes TOML -> JSON; writing is our own
// small emitter, because toml++ tables are sorted and manifests have a fixed field order.
#include "tether/model/toml.hpp"

#include <cstdio>
#include <sstream>

#include <toml++/toml.h>

#include "tether/errors.hpp"
#include "tether/model/json.hpp"

namespace tether::model {
namespace {

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
    case Json::value_t::number_float: out += python_float_repr(v.get<double>()); break;
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

Json parse_toml(std::string_view text, const std::string& source, bool redact) {
  try {
    toml::table t = toml::parse(text, source);
    return table_to_json(t);
  } catch (const toml::parse_error& e) {
    std::string msg = source + ":" + std::to_string(e.source().begin.line) + ": ";
    msg += redact ? std::string("invalid TOML (details withheld: the file may hold credentials)")
                  : std::string(e.description());
    throw ConfigError(msg);
  }
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
