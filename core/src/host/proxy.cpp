// BackendProxy: typed calls over a Plugin, status -> exception mapping, slot defaults.
#include "tether/host/proxy.hpp"

#include <type_traits>
#include <utility>

#include "tether/sdk/json_limits.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/support/redact.hpp"

namespace tether::host {

using sdk::Json;

namespace {
// A reply, an emitted item or fail() details: JSON a plugin wrote, often from what its store
// holds. Parsed within the message limits; nullopt (and why) otherwise.
std::optional<Json> parse_message(std::string_view text, std::string* why = nullptr) {
  std::string reason;
  auto j = sdk::parse_json_bounded(text, sdk::kMaxJsonMessageBytes, &reason, sdk::kMaxJsonWrappedNesting);
  for (char& c : reason)
    if (c == '\n' || c == '\r') c = ' ';
  if (why) *why = std::move(reason);
  return j;
}
}  // namespace

BackendProxy::BackendProxy(std::shared_ptr<Plugin> plugin) : plugin_(std::move(plugin)) {}

sdk::State BackendProxy::content_state(const sdk::State& state) const {
  return sdk::content_state(state, description().volatile_keys);
}

bool BackendProxy::same(const sdk::State& a, const sdk::State& b) const { return content_state(a) == content_state(b); }

// ---- the call and its failures ------------------------------------------------------------

void BackendProxy::unsupported(Op op, std::string_view key) const {
  std::string what = op_name(op);
  for (char& c : what)
    if (c == '_') c = ' ';
  throw WithFailure<CapabilityError>(Failure(TETHER_E_UNSUPPORTED, op_name(op), Json{{"capability", op_name(op)}}),
                                     kind() + " backend cannot " + what, std::string(key), kind());
}

void BackendProxy::raise(Op op, const CallResult& r, std::string_view key) const {
  Json details = Json::object();
  if (!r.details.empty()) {
    if (auto d = parse_message(r.details)) details = std::move(*d);
    else details = Json{{"raw", r.details.substr(0, 4096)}};
  }
  std::string message = r.message.empty() ? std::string(op_name(op)) + " failed" : r.message;
  Failure f(r.status, op_name(op), details);
  std::string k(key);
  switch (r.status) {
    case TETHER_E_REF_MOVED:
      throw WithFailure<RefMovedError>(std::move(f), message, k, kind());
    case TETHER_E_MERGE_CONFLICT: {
      std::vector<std::string> conflicts;
      if (details.is_object() && details.contains("conflicts") && details["conflicts"].is_array())
        for (const auto& c : details["conflicts"]) {
          if (c.is_string()) conflicts.push_back(c.get<std::string>());
          else if (c.is_object() && c.contains("path") && c["path"].is_string()) conflicts.push_back(c["path"].get<std::string>());
          else conflicts.push_back(c.dump());
        }
      throw WithFailure<MergeConflict>(std::move(f), message, std::move(conflicts), k, kind());
    }
    case TETHER_E_UNSUPPORTED:
      throw WithFailure<CapabilityError>(std::move(f), message, k, kind());
    default:
      throw WithFailure<BackendError>(std::move(f), message, k, kind());
  }
}

Json BackendProxy::call(Op op, const Json& request, std::string_view key, const ItemSink& on_item) const {
  if (!plugin_->has(op)) unsupported(op, key);
  return call_text(op, request.dump(), key, on_item);
}

Json BackendProxy::call_text(Op op, std::string_view request, std::string_view key, const ItemSink& on_item) const {
  if (!plugin_->has(op)) unsupported(op, key);
  ObjectScope scope(key);  // the plugin's progress reports name the object
  CallResult r = plugin_->call(op, request, on_item);
  if (!r.ok()) raise(op, r, key);
  if (!r.reply) return Json::object();
  std::string why;
  auto parsed = parse_message(*r.reply, &why);
  if (!parsed)
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, op_name(op), Json::object()),
                                    std::string(op_name(op)) + " sent a malformed reply: " + why, std::string(key),
                                    kind());
  Json reply = std::move(*parsed);
  if (!reply.is_object())
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, op_name(op), Json::object()),
                                    std::string(op_name(op)) + " sent a reply that is not a JSON object",
                                    std::string(key), kind());
  return reply;
}

Json BackendProxy::field(Op op, const Json& reply, const char* name, std::string_view key) const {
  auto it = reply.find(name);
  if (it == reply.end())
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, op_name(op), Json::object()),
                                    std::string(op_name(op)) + " reply lacks \"" + name + "\"", std::string(key), kind());
  return *it;
}

template <class T>
T BackendProxy::parse(Op op, const Json& value, std::string_view key) const {
  try {
    if constexpr (std::is_same_v<T, std::optional<std::string>>) {
      if (value.is_null()) return std::nullopt;
      return value.get<std::string>();
    } else {
      return value.get<T>();
    }
  } catch (const std::exception& e) {
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, op_name(op), Json::object()),
                                    std::string(op_name(op)) + " sent a malformed reply: " + e.what(), std::string(key),
                                    kind());
  }
}

namespace {
std::optional<bool> opt_bool(const Json& v) {
  if (v.is_boolean()) return v.get<bool>();
  return std::nullopt;  // null, or anything else: unknown
}
}  // namespace

// ---- configuration and locator helpers ----------------------------------------------------

void BackendProxy::configure(const sdk::ConfigureRequest& request) {
  if (!plugin_->has(Op::Configure)) return;  // optional: a backend with nothing to configure
  call(Op::Configure, Json(request));
}

Json BackendProxy::identity(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::Identity)) return locator;
  Json id = field(Op::Identity, call(Op::Identity, Json(sdk::LocatorRequest{locator}), key), "identity", key);
  if (!id.is_object())
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, "identity", Json::object()),
                                    "identity reply is not a JSON object", std::string(key), kind());
  return id;
}

void BackendProxy::validate_locator(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::ValidateLocator)) return;
  call(Op::ValidateLocator, Json(sdk::LocatorRequest{locator}), key);
}

uint32_t BackendProxy::effective_capabilities(const sdk::Locator& locator, const Json& policy,
                                              std::string_view key) const {
  uint32_t caps = capabilities();
  if (plugin_->has(Op::EffectiveCapabilities)) {
    Json reply = call(Op::EffectiveCapabilities, Json(sdk::PolicyRequest{locator, policy}), key);
    caps = parse<uint32_t>(Op::EffectiveCapabilities, field(Op::EffectiveCapabilities, reply, "capabilities", key), key);
  }
  if (policy.is_object() && policy.value("pin", std::string()) == "record") caps &= ~uint32_t{TETHER_CAP_PIN};
  return caps;
}

std::string BackendProxy::base_branch(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::BaseBranch)) {
    auto it = locator.find("branch");
    if (it != locator.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
    return "main";
  }
  Json reply = call(Op::BaseBranch, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::string>(Op::BaseBranch, field(Op::BaseBranch, reply, "branch", key), key);
}

std::string BackendProxy::branch_scope(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::BranchScope)) return support::canonical_json(identity(locator, key));
  Json reply = call(Op::BranchScope, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::string>(Op::BranchScope, field(Op::BranchScope, reply, "scope", key), key);
}

std::string BackendProxy::ref_namespace(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::RefNamespace)) return support::canonical_json(identity(locator, key));
  Json reply = call(Op::RefNamespace, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::string>(Op::RefNamespace, field(Op::RefNamespace, reply, "namespace", key), key);
}

std::optional<std::string> BackendProxy::default_key(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::DefaultKey)) return std::nullopt;
  Json reply = call(Op::DefaultKey, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::optional<std::string>>(Op::DefaultKey, reply.value("key", Json(nullptr)), key);
}

bool BackendProxy::state_addressable(const sdk::Locator& locator, const sdk::State& state, std::string_view key) const {
  if (!plugin_->has(Op::StateAddressable)) return true;
  Json reply = call(Op::StateAddressable, Json(sdk::StateRequest{locator, state}), key);
  return parse<bool>(Op::StateAddressable, field(Op::StateAddressable, reply, "addressable", key), key);
}

// ---- core ----------------------------------------------------------------------------------

sdk::State BackendProxy::fingerprint(const sdk::Locator& locator, const std::optional<std::string>& working_ref,
                                     std::string_view key) const {
  Json reply = call(Op::Fingerprint, Json(sdk::FingerprintRequest{locator, working_ref}), key);
  Json state = field(Op::Fingerprint, reply, "state", key);
  if (!state.is_object() || state.empty())
    throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, "fingerprint", Json::object()),
                                    "fingerprint returned an empty or non-object state", std::string(key), kind());
  return state;
}

sdk::VerifyReport BackendProxy::verify(const sdk::Locator& locator, const sdk::State& state,
                                       const std::optional<sdk::Pin>& pin, bool deep, std::string_view key) const {
  Json reply = call(Op::Verify, Json(sdk::VerifyRequest{locator, state, pin, deep}), key);
  return parse<sdk::VerifyReport>(Op::Verify, reply, key);
}

std::vector<sdk::VerifyOutcome> BackendProxy::verify_many(const std::vector<sdk::VerifyRequest>& items) const {
  std::vector<VerifyItem> refs;
  refs.reserve(items.size());
  for (const auto& r : items) {
    VerifyItem& ref = refs.emplace_back();
    ref.locator = &r.locator;
    ref.state = &r.state;
    if (r.pin) ref.pinned = true, ref.pin_created = r.pin->created, ref.pin_id = r.pin->id, ref.pin_ref = r.pin->ref;
    ref.deep = r.deep;
  }
  return verify_items(refs);
}

std::vector<sdk::VerifyOutcome> BackendProxy::verify_items(const std::vector<VerifyItem>& items) const {
  std::vector<sdk::VerifyOutcome> out;
  out.reserve(items.size());
  auto failed = [](const std::exception& e) {
    const Failure* f = failure_of(e);
    auto* b = dynamic_cast<const BackendError*>(&e);
    return sdk::VerifyOutcome::failed(f ? f->status() : TETHER_E_BACKEND, b ? b->bare_message() : e.what());
  };
  if (items.empty()) return out;
  if (!plugin_->has(Op::VerifyMany)) {
    for (const auto& r : items) {
      try {
        std::optional<sdk::Pin> pin;
        if (r.pinned) pin = sdk::Pin{std::string(r.pin_id), std::string(r.pin_ref), r.pin_created};
        out.push_back(sdk::VerifyOutcome::of(
            verify(*r.locator, r.state ? *r.state : Json::parse(r.state_text), pin, r.deep)));
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& e) {
        out.push_back(failed(e));
      }
    }
    return out;
  }
  auto every = [&](tether_status st, const std::string& message) {
    out.assign(items.size(), sdk::VerifyOutcome::failed(st, message));
    return std::move(out);
  };
  Json reply;
  try {
    // The items straight into the request's text, {"items": [...]} as
    // Json(VerifyManyRequest).dump() writes it, without a Json per item.
    std::string request = "{\"items\":[";
    sdk::JsonWriter w(request);
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (k) request.push_back(',');
      sdk::write_verify_request(w, items[k]);
      // Room for the rest at the first item's size and a quarter more, not a copy per doubling.
      if (k == 0) request.reserve(request.size() + (request.size() + 1) * (items.size() - 1) / 4 * 5 + 2);
    }
    request.append("]}");
    reply = call_text(Op::VerifyMany, request, {});
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    auto f = failed(e);
    return every(f.status, f.message);
  }
  auto results = reply.find("results");
  if (results == reply.end() || !results->is_array())
    return every(TETHER_E_BACKEND, "verify_many sent a malformed reply: no \"results\" list");
  if (results->size() != items.size())
    return every(TETHER_E_BACKEND, "verify_many sent " + std::to_string(results->size()) + " results for " +
                                       std::to_string(items.size()) + " items");
  for (const auto& r : *results) {
    sdk::VerifyOutcome o;
    try {
      o = r.get<sdk::VerifyOutcome>();
    } catch (const std::exception& e) {
      o = sdk::VerifyOutcome::failed(TETHER_E_BACKEND, std::string("verify_many sent a malformed result: ") + e.what());
    }
    if (!o.ok()) {
      // As fail() messages are: redacted, one line, never empty.
      o.message = support::redact_secrets(o.message);
      for (char& c : o.message)
        if (c == '\n' || c == '\r') c = ' ';
      if (o.message.empty()) o.message = "verify failed";
    }
    out.push_back(std::move(o));
  }
  return out;
}

Json BackendProxy::open(const sdk::Locator& locator, const sdk::Source& target, bool read_only,
                        std::string_view key, bool with_password) const {
  Json reply = call(Op::Open, Json(sdk::OpenRequest{locator, target, read_only, with_password}), key);
  return field(Op::Open, reply, "handle", key);
}

// ---- PIN -----------------------------------------------------------------------------------

sdk::Pin BackendProxy::pin(const sdk::Locator& locator, const sdk::State& state, const std::string& pin_id,
                           std::string_view key) const {
  Json reply = call(Op::Pin, Json(sdk::PinRequest{locator, state, pin_id}), key);
  return parse<sdk::Pin>(Op::Pin, field(Op::Pin, reply, "pin", key), key);
}

void BackendProxy::unpin(const sdk::Locator& locator, const sdk::Pin& pin, std::string_view key) const {
  call(Op::Unpin, Json(sdk::UnpinRequest{locator, pin}), key);
}

std::vector<std::string> BackendProxy::list_pins(const sdk::Locator& locator, std::string_view key) const {
  Json reply = call(Op::ListPins, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::vector<std::string>>(Op::ListPins, field(Op::ListPins, reply, "pins", key), key);
}

// ---- FORK ----------------------------------------------------------------------------------

std::string BackendProxy::fork(const sdk::Locator& locator, const sdk::Source& source, const std::string& name,
                               const sdk::Expected& expected, std::string_view key) const {
  Json reply = call(Op::Fork, Json(sdk::ForkRequest{locator, source, name, expected}), key);
  return parse<std::string>(Op::Fork, field(Op::Fork, reply, "ref", key), key);
}

void BackendProxy::delete_working_ref(const sdk::Locator& locator, const std::string& ref, std::string_view key) const {
  call(Op::DeleteWorkingRef, Json(sdk::RefRequest{locator, ref}), key);
}

std::vector<std::string> BackendProxy::list_working_refs(const sdk::Locator& locator, std::string_view key) const {
  if (!plugin_->has(Op::ListWorkingRefs)) return {};
  Json reply = call(Op::ListWorkingRefs, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::vector<std::string>>(Op::ListWorkingRefs, field(Op::ListWorkingRefs, reply, "refs", key), key);
}

std::optional<std::string> BackendProxy::working_ref_blockers(const sdk::Locator& locator, const std::string& ref,
                                                              std::string_view key) const {
  if (!plugin_->has(Op::WorkingRefBlockers)) return std::nullopt;
  Json reply = call(Op::WorkingRefBlockers, Json(sdk::RefRequest{locator, ref}), key);
  return parse<std::optional<std::string>>(Op::WorkingRefBlockers, reply.value("blocker", Json(nullptr)), key);
}

// ---- DIFF / HISTORY ------------------------------------------------------------------------

std::optional<std::string> BackendProxy::listing(const sdk::Locator& locator, const sdk::State& state,
                                                 std::string_view key) const {
  if (!plugin_->has(Op::Listing)) return std::nullopt;
  Json reply = call(Op::Listing, Json(sdk::StateRequest{locator, state}), key);
  return parse<std::optional<std::string>>(Op::Listing, reply.value("listing", Json(nullptr)), key);
}

sdk::ObjectDiff BackendProxy::diff(const sdk::Locator& locator, const sdk::State& a, const sdk::State& b,
                                   const std::optional<std::string>& listing_a,
                                   const std::optional<std::string>& listing_b, std::string_view key) const {
  Json reply = call(Op::Diff, Json(sdk::DiffRequest{locator, a, b, listing_a, listing_b}), key);
  return parse<sdk::ObjectDiff>(Op::Diff, reply, key);
}

std::vector<sdk::HistoryEntry> BackendProxy::history(const sdk::Locator& locator, const std::optional<std::string>& ref,
                                                     int64_t limit, std::string_view key) const {
  std::vector<std::string> items;
  ItemSink keep = [&items, limit](std::string_view item) {
    items.emplace_back(item);
    return limit <= 0 || static_cast<int64_t>(items.size()) < limit;
  };
  call(Op::History, Json(sdk::HistoryRequest{locator, ref, limit}), key, keep);
  std::vector<sdk::HistoryEntry> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    std::string why;
    auto parsed = parse_message(item, &why);
    if (!parsed)
      throw WithFailure<BackendError>(Failure(TETHER_E_BACKEND, "history", Json::object()),
                                      std::string("history emitted a malformed entry: ") + why, std::string(key),
                                      kind());
    const Json& j = *parsed;
    out.push_back(parse<sdk::HistoryEntry>(Op::History, j, key));
  }
  return out;
}

// ---- PROMOTE / MERGE -----------------------------------------------------------------------

sdk::State BackendProxy::promote(const sdk::Locator& locator, const sdk::Source& source, const sdk::Expected& expected,
                                 std::string_view key) const {
  Json reply = call(Op::Promote, Json(sdk::PromoteRequest{locator, source, expected}), key);
  return field(Op::Promote, reply, "state", key);
}

sdk::State BackendProxy::merge(const sdk::Locator& locator, const sdk::Source& source, const std::string& message,
                               const sdk::Expected& expected, std::string_view key) const {
  Json reply = call(Op::Merge, Json(sdk::MergeRequest{locator, source, message, expected}), key);
  return field(Op::Merge, reply, "state", key);
}

sdk::LandingBlocker BackendProxy::promote_blockers(const sdk::Locator& locator, const sdk::Source& source, bool merge,
                                                  const sdk::Expected& expected, std::string_view key) const {
  if (!plugin_->has(Op::PromoteBlockers)) return {};
  Json reply = call(Op::PromoteBlockers, Json(sdk::LandingRequest{locator, source, merge, expected}), key);
  return parse<sdk::LandingBlocker>(Op::PromoteBlockers, reply, key);
}

sdk::State BackendProxy::rewind(const sdk::Locator& locator, const sdk::State& to, const sdk::Expected& expected,
                                std::string_view key) const {
  Json reply = call(Op::Rewind, Json(sdk::RewindRequest{locator, to, expected}), key);
  return field(Op::Rewind, reply, "state", key);
}

std::optional<bool> BackendProxy::ancestor_of(const sdk::Locator& locator, const sdk::State& ancestor,
                                              const sdk::Source& descendant, std::string_view key) const {
  if (!plugin_->has(Op::AncestorOf)) return std::nullopt;
  Json reply = call(Op::AncestorOf, Json(sdk::AncestorRequest{locator, ancestor, descendant}), key);
  return opt_bool(reply.value("result", Json(nullptr)));
}

void BackendProxy::check_quiescence(const sdk::Locator& locator, const std::optional<std::string>& working_ref,
                                    std::string_view key) const {
  if (!plugin_->has(Op::CheckQuiescence)) return;
  call(Op::CheckQuiescence, Json(sdk::QuiescenceRequest{locator, working_ref}), key);
}

// ---- CREATE --------------------------------------------------------------------------------

sdk::State BackendProxy::create(const sdk::Locator& locator, const std::string& owner, std::string_view key) const {
  Json reply = call(Op::Create, Json(sdk::CreateRequest{locator, owner}), key);
  return field(Op::Create, reply, "state", key);
}

std::optional<std::string> BackendProxy::owner(const sdk::Locator& locator, std::string_view key) const {
  Json reply = call(Op::Owner, Json(sdk::LocatorRequest{locator}), key);
  return parse<std::optional<std::string>>(Op::Owner, reply.value("owner", Json(nullptr)), key);
}

std::optional<bool> BackendProxy::is_ref_empty(const sdk::Locator& locator, const std::vector<std::string>& ignoring,
                                               std::string_view key) const {
  Json reply = call(Op::IsRefEmpty, Json(sdk::IsRefEmptyRequest{locator, ignoring}), key);
  return opt_bool(reply.value("result", Json(nullptr)));
}

void BackendProxy::delete_store(const sdk::Locator& locator, std::string_view key) const {
  call(Op::DeleteStore, Json(sdk::LocatorRequest{locator}), key);
}

// ---- upgrade helpers -----------------------------------------------------------------------

sdk::Pin BackendProxy::rename_pin(const sdk::Locator& locator, const sdk::Pin& old, const sdk::State& state,
                                  const std::string& new_id, std::string_view key) const {
  if (plugin_->has(Op::RenamePin)) {
    Json reply = call(Op::RenamePin, Json(sdk::RenamePinRequest{locator, old, state, new_id}), key);
    return parse<sdk::Pin>(Op::RenamePin, field(Op::RenamePin, reply, "pin", key), key);
  }
  if (!plugin_->has(Op::Pin) || !plugin_->has(Op::Unpin)) unsupported(Op::RenamePin, key);
  sdk::Pin renamed = pin(locator, state, new_id, key);
  if (renamed.ref != old.ref) unpin(locator, old, key);
  return renamed;
}

std::string BackendProxy::rename_working_ref(const sdk::Locator& locator, const std::string& old_ref,
                                             const std::string& new_ref, std::string_view key) const {
  if (plugin_->has(Op::RenameWorkingRef)) {
    Json reply = call(Op::RenameWorkingRef, Json(sdk::RenameRefRequest{locator, old_ref, new_ref}), key);
    return parse<std::string>(Op::RenameWorkingRef, field(Op::RenameWorkingRef, reply, "ref", key), key);
  }
  if (!plugin_->has(Op::Fork) || !plugin_->has(Op::DeleteWorkingRef)) unsupported(Op::RenameWorkingRef, key);
  sdk::State head = fingerprint(locator, old_ref, key);
  std::string ref = fork(locator, sdk::Source::of_state(head), new_ref, sdk::Expected::none(), key);
  if (ref != old_ref) delete_working_ref(locator, old_ref, key);
  return ref;
}

}  // namespace tether::host
