// conformance/src/suite.hpp: what a conformance case is and what it works with.
//
// A case is {id, description, capabilities it needs, fn}. Its fn gets a Fixture: the plugin
// loaded through the host's loader (tether::host::Plugin, the same code `tether` uses), the
// BackendProxy over it, the harness and a fresh scratch directory. A case fails by throwing
// CaseFailed (expect/fail) or any other error; skips by throwing CaseSkipped. Every call the
// host makes is checked against the status protocol (status <=> exactly one fail(), OK =>
// no fail()); a breach anywhere in a case fails the case.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tether/harness.h"
#include "tether/host/proxy.hpp"
#include "tether/sdk/types.hpp"

namespace tether::conformance {

using sdk::Json;

// The dataset id of the suite's pin ids and working refs, and the racing thread count.
inline constexpr const char* kDataset = "c0fe5a1e";
inline constexpr int kRacers = 8;

struct Options {
  std::filesystem::path plugin;
  std::optional<std::filesystem::path> harness;
};

class CaseFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class CaseSkipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& why);
[[noreturn]] void skip(const std::string& why);
inline void expect(bool ok, const std::string& why) {
  if (!ok) fail(why);
}

// The harness .so (tether/harness.h), loaded with dlopen.
class Harness {
 public:
  static std::unique_ptr<Harness> load(const std::filesystem::path& path);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  const tether_harness_entry& entry() const { return *entry_; }
  std::string kind() const { return entry_->kind ? entry_->kind : ""; }
  // backend_config with every ${WORKDIR} replaced by `workdir` ("{}" when NULL).
  std::string backend_config(const std::string& workdir) const;
  Json new_object(const std::string& workdir) const;
  void mutate(const std::string& workdir, const Json& locator, const std::optional<std::string>& working_ref) const;
  bool has_fresh_locator() const { return entry_->fresh_locator != nullptr; }
  Json fresh_locator(const std::string& workdir) const;
  void cleanup(const std::string& workdir) const;

 private:
  Harness() = default;
  std::filesystem::path path_;
  void* handle_ = nullptr;
  const tether_harness_entry* entry_ = nullptr;
};

class Fixture {
 public:
  Fixture(const Options& options, std::string workdir);
  ~Fixture();
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  const Options& options() const { return options_; }
  const std::string& workdir() const { return workdir_; }

  // Loaded on first use. A harness is required by most cases: without one they skip.
  Harness& harness();
  bool has_harness() const { return options_.harness.has_value(); }
  // The plugin, loaded through the host (create() gets the harness's backend_config) and
  // configured as the engine does (cache dir and checkout inside the workdir).
  host::Plugin& plugin();
  std::shared_ptr<host::Plugin> plugin_ptr();
  host::BackendProxy& backend();
  const std::string& kind();

  // The capabilities under test: the harness override when it sets one, else describe's.
  uint32_t caps();
  bool has(uint32_t cap) { return (caps() & cap) == cap; }

  // ---- the object under test ----
  Json new_object();
  void mutate(const Json& locator, const std::optional<std::string>& working_ref = std::nullopt);
  Json fresh_locator();
  Json fingerprint(const Json& locator, const std::optional<std::string>& working_ref = std::nullopt);
  // Equal after dropping describe's volatile keys.
  bool same(const Json& a, const Json& b);
  std::string working_ref(const std::string& bookmark) const;  // tether.ws.c0fe5a1e.<slug>
  std::string pin_id(const Json& locator, const Json& state);

  // Protocol breaches the host reported while this fixture was current (log sink).
  std::vector<std::string> breaches() const;
  void note_breach(const std::string& b);

 private:
  Options options_;
  std::string workdir_;
  std::unique_ptr<Harness> harness_;
  std::shared_ptr<host::Plugin> plugin_;
  std::unique_ptr<host::BackendProxy> backend_;
  mutable std::mutex breaches_mu_;
  std::vector<std::string> breaches_;
};

struct Case {
  std::string id;           // kebab-case, stable
  std::string description;  // one sentence
  uint32_t needs = 0;       // every one of these capability bits, else SKIP
  bool needs_harness = true;
  std::function<void(Fixture&)> run;
};

// Every case, in the order they run (the reference suite's order, then ABI hygiene).
const std::vector<Case>& all_cases();

// Registration, one function per file under cases/.
void add_library_cases(std::vector<Case>& out);
void add_contract_cases(std::vector<Case>& out);
void add_observe_cases(std::vector<Case>& out);
void add_pin_cases(std::vector<Case>& out);
void add_move_cases(std::vector<Case>& out);
void add_create_cases(std::vector<Case>& out);
void add_verify_many_cases(std::vector<Case>& out);

// ---- helpers for cases ----
// The status name of a host error ("REF_MOVED"), or the C++ type for anything else.
std::string describe_error(const std::exception& e);
// Runs fn; it must throw E (a subclass counts). Anything else, or nothing, fails the case.
template <class E, class F>
void expect_refused(const std::string& what, const char* want, F&& fn) {
  try {
    fn();
  } catch (const E&) {
    return;
  } catch (const CaseFailed&) {
    throw;
  } catch (const std::exception& e) {
    fail(what + " raised " + describe_error(e) + " (" + e.what() + "), expected " + want);
  }
  fail(what + " went through; it must be refused with " + want);
}
std::string show(const Json& j);  // compact, for messages

}  // namespace tether::conformance
