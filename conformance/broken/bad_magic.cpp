// conformance/broken/bad_magic.cpp: the memory backend behind an entry with the wrong magic.
#include "backend.hpp"

namespace {
class BadMagic final : public tether::memory::MemoryBackendBase<BadMagic> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
};
}  // namespace

// TETHER_BACKEND_PLUGIN spelled out, with one field wrong.
extern "C" TETHER_EXPORT const tether_plugin_entry tether_entry = {
    0x0BADF00Du,  // not TETHER_PLUGIN_MAGIC
    TETHER_ABI_MAJOR,
    TETHER_ABI_MINOR,
    sizeof(tether_plugin_entry),
    "memory",
    "0.1.0",
    &::tether::sdk::detail::counted_init,
    &::tether::sdk::detail::counted_deinit,
    &::tether::sdk::detail::create_instance<BadMagic>,
    &::tether::sdk::detail::destroy_instance<BadMagic>,
    ::tether::sdk::Backend<BadMagic>::vtable(),
};
