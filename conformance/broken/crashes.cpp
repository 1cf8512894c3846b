// conformance/broken/crashes.cpp: the memory backend, but fingerprint writes through a null
// pointer (SIGSEGV): the runner must report the crash and carry on with the next case.
#include "backend.hpp"

namespace {
class Crashes final : public tether::memory::MemoryBackendBase<Crashes> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
  tether::sdk::State fingerprint(tether::sdk::Call&, const tether::sdk::FingerprintRequest&) {
    // Both volatile: the compiler can neither prove the pointer null nor drop the store.
    volatile int* volatile nowhere = nullptr;
    *nowhere = 1;
    return tether::sdk::State::object();
  }
};
}  // namespace

TETHER_BACKEND_PLUGIN(Crashes, "memory", "0.1.0")
