#include "api.hpp"

#include <set>

#include "tether/sdk/error.hpp"

namespace tether::neon {

using sdk::BackendError;
using sdk::Json;

namespace {

std::optional<std::string> opt_text(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

}  // namespace

Branch parse_branch(const Json& j) {
  Branch b;
  b.id = opt_text(j, "id").value_or("");
  b.name = opt_text(j, "name").value_or(b.id);
  b.parent_id = opt_text(j, "parent_id");
  b.parent_lsn = opt_text(j, "parent_lsn");
  b.last_reset_at = opt_text(j, "last_reset_at");
  auto p = j.find("protected");
  b.is_protected = p != j.end() && p->is_boolean() && p->get<bool>();
  return b;
}

ProjectApi::ProjectApi(HttpClient& http, std::string project_id) : http_(http), project_(std::move(project_id)) {}

std::string ProjectApi::base() const { return "/projects/" + url_encode(project_); }

const std::vector<Branch>& ProjectApi::branches() {
  if (cached_) return *cached_;
  std::vector<Branch> all;
  std::set<std::string> cursors;
  std::string cursor;
  for (;;) {
    Json page = http_.get(base() + "/branches", {{"limit", "500"}, {"cursor", cursor}});
    const Json list = page.value("branches", Json::array());
    if (!list.is_array() || list.empty()) break;
    for (const auto& b : list) all.push_back(parse_branch(b));
    Json pag = page.value("pagination", Json::object());
    std::string next;
    if (pag.is_object())
      for (const char* k : {"cursor", "next"})
        if (pag.contains(k) && pag[k].is_string()) {
          next = pag[k].get<std::string>();
          break;
        }
    if (next.empty() || !cursors.insert(next).second) break;
    cursor = next;
  }
  cached_ = std::move(all);
  return *cached_;
}

std::optional<Branch> ProjectApi::find(const std::string& name) {
  for (const auto& b : branches())
    if (b.name == name) return b;
  for (const auto& b : branches())
    if (b.id == name) return b;
  return std::nullopt;
}

Branch ProjectApi::require(const std::string& name) {
  if (auto b = find(name)) return *b;
  throw BackendError("neon: branch '" + name + "' not found in project " + project_);
}

std::vector<std::string> ProjectApi::children_of(const std::string& branch_id) {
  std::vector<std::string> out;
  for (const auto& b : branches())
    if (b.parent_id && *b.parent_id == branch_id) out.push_back(b.name);
  return out;
}

void ProjectApi::create_branch(const Json& branch, bool without_compute) {
  Json body{{"branch", branch}};
  if (without_compute) body["endpoints"] = Json::array();
  wrote();
  http_.post(base() + "/branches", body);
}

void ProjectApi::patch_branch(const std::string& id, const Json& fields) {
  wrote();
  http_.patch(base() + "/branches/" + url_encode(id), Json{{"branch", fields}});
}

void ProjectApi::delete_branch(const std::string& id) {
  wrote();
  http_.del(base() + "/branches/" + url_encode(id));
}

void ProjectApi::restore_branch(const std::string& id, const std::string& source_id,
                                const std::optional<std::string>& lsn) {
  Json body{{"source_branch_id", source_id}};
  if (lsn) body["source_lsn"] = *lsn;
  wrote();
  http_.post(base() + "/branches/" + url_encode(id) + "/restore", body);
}

std::vector<Endpoint> ProjectApi::endpoints_of(const std::string& branch_id) {
  Json j = http_.get(base() + "/endpoints");
  std::vector<Endpoint> out;
  for (const auto& e : j.value("endpoints", Json::array())) {
    Endpoint ep{opt_text(e, "id").value_or(""), opt_text(e, "branch_id").value_or(""), opt_text(e, "type").value_or("")};
    if (ep.branch_id == branch_id) out.push_back(std::move(ep));
  }
  return out;
}

std::string ProjectApi::create_endpoint(const std::string& branch_id, const std::string& type) {
  Json j = http_.post(base() + "/endpoints", Json{{"endpoint", {{"branch_id", branch_id}, {"type", type}}}});
  auto id = j.contains("endpoint") && j["endpoint"].is_object() ? opt_text(j["endpoint"], "id") : std::nullopt;
  if (!id) throw BackendError("Neon API POST " + base() + "/endpoints: the answer names no endpoint.id");
  return *id;
}

std::string ProjectApi::connection_uri(const std::string& branch_id, const std::string& endpoint_id,
                                       const std::string& database, const std::string& role) {
  Json j = http_.get(base() + "/connection_uri", {{"branch_id", branch_id},
                                                  {"endpoint_id", endpoint_id},
                                                  {"database_name", database},
                                                  {"role_name", role}});
  auto uri = opt_text(j, "uri");
  if (!uri || uri->empty()) throw BackendError("Neon API GET " + base() + "/connection_uri: the answer has no uri");
  if (has_password(*uri)) return *uri;
  // Some answers leave the password out; the role's own endpoint reveals it.
  try {
    Json p = http_.get(base() + "/branches/" + url_encode(branch_id) + "/roles/" + url_encode(role) + "/reveal_password");
    if (auto pw = opt_text(p, "password"); pw && !pw->empty()) return with_password(*uri, *pw);
  } catch (const sdk::Error& e) {
    if (e.status() == TETHER_E_AUTH) throw;
  }
  return *uri;
}

}  // namespace tether::neon
