// model/workspace.cpp: reading, writing and claiming workspace.toml.
#include "tether/model/workspace.hpp"

#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/toml.hpp"

namespace tether::model {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& source, const std::string& message) {
  throw ConfigError(source + ": " + message);
}

std::optional<std::string> opt_string(const Json& doc, const char* name, const std::string& source) {
  auto it = doc.find(name);
  if (it == doc.end()) return std::nullopt;
  if (!it->is_string()) bad(source, std::string("'") + name + "' must be a string");
  return it->get<std::string>();
}

const Json* opt_table(const Json& doc, const char* name, const std::string& source) {
  auto it = doc.find(name);
  if (it == doc.end()) return nullptr;
  if (!it->is_object()) bad(source, std::string("[") + name + "] must be a table");
  return &*it;
}

void read_strings(const Json& doc, const char* name, std::map<std::string, std::string>& out, const std::string& source) {
  if (const Json* t = opt_table(doc, name, source))
    for (auto it = t->begin(); it != t->end(); ++it) {
      if (!it->is_string()) bad(source, std::string("[") + name + "] " + py_repr(it.key()) + " must be a string");
      out[it.key()] = it->get<std::string>();
    }
}

void read_states(const Json& doc, const char* name, std::map<std::string, Json>& out, const std::string& source) {
  if (const Json* t = opt_table(doc, name, source))
    for (auto it = t->begin(); it != t->end(); ++it) {
      if (!it->is_object()) bad(source, std::string("[") + name + "] " + py_repr(it.key()) + " must be a table");
      out[it.key()] = it.value();
    }
}

template <typename V>
void put_table(OrderedJson& doc, const char* name, const std::map<std::string, V>& m) {
  if (m.empty()) return;
  OrderedJson t = OrderedJson::object();
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, Json>) t[k] = to_ordered(v);
    else t[k] = v;
  }
  doc[name] = std::move(t);
}

}  // namespace

void Workspace::set_snapshot(const std::string& key, Json state) {
  last_snapshot_errors.erase(key);
  last_snapshot[key] = std::move(state);
}

void Workspace::set_snapshot_error(const std::string& key, std::string message) {
  last_snapshot.erase(key);
  last_snapshot_errors[key] = std::move(message);
}

void Workspace::forget_key(const std::string& key) {
  working_refs.erase(key);
  pending_forks.erase(key);
  pending_resets.erase(key);
  fork_points.erase(key);
  base_states.erase(key);
  last_snapshot.erase(key);
  last_snapshot_errors.erase(key);
}

Workspace fresh_workspace() {
  Workspace ws;
  ws.workspace_id = new_workspace_id();
  return ws;
}

Workspace parse_workspace(std::string_view text, const std::string& source) {
  const Json doc = parse_toml(text, source);
  Workspace ws;
  ws.workspace_id = opt_string(doc, "workspace_id", source).value_or("");
  if (ws.workspace_id.empty()) ws.workspace_id = new_workspace_id();
  ws.bookmark = opt_string(doc, "bookmark", source);
  ws.last_snapshot_at = opt_string(doc, "last_snapshot_at", source);
  read_strings(doc, "working_refs", ws.working_refs, source);
  read_strings(doc, "pending_forks", ws.pending_forks, source);
  read_states(doc, "pending_resets", ws.pending_resets, source);
  read_states(doc, "fork_points", ws.fork_points, source);
  read_states(doc, "base_states", ws.base_states, source);
  read_states(doc, "last_snapshot", ws.last_snapshot, source);
  read_strings(doc, "last_snapshot_errors", ws.last_snapshot_errors, source);
  return ws;
}

std::optional<Workspace> read_workspace(const CheckoutPath& path) {
  auto text = read_checkout_file(path);
  if (!text) return std::nullopt;
  return parse_workspace(*text, ".tether/" + path.rel.filename().string());
}

std::string workspace_to_toml(const Workspace& ws) {
  OrderedJson doc = OrderedJson::object();
  doc["workspace_id"] = ws.workspace_id;
  if (ws.bookmark) doc["bookmark"] = *ws.bookmark;
  if (ws.last_snapshot_at) doc["last_snapshot_at"] = *ws.last_snapshot_at;
  put_table(doc, "working_refs", ws.working_refs);
  put_table(doc, "pending_forks", ws.pending_forks);
  put_table(doc, "pending_resets", ws.pending_resets);
  put_table(doc, "fork_points", ws.fork_points);
  put_table(doc, "base_states", ws.base_states);
  put_table(doc, "last_snapshot", ws.last_snapshot);
  put_table(doc, "last_snapshot_errors", ws.last_snapshot_errors);
  return dump_toml(doc);
}

void write_workspace(const CheckoutPath& path, const Workspace& ws) { write_checkout_file(path, workspace_to_toml(ws)); }

ClaimResult claim_workspace(const CheckoutPath& path, const Workspace& ws) {
  bool created = false;
  try {
    created = create_checkout_file(path, workspace_to_toml(ws));
  } catch (const ConfigError&) {
    throw;  // a symlink or a non-file on the way: refused, not "read-only"
  } catch (const TetherError&) {
    return {ws, false};
  }
  if (created) return {ws, true};
  if (auto existing = read_workspace(path)) return {*existing, true};
  return {ws, false};
}

ClaimResult open_workspace(const CheckoutPath& path) {
  if (auto ws = read_workspace(path)) return {*ws, true};
  return claim_workspace(path, fresh_workspace());
}

}  // namespace tether::model
