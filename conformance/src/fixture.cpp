// conformance/src/fixture.cpp: the harness loader and the per-case Fixture.
#include <dlfcn.h>

#include <array>
#include <filesystem>
#include <typeinfo>

#include "suite.hpp"
#include "tether/model/names.hpp"

namespace tether::conformance {

namespace fs = std::filesystem;

void fail(const std::string& why) { throw CaseFailed(why); }
void skip(const std::string& why) { throw CaseSkipped(why); }

std::string show(const Json& j) {
  std::string s = j.dump();
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

std::string describe_error(const std::exception& e) {
  if (const host::Failure* f = host::failure_of(e)) return host::status_name(f->status());
  return typeid(e).name();
}

// ---- Harness ----------------------------------------------------------------------------

std::unique_ptr<Harness> Harness::load(const fs::path& path) {
  std::unique_ptr<Harness> h(new Harness());
  h->path_ = path;
  h->handle_ = ::dlopen(fs::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h->handle_) fail(path.string() + ": cannot load the harness (" + ::dlerror() + ")");
  h->entry_ = static_cast<const tether_harness_entry*>(::dlsym(h->handle_, "tether_harness"));
  if (!h->entry_) fail(path.string() + ": not a conformance harness (it exports no tether_harness)");
  if (h->entry_->magic != TETHER_HARNESS_MAGIC) fail(path.string() + ": tether_harness has the wrong magic");
  if (h->entry_->struct_size < sizeof(tether_harness_entry))
    fail(path.string() + ": tether_harness is smaller than this runner's harness ABI");
  if (!h->entry_->new_object || !h->entry_->mutate) fail(path.string() + ": the harness lacks new_object or mutate");
  return h;
}

Harness::~Harness() {
  if (handle_) ::dlclose(handle_);
}

std::string Harness::backend_config(const std::string& workdir) const {
  std::string c = entry_->backend_config ? entry_->backend_config : "{}";
  const std::string token = "${WORKDIR}";
  for (size_t at = c.find(token); at != std::string::npos; at = c.find(token, at + workdir.size()))
    c.replace(at, token.size(), workdir);
  return c;
}

namespace {
constexpr size_t kOutCap = 64 * 1024;
constexpr size_t kErrCap = 4096;

Json parse_locator(const char* what, const char* text) {
  try {
    Json j = Json::parse(text);
    if (!j.is_object()) fail(std::string("harness ") + what + " returned a locator that is not a JSON object");
    return j;
  } catch (const Json::exception& e) {
    fail(std::string("harness ") + what + " returned malformed JSON: " + e.what());
  }
}
}  // namespace

Json Harness::new_object(const std::string& workdir) const {
  std::string out(kOutCap, '\0'), err(kErrCap, '\0');
  if (entry_->new_object(workdir.c_str(), out.data(), out.size(), err.data(), err.size()) != 0)
    fail("harness new_object failed: " + std::string(err.c_str()));
  return parse_locator("new_object", out.c_str());
}

void Harness::mutate(const std::string& workdir, const Json& locator, const std::optional<std::string>& working_ref) const {
  std::string loc = locator.dump(), err(kErrCap, '\0');
  if (entry_->mutate(workdir.c_str(), loc.c_str(), working_ref ? working_ref->c_str() : nullptr, err.data(), err.size()) != 0)
    fail("harness mutate" + (working_ref ? " on " + *working_ref : std::string()) + " failed: " + err.c_str());
}

Json Harness::fresh_locator(const std::string& workdir) const {
  std::string out(kOutCap, '\0'), err(kErrCap, '\0');
  if (entry_->fresh_locator(workdir.c_str(), out.data(), out.size(), err.data(), err.size()) != 0)
    fail("harness fresh_locator failed: " + std::string(err.c_str()));
  return parse_locator("fresh_locator", out.c_str());
}

void Harness::cleanup(const std::string& workdir) const {
  if (entry_->cleanup) entry_->cleanup(workdir.c_str());
}

// ---- Fixture ----------------------------------------------------------------------------

Fixture::Fixture(const Options& options, std::string workdir) : options_(options), workdir_(std::move(workdir)) {}

Fixture::~Fixture() {
  backend_.reset();
  plugin_.reset();
  if (harness_) harness_->cleanup(workdir_);
}

Harness& Fixture::harness() {
  if (!options_.harness) skip("needs a harness (--harness HARNESS.so)");
  if (!harness_) harness_ = Harness::load(*options_.harness);
  return *harness_;
}

std::shared_ptr<host::Plugin> Fixture::plugin_ptr() {
  if (plugin_) return plugin_;
  host::LoadOptions lo;
  if (has_harness()) lo.config = harness().backend_config(workdir_);
  plugin_ = host::Plugin::load(options_.plugin, lo);
  if (has_harness() && harness().kind() != plugin_->kind())
    fail("the harness drives kind '" + harness().kind() + "' but the plugin is kind '" + plugin_->kind() + "'");
  backend_ = std::make_unique<host::BackendProxy>(plugin_);
  // What the engine does once per kind before any per-object operation.
  sdk::ConfigureRequest cr;
  cr.cache_dir = (fs::path(workdir_) / "cache").string();
  cr.checkout = (fs::path(workdir_) / "checkout").string();
  fs::create_directories(cr.cache_dir);
  fs::create_directories(cr.checkout);
  if (plugin_->has(host::Op::Configure)) backend_->configure(cr);
  return plugin_;
}

host::Plugin& Fixture::plugin() { return *plugin_ptr(); }

host::BackendProxy& Fixture::backend() {
  plugin_ptr();
  return *backend_;
}

const std::string& Fixture::kind() { return plugin().kind(); }

uint32_t Fixture::caps() {
  if (has_harness() && harness().entry().capabilities_override != 0) return harness().entry().capabilities_override;
  return backend().capabilities();
}

Json Fixture::new_object() {
  backend();  // the plugin first: a harness may rely on the store the backend config names
  return harness().new_object(workdir_);
}

void Fixture::mutate(const Json& locator, const std::optional<std::string>& working_ref) {
  harness().mutate(workdir_, locator, working_ref);
}

Json Fixture::fresh_locator() {
  if (!harness().has_fresh_locator())
    fail(kind() + " declares CREATE: its harness must provide fresh_locator()");
  return harness().fresh_locator(workdir_);
}

Json Fixture::fingerprint(const Json& locator, const std::optional<std::string>& working_ref) {
  Json s = backend().fingerprint(locator, working_ref);
  expect(s.is_object(), "fingerprint returned " + show(s) + ", not a JSON object");
  return s;
}

bool Fixture::same(const Json& a, const Json& b) { return backend().same(a, b); }

std::string Fixture::working_ref(const std::string& bookmark) const { return model::working_ref_name(kDataset, bookmark); }

std::string Fixture::pin_id(const Json& locator, const Json& state) {
  return model::pin_id(kDataset, kind(), backend().identity(locator), backend().content_state(state));
}

std::vector<std::string> Fixture::breaches() const {
  std::lock_guard lock(breaches_mu_);
  return breaches_;
}

void Fixture::note_breach(const std::string& b) {
  std::lock_guard lock(breaches_mu_);
  breaches_.push_back(b);
}

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = [] {
    std::vector<Case> v;
    add_observe_cases(v);
    add_pin_cases(v);
    add_move_cases(v);
    add_create_cases(v);
    add_verify_many_cases(v);
    add_library_cases(v);
    add_contract_cases(v);
    return v;
  }();
  return cases;
}

}  // namespace tether::conformance
