// tether/host/ops.hpp: the operations of the plugin vtable as a C++ enum, with their names,
// their slots and the capability that gates each. One table, shared by the loader, the
// BackendProxy and the conformance runner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tether/backend.h"

namespace tether::host {

// In vtable order (backend.h).
enum class Op : int {
  Describe,
  Configure,
  Identity,
  ValidateLocator,
  EffectiveCapabilities,
  BaseBranch,
  BranchScope,
  RefNamespace,
  DefaultKey,
  StateAddressable,
  Fingerprint,
  Verify,
  Pin,
  Unpin,
  ListPins,
  Fork,
  DeleteWorkingRef,
  ListWorkingRefs,
  WorkingRefBlockers,
  Open,
  Listing,
  Diff,
  History,
  Promote,
  Merge,
  AncestorOf,
  CheckQuiescence,
  Create,
  Owner,
  IsRefEmpty,
  DeleteStore,
  RenamePin,
  RenameWorkingRef,
  PromoteBlockers,
  Rewind,
  VerifyMany,
};
inline constexpr int kOpCount = static_cast<int>(Op::VerifyMany) + 1;

// The slot's name in backend.h ("fingerprint", "delete_working_ref", ...).
const char* op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);

// The function pointer of `op` in a (host-sized, zero-padded) table; NULL when absent.
tether_op op_slot(const tether_backend_vtable& table, Op op);

// The capability bit that says the backend offers `op` (0 for ops every backend may have:
// describe, configure, the locator helpers, fingerprint, verify, open).
uint32_t op_capability(Op op);

// Ops a plugin must provide: describe, fingerprint, verify, open.
bool op_required(Op op);

// Status names as backend.h spells them without the prefix ("REF_MOVED"); "STATUS_<n>" for
// values this host does not know.
std::string status_name(tether_status status);

}  // namespace tether::host
