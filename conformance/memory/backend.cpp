// conformance/memory/backend.cpp: tether-backend-memory.so, the reference backend of
// backend.hpp exactly as it is.
#include "backend.hpp"

namespace tether::memory {

class MemoryBackend final : public MemoryBackendBase<MemoryBackend> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
};

}  // namespace tether::memory

TETHER_BACKEND_PLUGIN(tether::memory::MemoryBackend, "memory", "0.1.0")
