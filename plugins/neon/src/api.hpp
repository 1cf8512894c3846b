// api: the Neon HTTP API v2 endpoints the backend uses (docs/backends.md#neon), for one project
// during one protocol call. The branch listing is cached for the call and dropped by every
// write, so a fingerprint lists branches once and a re-list after a write sees the write.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "http.hpp"
#include "model.hpp"

namespace tether::neon {

struct Endpoint {
  std::string id, branch_id, type;  // type: read_write | read_only
};

class ProjectApi {
 public:
  ProjectApi(HttpClient& http, std::string project_id);

  // GET /projects/{p}/branches?limit=500[&cursor=], every page.
  const std::vector<Branch>& branches();
  // A branch whose name or id is `name`.
  std::optional<Branch> find(const std::string& name);
  // BackendError naming the project when absent.
  Branch require(const std::string& name);
  std::vector<std::string> children_of(const std::string& branch_id);

  // POST /projects/{p}/branches with {"branch": branch[, "endpoints": []]}.
  void create_branch(const sdk::Json& branch, bool without_compute);
  // PATCH /projects/{p}/branches/{id} with {"branch": fields}.
  void patch_branch(const std::string& id, const sdk::Json& fields);
  // DELETE /projects/{p}/branches/{id}; a 404 is fine.
  void delete_branch(const std::string& id);
  // POST /projects/{p}/branches/{id}/restore.
  void restore_branch(const std::string& id, const std::string& source_id, const std::optional<std::string>& lsn);

  // GET /projects/{p}/endpoints, those on `branch_id`.
  std::vector<Endpoint> endpoints_of(const std::string& branch_id);
  // POST /projects/{p}/endpoints; returns endpoint.id.
  std::string create_endpoint(const std::string& branch_id, const std::string& type);
  // GET /projects/{p}/connection_uri; then, when the URI has no password, GET
  // /projects/{p}/branches/{b}/roles/{role}/reveal_password to put it in.
  std::string connection_uri(const std::string& branch_id, const std::string& endpoint_id, const std::string& database,
                             const std::string& role);

  const std::string& project() const { return project_; }

 private:
  std::string base() const;
  void wrote() { cached_.reset(); }

  HttpClient& http_;
  std::string project_;
  std::optional<std::vector<Branch>> cached_;
};

// Parses one branch object of the API.
Branch parse_branch(const sdk::Json& j);

}  // namespace tether::neon
