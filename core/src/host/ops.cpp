// The one table of vtable operations: name, slot, gating capability.
#include "tether/host/ops.hpp"

namespace tether::host {
namespace {

struct OpInfo {
  const char* name;
  tether_op tether_backend_vtable::*slot;
  uint32_t capability;
};

#define TETHER_OP(field, cap) {#field, &tether_backend_vtable::field, cap}
constexpr OpInfo kOps[kOpCount] = {
    TETHER_OP(describe, 0),
    TETHER_OP(configure, 0),
    TETHER_OP(identity, 0),
    TETHER_OP(validate_locator, 0),
    TETHER_OP(effective_capabilities, 0),
    TETHER_OP(base_branch, 0),
    TETHER_OP(branch_scope, 0),
    TETHER_OP(ref_namespace, 0),
    TETHER_OP(default_key, 0),
    TETHER_OP(state_addressable, 0),
    TETHER_OP(fingerprint, 0),
    TETHER_OP(verify, 0),
    TETHER_OP(pin, TETHER_CAP_PIN),
    TETHER_OP(unpin, TETHER_CAP_PIN),
    TETHER_OP(list_pins, TETHER_CAP_PIN),
    TETHER_OP(fork, TETHER_CAP_FORK),
    TETHER_OP(delete_working_ref, TETHER_CAP_FORK),
    TETHER_OP(list_working_refs, TETHER_CAP_FORK),
    TETHER_OP(working_ref_blockers, TETHER_CAP_FORK),
    TETHER_OP(open, 0),
    TETHER_OP(listing, TETHER_CAP_DIFF),
    TETHER_OP(diff, TETHER_CAP_DIFF),
    TETHER_OP(history, TETHER_CAP_HISTORY),
    TETHER_OP(promote, TETHER_CAP_PROMOTE),
    TETHER_OP(merge, TETHER_CAP_MERGE),
    TETHER_OP(ancestor_of, TETHER_CAP_PROMOTE | TETHER_CAP_MERGE),
    TETHER_OP(check_quiescence, TETHER_CAP_NEEDS_QUIESCENCE),
    TETHER_OP(create, TETHER_CAP_CREATE),
    TETHER_OP(owner, TETHER_CAP_CREATE),
    TETHER_OP(is_ref_empty, TETHER_CAP_CREATE),
    TETHER_OP(delete_store, TETHER_CAP_CREATE),
    TETHER_OP(rename_pin, TETHER_CAP_PIN),
    TETHER_OP(rename_working_ref, TETHER_CAP_FORK),
    TETHER_OP(promote_blockers, TETHER_CAP_PROMOTE | TETHER_CAP_MERGE),
    TETHER_OP(rewind, TETHER_CAP_PROMOTE),
    TETHER_OP(verify_many, 0),
};
#undef TETHER_OP

constexpr const char* kStatusNames[] = {"OK",        "BACKEND", "UNSUPPORTED", "REF_MOVED", "MERGE_CONFLICT",
                                        "NOT_FOUND", "INVALID_ARGUMENT", "IO", "AUTH", "TIMEOUT",
                                        "CANCELLED", "CORRUPT", "INTERNAL"};

}  // namespace

const char* op_name(Op op) { return kOps[static_cast<int>(op)].name; }

std::optional<Op> op_from_name(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (name == kOps[i].name) return static_cast<Op>(i);
  return std::nullopt;
}

tether_op op_slot(const tether_backend_vtable& table, Op op) { return table.*(kOps[static_cast<int>(op)].slot); }

uint32_t op_capability(Op op) { return kOps[static_cast<int>(op)].capability; }

bool op_required(Op op) {
  return op == Op::Describe || op == Op::Fingerprint || op == Op::Verify || op == Op::Open;
}

std::string status_name(tether_status status) {
  if (status >= 0 && status < static_cast<tether_status>(std::size(kStatusNames))) return kStatusNames[status];
  return "STATUS_" + std::to_string(status);
}

}  // namespace tether::host
