// tether/host/plugin.hpp: one loaded backend plugin: the library, its checked entry, the
// host-sized copy of its vtable, the instance created from the config, and its description.
//
// Loading (Plugin::load) dlopens with RTLD_NOW | RTLD_LOCAL, reads the data symbol
// `tether_entry` and checks, before running any plugin code: magic, ABI major.minor (exact
// while 0.x), entry size, kind (entry == file name), vtable present and of a sane size, the
// required ops (describe, fingerprint, verify, open). It then calls init once, create(config)
// and describe. Every refusal is one LoadError line naming the file and the way out.
//
// Lifetime: destroying a Plugin destroys the instance and calls deinit, but the library
// stays mapped for the rest of the process (static data of a plugin may still be referenced,
// e.g. by a thread it started). unload() also closes it; the conformance suite uses that to
// prove load -> unload -> load works.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tether/backend.h"
#include "tether/host/call.hpp"
#include "tether/host/load_error.hpp"
#include "tether/host/ops.hpp"
#include "tether/sdk/types.hpp"

namespace tether::host {

struct LoadOptions {
  // The kind the caller wants. Empty: the kind in the file name (tether-backend-<kind>.so),
  // or no check when the file is not named that way (tether-conformance validate X.so).
  std::string kind;
  // The JSON object handed to create().
  std::string config = "{}";
};

class Plugin {
 public:
  static std::shared_ptr<Plugin> load(const std::filesystem::path& path, const LoadOptions& options = {});
  // The same checks and lifecycle for an entry linked into the process (tests, built-ins).
  // `label` stands in for the path in messages.
  static std::shared_ptr<Plugin> from_entry(const tether_plugin_entry& entry, const std::string& label,
                                            const LoadOptions& options = {});

  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  // destroy(instance), deinit(), then close the library. Calls afterwards throw LoadError.
  void unload();
  bool loaded() const { return instance_ != nullptr; }

  const std::string& kind() const { return kind_; }
  const std::filesystem::path& path() const { return path_; }
  const tether_plugin_entry& entry() const { return *entry_; }
  // Host-sized and zero past the plugin's size, so every slot can be read safely.
  const tether_backend_vtable& vtable() const { return vtable_; }
  uint32_t plugin_vtable_size() const { return plugin_vtable_size_; }
  tether_backend* instance() const { return instance_; }
  const sdk::Description& description() const { return description_; }
  const std::string& description_json() const { return description_json_; }
  std::string abi_version() const;     // "0.1"
  std::string plugin_version() const;  // the entry's plugin_version, "" when NULL
  bool thread_safe() const { return description_.thread_safe; }

  bool has(Op op) const { return op_slot(vtable_, op) != nullptr; }

  // One raw operation: no exception mapping. Serialised per instance unless describe said
  // thread_safe. A NULL slot is not called: the result has called == false, UNSUPPORTED.
  CallResult call(Op op, std::string_view request, const ItemSink& on_item = nullptr) const;

  struct Library;  // the Boost.DLL handle, kept out of this header

 private:
  Plugin() = default;
  void start(const LoadOptions& options);  // checks, init, create, describe
  void release(bool close_library) noexcept;

  std::unique_ptr<Library> library_;
  std::filesystem::path path_;
  std::string kind_;
  const tether_plugin_entry* entry_ = nullptr;
  tether_backend_vtable vtable_{};
  uint32_t plugin_vtable_size_ = 0;
  bool inited_ = false;
  tether_backend* instance_ = nullptr;
  sdk::Description description_;
  std::string description_json_;
  mutable std::mutex serial_;  // held around each call when !thread_safe
};

}  // namespace tether::host
