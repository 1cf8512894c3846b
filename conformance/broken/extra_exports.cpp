// conformance/broken/extra_exports.cpp: the memory backend plus an exported debugging hook,
// linked without plugin-sdk/tether-plugin.map, so two symbols leave the .so.
#include "backend.hpp"

namespace {
class ExtraExports final : public tether::memory::MemoryBackendBase<ExtraExports> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
};
}  // namespace

extern "C" TETHER_EXPORT int tether_debug_stats(void) { return 0; }

TETHER_BACKEND_PLUGIN(ExtraExports, "memory", "0.1.0")
