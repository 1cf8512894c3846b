// Plugin loading: Boost.DLL, the entry checks, init/create/describe, and unload. The only
// translation unit that includes Boost.
#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tether/host/discovery.hpp"
#include "tether/sdk/json_limits.hpp"
#include "tether/host/plugin.hpp"

namespace fs = std::filesystem;

namespace tether::host {

struct Plugin::Library {
  boost::dll::shared_library lib;
};

namespace {

// Libraries of destroyed Plugins stay mapped until exit: see plugin.hpp.
void keep_mapped(std::unique_ptr<Plugin::Library> lib) {
  static std::mutex mu;
  static auto* kept = new std::vector<std::unique_ptr<Plugin::Library>>();  // never freed
  std::lock_guard lock(mu);
  kept->push_back(std::move(lib));
}

// "boost::dll::shared_library::load() failed (dlerror system message: X)" -> "X"
std::string dl_message(const std::exception& e) {
  std::string what = e.what();
  const std::string marker = "dlerror system message: ";
  size_t at = what.find(marker);
  if (at == std::string::npos) return what;
  // what() = "<message> (dlerror system message: X)" + ": <error code text>"
  std::string msg = what.substr(at + marker.size());
  size_t close = msg.rfind(')');
  return close == std::string::npos ? msg : msg.substr(0, close);
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

constexpr uint32_t kMaxVtableSize = 64 * 1024;

}  // namespace

std::shared_ptr<Plugin> Plugin::load(const fs::path& path, const LoadOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw LoadError(path.string() + ": no such plugin file; check the path or TETHER_PLUGIN_PATH", path);
  auto lib = std::make_unique<Library>();
  try {
    lib->lib.load(fs::absolute(path, ec), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw LoadError(path.string() + ": cannot load the shared object (" + dl_message(e) +
                        "); rebuild it for this system or remove it from the plugin path",
                    path);
  }
  if (!lib->lib.has("tether_entry"))
    throw LoadError(path.string() +
                        ": not a tether backend plugin (it exports no tether_entry); build it with "
                        "TETHER_BACKEND_PLUGIN or remove it from the plugin path",
                    path);
  const auto& entry = lib->lib.get<const tether_plugin_entry>("tether_entry");

  std::shared_ptr<Plugin> p(new Plugin());
  p->library_ = std::move(lib);
  p->path_ = path;
  p->entry_ = &entry;
  LoadOptions opts = options;
  if (opts.kind.empty()) opts.kind = kind_from_file_name(path).value_or("");
  try {
    p->start(opts);
  } catch (...) {
    p->release(true);  // a refused plugin is closed at once
    throw;
  }
  return p;
}

std::shared_ptr<Plugin> Plugin::from_entry(const tether_plugin_entry& entry, const std::string& label,
                                           const LoadOptions& options) {
  std::shared_ptr<Plugin> p(new Plugin());
  p->path_ = label;
  p->entry_ = &entry;
  try {
    p->start(options);
  } catch (...) {
    p->release(true);
    throw;
  }
  return p;
}

void Plugin::start(const LoadOptions& options) {
  const tether_plugin_entry& e = *entry_;
  const std::string where = path_.string() + ": ";
  auto refuse = [&](const std::string& why) { throw LoadError(where + why, path_); };

  if (e.magic != TETHER_PLUGIN_MAGIC)
    refuse("not a tether backend plugin (tether_entry has magic " + hex(e.magic) + ", expected " +
           hex(TETHER_PLUGIN_MAGIC) + "); remove it from the plugin path");
  if (e.abi_major != TETHER_ABI_MAJOR || e.abi_minor != TETHER_ABI_MINOR)
    refuse("built for tether plugin ABI " + std::to_string(e.abi_major) + "." + std::to_string(e.abi_minor) +
           ", this tether speaks " + std::to_string(TETHER_ABI_MAJOR) + "." + std::to_string(TETHER_ABI_MINOR) +
           "; rebuild the plugin against this tether's SDK or install a matching tether");
  if (e.struct_size < sizeof(tether_plugin_entry))
    refuse("tether_entry is " + std::to_string(e.struct_size) + " bytes, this tether reads " +
           std::to_string(sizeof(tether_plugin_entry)) + "; rebuild the plugin against this tether's SDK");
  if (e.kind == nullptr || !valid_kind(e.kind))
    refuse("tether_entry has no valid kind (lower-case letters, digits, '_' and '-'); fix the plugin");
  kind_ = e.kind;
  if (!options.kind.empty() && kind_ != options.kind)
    refuse("declares kind '" + kind_ + "' but was looked up for kind '" + options.kind + "'; rename it " +
           plugin_file_name(kind_));
  if (e.create == nullptr || e.destroy == nullptr) refuse("tether_entry lacks create or destroy; fix the plugin");
  if (e.vtable == nullptr) refuse("tether_entry has no operation table; fix the plugin");

  plugin_vtable_size_ = e.vtable->struct_size;
  if (plugin_vtable_size_ < 2 * sizeof(uint32_t) || plugin_vtable_size_ > kMaxVtableSize ||
      plugin_vtable_size_ % sizeof(void*) != 0)
    refuse("operation table has an impossible struct_size " + std::to_string(plugin_vtable_size_) +
           "; rebuild the plugin against this tether's SDK");
  std::memset(&vtable_, 0, sizeof vtable_);
  std::memcpy(&vtable_, e.vtable, std::min<size_t>(plugin_vtable_size_, sizeof vtable_));
  vtable_.struct_size = sizeof vtable_;

  for (int i = 0; i < kOpCount; ++i) {
    Op op = static_cast<Op>(i);
    if (op_required(op) && !has(op))
      refuse(std::string("lacks the required operation '") + op_name(op) +
             "' (every backend provides describe, fingerprint, verify and open); fix the plugin");
  }

  // From here on plugin code runs; the caller undoes what succeeded when a step fails.
  if (e.init != nullptr) {
    tether_status st = e.init(host_services());
    if (st != TETHER_OK) refuse("init() refused to start (" + status_name(st) + ")");
  }
  inited_ = true;
  {
    tether_backend* inst = nullptr;
    CallResult made = invoke_create(e, kind_, options.config, &inst);
    if (!made.ok()) refuse("cannot create a " + kind_ + " backend: " + made.message);
    if (inst == nullptr) refuse("create() returned OK without an instance; fix the plugin");
    instance_ = inst;

    CallResult d = invoke(vtable_.describe, instance_, kind_, "{}");
    if (!d.ok()) refuse("describe() failed: " + d.message);
    if (!d.reply) refuse("describe() returned no reply; fix the plugin");
    try {
      std::string why;
      auto j = sdk::parse_json_bounded(*d.reply, sdk::kMaxJsonDocumentBytes, &why);
      if (!j) throw std::runtime_error(why);
      description_ = j->get<sdk::Description>();
      description_json_ = *d.reply;
    } catch (const std::exception& ex) {
      refuse(std::string("describe() reply is malformed: ") + ex.what());
    }
    if (description_.kind != kind_)
      refuse("describe() says kind '" + description_.kind + "' but tether_entry says '" + kind_ + "'; fix the plugin");
  }
}

Plugin::~Plugin() { release(false); }

void Plugin::unload() { release(true); }

void Plugin::release(bool close_library) noexcept {
  {
    std::lock_guard lock(serial_);  // not while a serialised call runs
    if (instance_ != nullptr) entry_->destroy(instance_);
    instance_ = nullptr;
    if (inited_ && entry_->deinit != nullptr) entry_->deinit();
    inited_ = false;
  }
  if (!library_) return;
  if (close_library) {
    entry_ = nullptr;
    library_->lib.unload();
    library_.reset();
  } else {
    keep_mapped(std::move(library_));
  }
}

std::string Plugin::abi_version() const {
  if (entry_ == nullptr) return "";
  return std::to_string(entry_->abi_major) + "." + std::to_string(entry_->abi_minor);
}

std::string Plugin::plugin_version() const {
  if (entry_ == nullptr || entry_->plugin_version == nullptr) return "";
  return entry_->plugin_version;
}

CallResult Plugin::call(Op op, std::string_view request, const ItemSink& on_item) const {
  if (instance_ == nullptr)
    throw LoadError(path_.string() + ": the plugin was unloaded; load it again", path_);
  tether_op fn = op_slot(vtable_, op);
  if (description_.thread_safe) return invoke(fn, instance_, kind_, request, on_item);
  std::lock_guard lock(serial_);
  return invoke(fn, instance_, kind_, request, on_item);
}

}  // namespace tether::host
