// neon_backend: the `neon` backend (docs/backends.md#neon), experimental. A tracked object is a
// database of a Neon project read on a branch; its state is the newest committed xid there
// (plus the volatile LSN it was read at), a pin is the child branch `tether.<pin_id>` at that
// LSN, a fork is a child branch (an existing one is reset with Neon's branch restore).
//
// The control plane is the Neon HTTP API v2 (api.hpp, libcurl); data is read through libpq
// on the branch's compute endpoint. Settings come only from the configure request (the
// secrets' [backends.neon]: api_url, api_key_env, protected_pins), never from a committed
// file or the locator; $TETHER_NEON_API_URL stands in for api_url when the secrets name none
// (tests with no dataset around them, such as the conformance runner).
//
// Every operation may run on several threads at once. Neon allows one read-write endpoint per
// branch, so creating one is single-flight per (project, branch, type).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api.hpp"
#include "model.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::neon {

class NeonBackend : public sdk::Backend<NeonBackend> {
 public:
  explicit NeonBackend(const sdk::Json& config);

  sdk::Description describe(sdk::Call&);
  sdk::Json identity(sdk::Call&, const sdk::LocatorRequest&);
  void validate_locator(sdk::Call&, const sdk::LocatorRequest&);
  uint32_t effective_capabilities(sdk::Call&, const sdk::PolicyRequest&);
  std::string base_branch(sdk::Call&, const sdk::LocatorRequest&);
  std::string branch_scope(sdk::Call&, const sdk::LocatorRequest&);
  std::string ref_namespace(sdk::Call&, const sdk::LocatorRequest&);
  bool state_addressable(sdk::Call&, const sdk::StateRequest&);
  sdk::State fingerprint(sdk::Call&, const sdk::FingerprintRequest&);
  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest&);
  sdk::Pin pin(sdk::Call&, const sdk::PinRequest&);
  void unpin(sdk::Call&, const sdk::UnpinRequest&);
  std::vector<std::string> list_pins(sdk::Call&, const sdk::LocatorRequest&);
  std::string fork(sdk::Call&, const sdk::ForkRequest&);
  void delete_working_ref(sdk::Call&, const sdk::RefRequest&);
  std::vector<std::string> list_working_refs(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<std::string> working_ref_blockers(sdk::Call&, const sdk::RefRequest&);
  sdk::Json open(sdk::Call&, const sdk::OpenRequest&);
  void check_quiescence(sdk::Call&, const sdk::QuiescenceRequest&);
  sdk::Pin rename_pin(sdk::Call&, const sdk::RenamePinRequest&);
  std::string rename_working_ref(sdk::Call&, const sdk::RenameRefRequest&);

 private:
  // The settings of this call (the secrets may differ per configure).
  ApiConfig api_config() const;
  bool protected_pins() const;
  // An id of an endpoint of `type` on the branch, made when there is none.
  std::string ensure_endpoint(ProjectApi& api, const std::string& branch_id, const std::string& type);
  std::string uri_for(ProjectApi& api, const Target& t, const Branch& b, const std::string& type);
  sdk::State read_state(ProjectApi& api, const Target& t, const Branch& b);

  std::mutex locks_mutex_;
  std::map<std::string, std::unique_ptr<std::mutex>> endpoint_locks_;
};

}  // namespace tether::neon
