// model/manifest.cpp: reading, writing and hashing object manifests.
#include "tether/model/manifest.hpp"

#include <algorithm>
#include <vector>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/toml.hpp"

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

std::string ObjectManifest::canonical() const { return canonical_json(canonical_value()); }

ObjectManifest ObjectManifest::with_pin(Json new_state, std::optional<sdk::Pin> new_pin, bool new_recoverable) const {
  ObjectManifest m = *this;
  m.state = std::move(new_state);
  m.pin = std::move(new_pin);
  m.recoverable = new_recoverable;
  m.captured_at = now_iso_utc();
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

ObjectManifest read_manifest(const fs::path& objects_dir, const fs::path& path) {
  const std::string rel = path.lexically_relative(objects_dir).generic_string();
  return parse_manifest(read_file(path), ".tether/objects/" + rel, manifest_path_to_key(objects_dir, path));
}

std::map<std::string, ObjectManifest> load_manifests(const fs::path& objects_dir) {
  std::map<std::string, ObjectManifest> out;
  std::error_code ec;
  if (!fs::is_directory(objects_dir, ec)) return out;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(objects_dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto& p = it->path();
    if (p.extension() == ".toml" && it->is_regular_file()) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    ObjectManifest m = read_manifest(objects_dir, p);
    std::string key = m.key;
    out.emplace(std::move(key), std::move(m));
  }
  return out;
}

void write_manifest(const fs::path& objects_dir, const ObjectManifest& m) {
  const fs::path path = key_to_manifest_path(objects_dir, m.key);
  fs::create_directories(path.parent_path());
  atomic_write_file(path, manifest_to_toml(m));
}

bool remove_manifest(const fs::path& objects_dir, std::string_view key) {
  const fs::path path = key_to_manifest_path(objects_dir, key);
  std::error_code ec;
  if (!fs::remove(path, ec)) {
    if (ec) throw TetherError("cannot remove " + path.string() + ": " + ec.message());
    return false;
  }
  fs::path stop = objects_dir.lexically_normal();
  if (!stop.has_filename()) stop = stop.parent_path();  // "objects/" -> "objects"
  for (fs::path dir = path.parent_path().lexically_normal(); dir != stop && dir.has_relative_path();
       dir = dir.parent_path()) {
    if (!fs::is_empty(dir, ec) || ec) break;
    if (!fs::remove(dir, ec)) break;
  }
  return true;
}

std::string manifest_hash(const std::map<std::string, ObjectManifest>& manifests) {
  std::vector<std::string> parts;
  parts.reserve(manifests.size());
  for (const auto& [key, m] : manifests) parts.push_back(canonical_json(Json::array({key, m.canonical()})));
  std::vector<std::string_view> views(parts.begin(), parts.end());
  return framed_blake2b(views, 32);
}

}  // namespace tether::model
