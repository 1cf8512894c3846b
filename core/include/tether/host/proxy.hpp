// tether/host/proxy.hpp: BackendProxy, the C++ face of one loaded backend. One per kind,
// shared by every object of that kind. Each method builds the sdk request struct, runs the
// op through the Plugin, parses the reply into sdk types and turns a failure into the
// engine's exception:
//   REF_MOVED      -> RefMovedError   (details: ref, expected, actual)
//   MERGE_CONFLICT -> MergeConflict   (conflicts from details)
//   UNSUPPORTED    -> CapabilityError (also raised without calling when the slot is NULL)
//   anything else  -> BackendError    (unknown statuses included)
// Every thrown error also derives from host::Failure, which keeps the status and the JSON
// details (see failure_of). Messages carry `[key] ` when a key is given, else `[kind] `.
//
// NULL slots get the defaults of backend.h: identity = the locator; validate_locator accepts;
// effective_capabilities = describe's; base_branch = locator.branch or "main"; branch_scope
// and ref_namespace = canonical JSON of the identity; default_key = null; state_addressable =
// true; rename_pin = pin + unpin; rename_working_ref = fingerprint + fork + delete. The
// queries whose answer may be "none" answer that (as the reference protocol's default
// bodies do): list_working_refs = [], working_ref_blockers = none, promote_blockers = none,
// listing = none,
// ancestor_of = unknown, check_quiescence = nothing to wait for. Every other NULL slot is a
// CapabilityError "<kind> backend cannot <op>".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tether/errors.hpp"
#include "tether/host/plugin.hpp"
#include "tether/sdk/types.hpp"

namespace tether::host {

// What the plugin said with fail(): attached to every error a BackendProxy throws.
class Failure {
 public:
  Failure(tether_status status, std::string op, sdk::Json details)
      : status_(status), op_(std::move(op)), details_(std::move(details)) {}
  virtual ~Failure() = default;
  tether_status status() const { return status_; }
  const std::string& op() const { return op_; }
  // The fail() details ({} when none or unparseable). REF_MOVED: {"ref","expected","actual"}.
  const sdk::Json& details() const { return details_; }

 private:
  tether_status status_;
  std::string op_;
  sdk::Json details_;
};

// An engine error type carrying the Failure, e.g. WithFailure<RefMovedError>.
template <class Base>
class WithFailure : public Base, public Failure {
 public:
  template <class... Args>
  WithFailure(Failure f, Args&&... args) : Base(std::forward<Args>(args)...), Failure(std::move(f)) {}
};

// The Failure of an error a BackendProxy threw, or nullptr.
inline const Failure* failure_of(const std::exception& e) { return dynamic_cast<const Failure*>(&e); }

class BackendProxy {
 public:
  explicit BackendProxy(std::shared_ptr<Plugin> plugin);

  // ---- static facts ----
  const std::string& kind() const { return plugin_->kind(); }
  const std::filesystem::path& path() const { return plugin_->path(); }
  const sdk::Description& description() const { return plugin_->description(); }
  uint32_t capabilities() const { return description().capabilities; }
  bool has_capability(uint32_t caps) const { return (capabilities() & caps) == caps; }
  const char* tier() const { return sdk::tier_name(capabilities()); }
  std::string abi_version() const { return plugin_->abi_version(); }
  std::string plugin_version() const { return plugin_->plugin_version(); }
  bool has_op(Op op) const { return plugin_->has(op); }
  Plugin& plugin() const { return *plugin_; }

  // State minus describe's volatile keys; `same` compares two states that way.
  sdk::State content_state(const sdk::State& state) const;
  bool same(const sdk::State& a, const sdk::State& b) const;

  // ---- configuration and locator helpers ----
  void configure(const sdk::ConfigureRequest& request);
  sdk::Json identity(const sdk::Locator& locator, std::string_view key = {}) const;
  void validate_locator(const sdk::Locator& locator, std::string_view key = {}) const;
  // describe's (or the plugin's per-locator) capabilities; a policy {"pin": "record"}
  // then removes PIN, for every backend.
  uint32_t effective_capabilities(const sdk::Locator& locator, const sdk::Json& policy = sdk::Json::object(),
                                  std::string_view key = {}) const;
  std::string base_branch(const sdk::Locator& locator, std::string_view key = {}) const;
  std::string branch_scope(const sdk::Locator& locator, std::string_view key = {}) const;
  std::string ref_namespace(const sdk::Locator& locator, std::string_view key = {}) const;
  std::optional<std::string> default_key(const sdk::Locator& locator, std::string_view key = {}) const;
  bool state_addressable(const sdk::Locator& locator, const sdk::State& state, std::string_view key = {}) const;

  // ---- core ----
  sdk::State fingerprint(const sdk::Locator& locator, const std::optional<std::string>& working_ref = std::nullopt,
                         std::string_view key = {}) const;
  sdk::VerifyReport verify(const sdk::Locator& locator, const sdk::State& state, const std::optional<sdk::Pin>& pin,
                           bool deep = false, std::string_view key = {}) const;
  // One outcome per item, in order: verify's report, or the status and message the item's
  // verify failed with (redacted, one line). One call to the plugin's verify_many; without
  // that slot (a plugin built before it) verify once per item. A malformed batch reply
  // fails every item of it, naming the problem.
  std::vector<sdk::VerifyOutcome> verify_many(const std::vector<sdk::VerifyRequest>& items) const;
  // The same for items the caller keeps (none of them is copied; each pointer non-null and
  // valid for the call): what verify --all-history sends, 30,000 at a time.
  // An item's state may be given as text (sdk::VerifyRequestRef): the text of one JSON value
  // that support::is_plain_json accepts, sent as it is.
  using VerifyItem = sdk::VerifyRequestRef;
  std::vector<sdk::VerifyOutcome> verify_items(const std::vector<VerifyItem>& items) const;
  // The native handle: {"address": ..., ...}.
  sdk::Json open(const sdk::Locator& locator, const sdk::Source& target = sdk::Source::base(), bool read_only = true,
                 std::string_view key = {}, bool with_password = false) const;

  // ---- PIN ----
  sdk::Pin pin(const sdk::Locator& locator, const sdk::State& state, const std::string& pin_id,
               std::string_view key = {}) const;
  void unpin(const sdk::Locator& locator, const sdk::Pin& pin, std::string_view key = {}) const;
  std::vector<std::string> list_pins(const sdk::Locator& locator, std::string_view key = {}) const;

  // ---- FORK ----
  std::string fork(const sdk::Locator& locator, const sdk::Source& source, const std::string& name,
                   const sdk::Expected& expected = sdk::Expected::none(), std::string_view key = {}) const;
  void delete_working_ref(const sdk::Locator& locator, const std::string& ref, std::string_view key = {}) const;
  std::vector<std::string> list_working_refs(const sdk::Locator& locator, std::string_view key = {}) const;
  std::optional<std::string> working_ref_blockers(const sdk::Locator& locator, const std::string& ref,
                                                  std::string_view key = {}) const;

  // ---- DIFF / HISTORY ----
  std::optional<std::string> listing(const sdk::Locator& locator, const sdk::State& state,
                                     std::string_view key = {}) const;
  sdk::ObjectDiff diff(const sdk::Locator& locator, const sdk::State& a, const sdk::State& b,
                       const std::optional<std::string>& listing_a = std::nullopt,
                       const std::optional<std::string>& listing_b = std::nullopt, std::string_view key = {}) const;
  // Newest first; at most `limit` entries.
  std::vector<sdk::HistoryEntry> history(const sdk::Locator& locator, const std::optional<std::string>& ref = std::nullopt,
                                         int64_t limit = 20, std::string_view key = {}) const;

  // ---- PROMOTE / MERGE ----
  sdk::State promote(const sdk::Locator& locator, const sdk::Source& source,
                     const sdk::Expected& expected = sdk::Expected::none(), std::string_view key = {}) const;
  sdk::State merge(const sdk::Locator& locator, const sdk::Source& source, const std::string& message,
                   const sdk::Expected& expected = sdk::Expected::none(), std::string_view key = {}) const;
  std::optional<bool> ancestor_of(const sdk::Locator& locator, const sdk::State& ancestor,
                                  const sdk::Source& descendant, std::string_view key = {}) const;
  // Why promote (merge = false) or merge of `source` would refuse now; none when the slot is
  // NULL (the move itself still refuses).
  sdk::LandingBlocker promote_blockers(const sdk::Locator& locator, const sdk::Source& source, bool merge,
                                       const sdk::Expected& expected = sdk::Expected::none(),
                                       std::string_view key = {}) const;
  // Moves the base back to `to` (an ancestor of its head). CapabilityError when the slot is
  // NULL: such a backend's promotes cannot be undone.
  sdk::State rewind(const sdk::Locator& locator, const sdk::State& to, const sdk::Expected& expected,
                    std::string_view key = {}) const;

  // ---- NEEDS_QUIESCENCE ----
  void check_quiescence(const sdk::Locator& locator, const std::optional<std::string>& working_ref = std::nullopt,
                        std::string_view key = {}) const;

  // ---- CREATE ----
  sdk::State create(const sdk::Locator& locator, const std::string& owner, std::string_view key = {}) const;
  std::optional<std::string> owner(const sdk::Locator& locator, std::string_view key = {}) const;
  std::optional<bool> is_ref_empty(const sdk::Locator& locator, const std::vector<std::string>& ignoring = {},
                                   std::string_view key = {}) const;
  void delete_store(const sdk::Locator& locator, std::string_view key = {}) const;

  // ---- upgrade helpers ----
  sdk::Pin rename_pin(const sdk::Locator& locator, const sdk::Pin& old, const sdk::State& state,
                      const std::string& new_id, std::string_view key = {}) const;
  std::string rename_working_ref(const sdk::Locator& locator, const std::string& old_ref, const std::string& new_ref,
                                 std::string_view key = {}) const;

  // ---- raw ----
  // Runs `op` with a JSON request and returns its reply object (or {} when the op sent
  // none), mapping failures as above. Emitted items go to `on_item` (or are dropped).
  sdk::Json call(Op op, const sdk::Json& request, std::string_view key = {}, const ItemSink& on_item = nullptr) const;

 private:
  // call() of a request already written as JSON text.
  sdk::Json call_text(Op op, std::string_view request, std::string_view key = {},
                      const ItemSink& on_item = nullptr) const;
  [[noreturn]] void raise(Op op, const CallResult& r, std::string_view key) const;
  [[noreturn]] void unsupported(Op op, std::string_view key) const;
  // The reply's `field`, or a BackendError naming the op when it is missing.
  sdk::Json field(Op op, const sdk::Json& reply, const char* name, std::string_view key) const;
  template <class T>
  T parse(Op op, const sdk::Json& value, std::string_view key) const;

  std::shared_ptr<Plugin> plugin_;
};

}  // namespace tether::host
