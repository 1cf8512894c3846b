// model/manifest.cpp: reading, writing and hashing object manifests.
#include "tether/model/manifest.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/toml.hpp"
#include "tether/support/canonical_json.hpp"

namespace tether::model {
namespace fs = std::filesystem;

namespace {

// TOML cannot hold null, so what the manifest hashes is what survives a write and a read.
Json drop_nulls(const Json& v) {
  if (v.is_object()) {
    Json out = Json::object();
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!it->is_null()) out[it.key()] = drop_nulls(it.value());
    return out;
  }
  if (v.is_array()) {
    Json out = Json::array();
    for (const auto& e : v)
      if (!e.is_null()) out.push_back(drop_nulls(e));
    return out;
  }
  return v;
}

[[noreturn]] void bad(const std::string& source, const std::string& message) {
  throw ConfigError(source + ": " + message);
}

std::string required_string(const Json& doc, const char* field, const std::string& source) {
  auto it = doc.find(field);
  if (it == doc.end()) bad(source, std::string("object manifest missing '") + field + "'");
  if (!it->is_string()) bad(source, std::string("'") + field + "' must be a string, not " + toml_type_name(*it));
  return it->get<std::string>();
}

std::optional<std::string> optional_string(const Json& doc, const char* field, const std::string& source) {
  auto it = doc.find(field);
  if (it == doc.end()) return std::nullopt;
  if (!it->is_string()) bad(source, std::string("'") + field + "' must be a string, not " + toml_type_name(*it));
  return it->get<std::string>();
}

std::optional<Json> optional_table(const Json& doc, const char* field, const std::string& source) {
  auto it = doc.find(field);
  if (it == doc.end()) return std::nullopt;
  if (!it->is_object()) bad(source, std::string("[") + field + "] must be a table, not " + toml_type_name(*it));
  return *it;
}

}  // namespace

void validate_policy_file(const Json& value) {
  if (!(value.is_string() && (value == "immutable" || value == "versioned")))
    throw ConfigError("invalid policy.file: " + py_repr(value));
}

void validate_policy_pin(const Json& value) {
  if (!(value.is_string() && (value == "native" || value == "record")))
    throw ConfigError("invalid policy.pin: " + py_repr(value));
}

Json ObjectManifest::canonical_value() const {
  Json pin_json = nullptr;
  if (pin) pin_json = Json{{"id", pin->id}, {"ref", pin->ref}};
  return Json{{"key", key},
              {"kind", kind},
              {"locator", drop_nulls(locator)},
              {"policy", Json{{"file", policy.file}, {"pin", policy.pin}}},
              {"state", state ? drop_nulls(*state) : Json(nullptr)},
              {"pin", pin_json},
              {"recoverable", recoverable}};
}

std::string ObjectManifest::canonical() const { return support::canonical_json(canonical_value()); }

ObjectManifest ObjectManifest::with_pin(Json new_state, std::optional<sdk::Pin> new_pin, bool new_recoverable,
                                        std::string now) const {
  ObjectManifest m = *this;
  m.state = std::move(new_state);
  m.pin = std::move(new_pin);
  m.recoverable = new_recoverable;
  m.captured_at = std::move(now);
  return m;
}

bool ObjectManifest::operator==(const ObjectManifest& o) const {
  const auto same_pin = [](const std::optional<sdk::Pin>& a, const std::optional<sdk::Pin>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || (a->id == b->id && a->ref == b->ref);
  };
  return key == o.key && kind == o.kind && recoverable == o.recoverable && origin == o.origin &&
         captured_at == o.captured_at && locator == o.locator && policy == o.policy && state == o.state &&
         same_pin(pin, o.pin);
}

ObjectManifest parse_manifest(std::string_view text, const std::string& source,
                              const std::optional<std::string>& expected_key) {
  const Json doc = parse_toml(text, source);
  ObjectManifest m;
  m.key = required_string(doc, "key", source);
  m.kind = required_string(doc, "kind", source);
  try {
    validate_key(m.key);
  } catch (const ConfigError& e) {
    bad(source, e.what());
  }
  if (expected_key && *expected_key != m.key)
    bad(source, "manifest key " + py_repr(m.key) + " does not match its path (expected " + py_repr(*expected_key) + ")");
  if (auto it = doc.find("recoverable"); it != doc.end()) {
    if (!it->is_boolean()) bad(source, "'recoverable' must be a boolean, not " + toml_type_name(*it));
    m.recoverable = it->get<bool>();
  }
  m.origin = optional_string(doc, "origin", source);
  m.captured_at = optional_string(doc, "captured_at", source);
  if (auto loc = optional_table(doc, "locator", source)) m.locator = std::move(*loc);
  if (auto pol = optional_table(doc, "policy", source)) {
    try {
      if (auto f = pol->find("file"); f != pol->end()) {
        validate_policy_file(*f);
        m.policy.file = f->get<std::string>();
      }
      if (auto p = pol->find("pin"); p != pol->end()) {
        validate_policy_pin(*p);
        m.policy.pin = p->get<std::string>();
      }
    } catch (const ConfigError& e) {
      bad(source, e.what());
    }
  }
  m.state = optional_table(doc, "state", source);
  if (auto pin = optional_table(doc, "pin", source)) {
    auto id = optional_string(*pin, "id", source);
    if (!id) bad(source, "[pin] missing 'id'");
    sdk::Pin p;
    p.id = *id;
    p.ref = optional_string(*pin, "ref", source).value_or("tether." + *id);
    p.created = false;
    m.pin = std::move(p);
  }
  return m;
}

std::string manifest_to_toml(const ObjectManifest& m) {
  OrderedJson doc = OrderedJson::object();
  doc["key"] = m.key;
  doc["kind"] = m.kind;
  doc["recoverable"] = m.recoverable;
  if (m.origin) doc["origin"] = *m.origin;
  if (m.captured_at) doc["captured_at"] = *m.captured_at;
  doc["locator"] = to_ordered(m.locator.is_object() ? m.locator : Json::object());
  doc["policy"] = OrderedJson{{"file", m.policy.file}, {"pin", m.policy.pin}};
  if (m.state && m.state->is_object()) doc["state"] = to_ordered(*m.state);
  if (m.pin) doc["pin"] = OrderedJson{{"id", m.pin->id}, {"ref", m.pin->ref}};
  return dump_toml(doc);
}

CheckoutPath manifest_path(const CheckoutPath& objects, std::string_view key) {
  return objects / key_to_manifest_path({}, key);
}

ObjectManifest read_manifest(const CheckoutPath& objects, const fs::path& rel) {
  const std::string name = rel.generic_string();
  auto text = read_checkout_file(objects / rel);
  if (!text) throw TetherError("cannot read " + (objects / rel).full().string() + ": " + std::strerror(ENOENT));
  return parse_manifest(*text, ".tether/objects/" + name, manifest_path_to_key({}, rel));
}

fs::path legacy_manifest_path(std::string_view key) {
  fs::path rel = key_to_manifest_path({}, key);
  const std::string last(key.substr(key.rfind('/') == std::string_view::npos ? 0 : key.rfind('/') + 1));
  if (const auto dot = last.rfind('.'); dot != std::string::npos && dot > 0) rel.replace_filename(last.substr(0, dot) + ".toml");
  return rel;
}

ObjectManifest parse_manifest_file(std::string_view text, const std::string& source, const std::string& rel) {
  const std::string path_key = manifest_path_to_key({}, fs::path(rel));
  ObjectManifest m = parse_manifest(text, source);
  if (m.key != path_key && legacy_manifest_path(m.key) != fs::path(rel))
    bad(source, "manifest key " + py_repr(m.key) + " does not match its path (expected " + py_repr(path_key) + ")");
  return m;
}

std::map<std::string, ObjectManifest> load_manifests(const CheckoutPath& objects, bool legacy_layout) {
  std::map<std::string, ObjectManifest> out;
  for (const auto& rel : list_checkout_files(objects, ".toml", /*recursive=*/true)) {
    if (rel.filename().string().size() <= 5) continue;  // a bare ".toml" is no key's file
    ObjectManifest m;
    if (legacy_layout) {
      const std::string name = rel.generic_string();
      auto text = read_checkout_file(objects / rel);
      if (!text) throw TetherError("cannot read " + (objects / rel).full().string() + ": " + std::strerror(ENOENT));
      m = parse_manifest_file(*text, ".tether/objects/" + name, name);
      if (out.count(m.key)) bad(".tether/objects/" + name, "a second manifest of key " + py_repr(m.key));
    } else {
      m = read_manifest(objects, rel);
    }
    std::string key = m.key;
    out.emplace(std::move(key), std::move(m));
  }
  return out;
}

void write_manifest(const CheckoutPath& objects, const ObjectManifest& m) {
  write_checkout_file(manifest_path(objects, m.key), manifest_to_toml(m));
}

bool remove_manifest(const CheckoutPath& objects, std::string_view key) {
  const CheckoutPath path = manifest_path(objects, key);
  if (!remove_checkout_file(path)) return false;
  remove_empty_checkout_dirs(path.parent(), objects.rel);
  return true;
}

std::string manifest_hash(const std::map<std::string, ObjectManifest>& manifests) {
  std::vector<std::string> parts;
  parts.reserve(manifests.size());
  for (const auto& [key, m] : manifests) parts.push_back(support::canonical_json(Json::array({key, m.canonical()})));
  std::vector<std::string_view> views(parts.begin(), parts.end());
  return framed_blake2b(views, 32);
}

}  // namespace tether::model
