// conformance/broken/ignores_expected.cpp: the memory backend, but fork drops `expected` and
// moves the branch unconditionally, still declaring CONDITIONAL_REF.
#include "backend.hpp"

namespace {
class IgnoresExpected final : public tether::memory::MemoryBackendBase<IgnoresExpected> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
  std::string fork(tether::sdk::Call& call, const tether::sdk::ForkRequest& request) {
    tether::sdk::ForkRequest unconditional = request;
    unconditional.expected = tether::sdk::Expected::none();
    return MemoryBackendBase::fork(call, unconditional);
  }
};
}  // namespace

TETHER_BACKEND_PLUGIN(IgnoresExpected, "memory", "0.1.0")
