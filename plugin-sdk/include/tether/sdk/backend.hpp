// tether/sdk/backend.hpp: write a backend as a plain C++ class.
//
//   class MyBackend : public tether::sdk::Backend<MyBackend> {
//    public:
//     explicit MyBackend(const tether::sdk::Json& config);
//     tether::sdk::Description describe(tether::sdk::Call&);
//     tether::sdk::State fingerprint(tether::sdk::Call&, const tether::sdk::FingerprintRequest&);
//     tether::sdk::VerifyReport verify(tether::sdk::Call&, const tether::sdk::VerifyRequest&);
//     tether::sdk::Json open(tether::sdk::Call&, const tether::sdk::OpenRequest&);
//     // ... any of the optional operations below
//   };
//   TETHER_BACKEND_PLUGIN(MyBackend, "mykind", "0.1.0")
//
// An operation the class does not declare becomes a NULL slot, so the host reports the
// capability as missing without calling. Every slot is a noexcept trampoline: it parses the
// request (a malformed one fails INVALID_ARGUMENT), calls the method, serialises the result
// and turns any exception into exactly one host->fail().
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "tether/backend.h"
#include "tether/sdk/error.hpp"
#include "tether/sdk/json_limits.hpp"
#include "tether/sdk/types.hpp"

namespace tether::sdk {

// The operation in flight: a thin view over the host's call services.
class Call {
 public:
  explicit Call(tether_call* c) : call_(c) {}
  bool cancelled() const { return call_->host->cancelled(call_) != 0; }
  void log(int level, const std::string& message) const { call_->host->log(call_, level, message.c_str()); }
  void progress(uint64_t done, uint64_t total) const { call_->host->progress(call_, done, total); }
  // `done`/`total` `unit`s of `step` and the bytes so far (backend.h: progress_step); on a
  // host without progress_step, the plain counts.
  void progress(const char* step, const char* unit, uint64_t done, uint64_t total, uint64_t bytes) const {
    const tether_host* h = call_->host;
    if (h->struct_size >= offsetof(tether_host, progress_step) + sizeof(h->progress_step) && h->progress_step)
      h->progress_step(call_, step, unit, done, total, bytes);
    else
      h->progress(call_, done, total);
  }
  // Returns false when the host wants no more items.
  bool emit(const Json& item) const {
    std::string s = item.dump();
    return call_->host->emit(call_, s.data(), s.size()) == 0;
  }
  tether_call* raw() const { return call_; }

 private:
  tether_call* call_;
};

namespace detail {

inline std::string one_line(const char* what) {
  std::string s = what ? what : "";
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.empty()) s = "backend failed without a message";
  return s;
}

inline tether_status fail(tether_call* call, tether_status st, const std::string& msg, const Json& details) {
  std::string d = details.is_null() ? std::string() : details.dump();
  call->host->fail(call, st, one_line(msg.c_str()).c_str(), d.empty() ? nullptr : d.c_str());
  return st;
}

// What the exception being handled means at the boundary: a backend Error keeps its status
// and details; out of memory and anything not a std::exception are INTERNAL; any other
// exception is BACKEND. Call only inside a catch block.
struct Failure {
  tether_status status;
  std::string message;
  Json details;
};
inline Failure current_failure() {
  try {
    throw;
  } catch (const Error& e) {
    return {e.status(), e.what(), e.details()};
  } catch (const std::bad_alloc&) {
    return {TETHER_E_INTERNAL, "out of memory", nullptr};
  } catch (const std::exception& e) {
    return {TETHER_E_BACKEND, e.what(), nullptr};
  } catch (...) {
    return {TETHER_E_INTERNAL, "unknown exception in backend", nullptr};
  }
}

// fail() with the exception being handled (current_failure()).
inline tether_status fail_current(tether_call* call) {
  Failure f = current_failure();
  return fail(call, f.status, f.message, f.details);
}

inline void reply(tether_call* call, const Json& j) {
  std::string s = j.dump();
  call->host->reply(call, s.data(), s.size());
}

// Parse, run, reply; every exception becomes one fail().
template <class Req, class Fn>
tether_status run(tether_call* call, const char* request, size_t len, Fn&& fn) noexcept {
  Req req;
  try {
    // The host builds requests from manifests and plans it read under the same limits.
    std::string why;
    auto parsed = parse_json_bounded(std::string_view(request ? request : "", request ? len : 0), kMaxJsonMessageBytes,
                                     &why, kMaxJsonWrappedNesting);
    if (!parsed) return fail(call, TETHER_E_INVALID_ARGUMENT, "invalid request: " + why, nullptr);
    const Json& j = *parsed;
    if (!j.is_object()) return fail(call, TETHER_E_INVALID_ARGUMENT, "request is not a JSON object", nullptr);
    req = j.get<Req>();
  } catch (const std::bad_alloc&) {
    return fail(call, TETHER_E_INTERNAL, "out of memory", nullptr);
  } catch (const std::exception& e) {
    return fail(call, TETHER_E_INVALID_ARGUMENT, std::string("invalid request: ") + e.what(), nullptr);
  } catch (...) {
    return fail(call, TETHER_E_INVALID_ARGUMENT, "invalid request", nullptr);
  }
  try {
    Call c(call);
    Json out = fn(c, req);
    reply(call, out);
    return TETHER_OK;
  } catch (...) {
    return fail_current(call);
  }
}

struct Empty {};
inline void from_json(const Json&, Empty&) {}

}  // namespace detail

// The outcome of a batch item whose verify threw `e`: the status and one-line message the
// single verify would have failed with (for a plugin's own verify_many).
inline VerifyOutcome failed_outcome(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (...) {
    detail::Failure f = detail::current_failure();
    return VerifyOutcome::failed(f.status, detail::one_line(f.message.c_str()));
  }
}

namespace detail {

// from_json(VerifyRequest) (types.hpp) on an item of a parsed request the caller owns: the
// same checks in the same order, throwing the same exceptions, but the locator, the state and
// the pin's strings are moved out of `j` instead of copied (a batch holds thousands).
inline Json take_object(Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Json::object();
  if (!it->is_object()) throw Json::type_error::create(302, std::string("'") + key + "' must be an object", nullptr);
  return std::move(*it);
}
inline std::string take_string(Json& j) {
  if (!j.is_string()) return j.get<std::string>();  // throws get's own type_error
  return std::move(j.get_ref<std::string&>());
}
inline void take_verify_request(Json& j, VerifyRequest& r) {
  r.locator = take_object(j, "locator");
  r.state = take_object(j, "state");
  if (auto p = j.find("pin"); p != j.end() && !p->is_null()) {
    Pin pin;
    pin.id = take_string(p->at("id"));
    auto ref = p->find("ref");  // as get_string(j, "ref", "tether." + id)
    pin.ref = ref == p->end() || ref->is_null() ? "tether." + pin.id : take_string(*ref);
    pin.created = p->value("created", true);
    r.pin = std::move(pin);
  } else {
    r.pin.reset();
  }
  r.deep = j.value("deep", false);
}

// A verify_many request of the shape the host writes (write_verify_request): {"items":[...]},
// each item an object of "deep" (a boolean), "locator" and "state" (objects or null) and "pin"
// (null, or an object of "created" (a boolean), "id" (a string) and "ref" (a string or null)),
// read straight into VerifyRequests: no document per item, nothing copied or moved out of one.
// It builds exactly what from_json(VerifyRequest) builds from the parsed request, and gives up
// on anything else: another key, a key twice, a value of another type, whatever
// PlainJsonReader gives up on. Then the slot parses the request as before and answers it as
// before (a malformed item's message included).
class VerifyManyReader : PlainJsonReader {
 public:
  VerifyManyReader(std::string_view text, std::size_t max_depth) : PlainJsonReader(text, max_depth) {}
  bool read(std::vector<VerifyRequest>& out) {
    if (max_depth_ < 4) return false;  // the request, its items, an item, a pin
    // Room for as many items as the text could hold (the shortest one is 49 bytes): the
    // vector is never moved while it grows, and pages that no item reaches are never touched.
    out.reserve(out.size() + static_cast<std::size_t>(end_ - p_) / 49 + 1);
    space();
    if (!open('{') || !key("items") || !open('[')) return false;
    if (at(']')) {
      ++p_;
    } else {
      for (;;) {
        if (!item(out.emplace_back())) return false;
        if (!next(']')) return false;
        if (at(']')) break;
      }
      ++p_;
    }
    space();
    if (!at('}')) return false;
    ++p_;
    space();
    return p_ == end_;
  }

 private:
  bool open(char c) {  // at c: past it and the space after
    if (!at(c)) return false;
    ++p_;
    space();
    return true;
  }
  bool key(std::string_view want) {  // `"want" :`
    std::string k;
    if (!at('"') || !string(k) || k != want) return false;
    space();
    return open(':');
  }
  bool any_key(std::string& k) {
    if (!at('"') || !string(k)) return false;
    space();
    return open(':');
  }
  // After a member or element: past a ',' (true, not at `close`), or at `close` (true).
  bool next(char close) {
    space();
    if (at(',')) {
      ++p_;
      space();
      return !at(close);
    }
    return at(close);
  }
  bool boolean(bool& b) {
    if (word("true")) b = true;
    else if (word("false")) b = false;
    else return false;
    return true;
  }
  // `out` is the item's own, still empty, object (no key is read twice): get_object makes
  // null {}, and an object's members are read into it in place, as PlainJsonReader reads
  // an object's (at depth 4: the request, its items, the item, this object).
  bool object_or_null(Json& out) {
    if (!out.is_object() || !out.empty()) return false;
    if (word("null")) return true;
    if (!open('{')) return false;
    auto& object = out.get_ref<Json::object_t&>();
    std::string k;
    while (!at('}')) {
      if (!any_key(k) || !value(object[k], 4) || !next('}')) return false;
    }
    ++p_;
    return true;
  }
  bool item(VerifyRequest& r) {
    if (!open('{')) return false;
    bool seen[4] = {};
    std::string k;
    while (!at('}')) {
      if (!any_key(k)) return false;
      int which = k == "deep" ? 0 : k == "locator" ? 1 : k == "pin" ? 2 : k == "state" ? 3 : -1;
      if (which < 0 || seen[which]) return false;
      seen[which] = true;
      bool ok;
      if (which == 0) ok = boolean(r.deep);
      else if (which == 1) ok = object_or_null(r.locator);
      else if (which == 3) ok = object_or_null(r.state);
      else if (word("null")) {
        r.pin.reset();
        ok = true;
      } else {
        ok = pin(r.pin.emplace());
      }
      if (!ok) return false;
      if (!next('}')) return false;
    }
    ++p_;
    return true;
  }
  bool pin(Pin& p) {
    if (!open('{')) return false;
    bool seen[3] = {};
    bool has_ref = false;
    std::string k;
    while (!at('}')) {
      if (!any_key(k)) return false;
      int which = k == "created" ? 0 : k == "id" ? 1 : k == "ref" ? 2 : -1;
      if (which < 0 || seen[which]) return false;
      seen[which] = true;
      bool ok = which == 0   ? boolean(p.created)
                : which == 1 ? at('"') && string(p.id)
                : word("null") || (at('"') && string(p.ref) && (has_ref = true));
      if (!ok) return false;
      if (!next('}')) return false;
    }
    ++p_;
    if (!seen[1]) return false;  // from_json's at("id") throws: the slot's own path says so
    if (!has_ref) p.ref = "tether." + p.id;
    return true;
  }
};

// The verify_many slot: each item is parsed on its own (a malformed one is answered
// INVALID_ARGUMENT, as verify would have been, and never reaches the plugin); the rest go to
// `batch` (the plugin's verify_many) or, without one, to `one` (verify) item by item, each
// item's exception becoming that item's failure.
template <class Batch, class One>
tether_status run_verify_many(tether_call* call, const char* request, size_t len, Batch&& batch, One&& one) noexcept {
  try {
    const std::string_view req(request ? request : "", request ? len : 0);
    std::vector<VerifyOutcome> out;
    VerifyManyRequest valid;
    std::vector<size_t> where;  // valid.items[k] is item where[k]
    // The reader keeps to the nesting limit itself (PlainJsonReader's depth check), so only
    // the size is checked before it; whatever it refuses, parse_json_bounded checks in full.
    if (req.size() <= kMaxJsonMessageBytes && VerifyManyReader(req, kMaxJsonWrappedNesting).read(valid.items)) {
      out.resize(valid.items.size());
      where.resize(valid.items.size());
      for (size_t k = 0; k < where.size(); ++k) where[k] = k;
    } else {
      valid.items.clear();
      std::string why;
      auto parsed = parse_json_bounded(req, kMaxJsonMessageBytes, &why, kMaxJsonWrappedNesting);
      if (!parsed) return fail(call, TETHER_E_INVALID_ARGUMENT, "invalid request: " + why, nullptr);
      if (!parsed->is_object()) return fail(call, TETHER_E_INVALID_ARGUMENT, "request is not a JSON object", nullptr);
      auto items = parsed->find("items");
      if (items == parsed->end() || !items->is_array())
        return fail(call, TETHER_E_INVALID_ARGUMENT, "invalid request: 'items' must be a list", nullptr);
      out.resize(items->size());
      valid.items.reserve(items->size());
      where.reserve(items->size());
      for (size_t i = 0; i < items->size(); ++i) {
        try {
          Json& item = (*items)[i];
          if (!item.is_object()) throw std::invalid_argument("request is not a JSON object");
          VerifyRequest r;
          take_verify_request(item, r);
          valid.items.push_back(std::move(r));
          where.push_back(i);
        } catch (const std::bad_alloc&) {
          throw;
        } catch (const std::invalid_argument& e) {
          out[i] = VerifyOutcome::failed(TETHER_E_INVALID_ARGUMENT, e.what());
        } catch (const std::exception& e) {
          out[i] = VerifyOutcome::failed(TETHER_E_INVALID_ARGUMENT,
                                         one_line((std::string("invalid request: ") + e.what()).c_str()));
        }
      }
    }
    Call c(call);
    if constexpr (!std::is_same_v<std::decay_t<Batch>, std::nullptr_t>) {
      std::vector<VerifyOutcome> got = batch(c, valid);
      if (got.size() != valid.items.size())
        return fail(call, TETHER_E_INTERNAL,
                    "verify_many answered " + std::to_string(got.size()) + " of " + std::to_string(valid.items.size()) +
                        " items",
                    nullptr);
      for (size_t k = 0; k < got.size(); ++k) out[where[k]] = std::move(got[k]);
    } else {
      (void)batch;
      for (size_t k = 0; k < valid.items.size(); ++k) {
        try {
          out[where[k]] = VerifyOutcome::of(one(c, valid.items[k]));
        } catch (...) {
          out[where[k]] = failed_outcome(std::current_exception());
        }
      }
    }
    // {"results": [...]} as Json::dump() writes it, without a Json per result.
    std::string text = "{\"results\":[";
    JsonWriter w(text);
    for (size_t k = 0; k < out.size(); ++k) {
      if (k) text.push_back(',');
      write_verify_outcome(w, out[k]);
    }
    text.append("]}");
    call->host->reply(call, text.data(), text.size());
    return TETHER_OK;
  } catch (...) {
    return fail_current(call);
  }
}

}  // namespace detail

// The instance the host holds. The C struct is opaque to the host; we keep the object here.
struct Instance {
  void* object;
};

template <class D>
class Backend {
 public:
  // ---- every operation, with the default "absent" body (never called: its slot is NULL) ----
  Description describe(Call&);
  void configure(Call&, const ConfigureRequest&);
  Json identity(Call&, const LocatorRequest&);
  void validate_locator(Call&, const LocatorRequest&);
  uint32_t effective_capabilities(Call&, const PolicyRequest&);
  std::string base_branch(Call&, const LocatorRequest&);
  std::string branch_scope(Call&, const LocatorRequest&);
  std::string ref_namespace(Call&, const LocatorRequest&);
  std::optional<std::string> default_key(Call&, const LocatorRequest&);
  bool state_addressable(Call&, const StateRequest&);
  State fingerprint(Call&, const FingerprintRequest&);
  VerifyReport verify(Call&, const VerifyRequest&);
  Pin pin(Call&, const PinRequest&);
  void unpin(Call&, const UnpinRequest&);
  std::vector<std::string> list_pins(Call&, const LocatorRequest&);
  std::string fork(Call&, const ForkRequest&);
  void delete_working_ref(Call&, const RefRequest&);
  std::vector<std::string> list_working_refs(Call&, const LocatorRequest&);
  std::optional<std::string> working_ref_blockers(Call&, const RefRequest&);
  Json open(Call&, const OpenRequest&);
  std::optional<std::string> listing(Call&, const StateRequest&);
  ObjectDiff diff(Call&, const DiffRequest&);
  std::vector<HistoryEntry> history(Call&, const HistoryRequest&);
  State promote(Call&, const PromoteRequest&);
  State merge(Call&, const MergeRequest&);
  std::optional<bool> ancestor_of(Call&, const AncestorRequest&);
  void check_quiescence(Call&, const QuiescenceRequest&);
  State create(Call&, const CreateRequest&);
  std::optional<std::string> owner(Call&, const LocatorRequest&);
  std::optional<bool> is_ref_empty(Call&, const IsRefEmptyRequest&);
  void delete_store(Call&, const LocatorRequest&);
  Pin rename_pin(Call&, const RenamePinRequest&);
  std::string rename_working_ref(Call&, const RenameRefRequest&);
  LandingBlocker promote_blockers(Call&, const LandingRequest&);
  State rewind(Call&, const RewindRequest&);
  // Many verifies in one call, one outcome per item in order. Every SDK plugin answers it:
  // without its own verify_many the slot calls verify() once per item (see below), which
  // saves the host a call per item; declare it to answer a batch in one pass over the store.
  std::vector<VerifyOutcome> verify_many(Call&, const VerifyManyRequest&);

  // Settings from configure(): the per-checkout cache dir, the dataset checkout, and the
  // secrets. A class that declares its own configure() should call remember_configuration().
  const ConfigureRequest& configuration() const { return config_; }
  void remember_configuration(const ConfigureRequest& r) { config_ = r; }

  // The one object's own `secrets.toml` entry: the longest URI-prefix rule whose prefix
  // starts the locator's first non-empty URI key (the host folds exact `[objects."<key>"]`
  // entries in as such rules), without the kind defaults; empty when none matches or the
  // locator names no URI. For a plugin that must tell the object's own settings from the
  // kind's (to say which one is wrong, or to layer them itself).
  Json secret_rule_for(const Locator& locator, const std::vector<std::string>& uri_keys = {"uri", "path"}) const {
    std::string uri;
    for (const auto& k : uri_keys)
      if (locator.contains(k) && locator[k].is_string() && !locator[k].get<std::string>().empty()) {
        uri = locator[k].get<std::string>();
        break;
      }
    if (uri.empty() || !config_.rules.is_object()) return Json::object();
    const Json* best = nullptr;
    std::size_t best_len = 0;
    for (auto it = config_.rules.begin(); it != config_.rules.end(); ++it)
      if (it.value().is_object() && uri.rfind(it.key(), 0) == 0 && (!best || it.key().size() >= best_len)) {
        best = &it.value();
        best_len = it.key().size();
      }
    return best ? *best : Json::object();
  }

  // Options for one object: secret_rule_for's keys layered over the kind defaults.
  Json secrets_for(const Locator& locator, const std::vector<std::string>& uri_keys = {"uri", "path"}) const {
    Json out = config_.defaults.is_object() ? config_.defaults : Json::object();
    const Json rule = secret_rule_for(locator, uri_keys);
    for (auto it = rule.begin(); it != rule.end(); ++it) out[it.key()] = it.value();
    return out;
  }

  static const tether_backend_vtable* vtable();

 private:
  ConfigureRequest config_;
};

// True when D declares the operation itself (its member pointer is not the base's).
#define TETHER_SDK_DEFINES(D, op) (!std::is_same_v<decltype(&D::op), decltype(&::tether::sdk::Backend<D>::op)>)

#define TETHER_SDK_SLOT(D, op, Req, ...)                                                         \
  if constexpr (TETHER_SDK_DEFINES(D, op)) {                                                      \
    t.op = [](tether_backend* self, tether_call* call, const char* req, size_t len) noexcept {    \
      D& obj = *static_cast<D*>(reinterpret_cast<Instance*>(self)->object);                      \
      return detail::run<Req>(call, req, len, [&obj](Call& c, const Req& r) -> Json {             \
        (void)c;                                                                                  \
        (void)r;                                                                                  \
        __VA_ARGS__                                                                               \
      });                                                                                         \
    };                                                                                            \
  }

template <class D>
const tether_backend_vtable* Backend<D>::vtable() {
  static const tether_backend_vtable table = [] {
    static_assert(TETHER_SDK_DEFINES(D, describe), "a backend must define describe()");
    static_assert(TETHER_SDK_DEFINES(D, fingerprint), "a backend must define fingerprint()");
    static_assert(TETHER_SDK_DEFINES(D, verify), "a backend must define verify()");
    static_assert(TETHER_SDK_DEFINES(D, open), "a backend must define open()");
    tether_backend_vtable t;
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    using detail::Empty;
    TETHER_SDK_SLOT(D, describe, Empty, Description d = obj.describe(c);
                    if constexpr (TETHER_SDK_DEFINES(D, verify_many)) d.batch_verify = true; return Json(d);)
    // configure always has a slot: the SDK remembers the settings for secrets_for().
    t.configure = [](tether_backend* self, tether_call* call, const char* req, size_t len) noexcept {
      D& obj = *static_cast<D*>(reinterpret_cast<Instance*>(self)->object);
      return detail::run<ConfigureRequest>(call, req, len, [&obj](Call& c, const ConfigureRequest& r) -> Json {
        obj.remember_configuration(r);
        if constexpr (TETHER_SDK_DEFINES(D, configure)) obj.configure(c, r);
        else (void)c;
        return Json::object();
      });
    };
    TETHER_SDK_SLOT(D, identity, LocatorRequest, return Json{{"identity", obj.identity(c, r)}};)
    TETHER_SDK_SLOT(D, validate_locator, LocatorRequest, obj.validate_locator(c, r); return Json::object();)
    TETHER_SDK_SLOT(D, effective_capabilities, PolicyRequest, return Json{{"capabilities", obj.effective_capabilities(c, r)}};)
    TETHER_SDK_SLOT(D, base_branch, LocatorRequest, return Json{{"branch", obj.base_branch(c, r)}};)
    TETHER_SDK_SLOT(D, branch_scope, LocatorRequest, return Json{{"scope", obj.branch_scope(c, r)}};)
    TETHER_SDK_SLOT(D, ref_namespace, LocatorRequest, return Json{{"namespace", obj.ref_namespace(c, r)}};)
    TETHER_SDK_SLOT(D, default_key, LocatorRequest, return Json{{"key", opt_to_json(obj.default_key(c, r))}};)
    TETHER_SDK_SLOT(D, state_addressable, StateRequest, return Json{{"addressable", obj.state_addressable(c, r)}};)
    TETHER_SDK_SLOT(D, fingerprint, FingerprintRequest, return Json{{"state", obj.fingerprint(c, r)}};)
    TETHER_SDK_SLOT(D, verify, VerifyRequest, return Json(obj.verify(c, r));)
    TETHER_SDK_SLOT(D, pin, PinRequest, return Json{{"pin", obj.pin(c, r)}};)
    TETHER_SDK_SLOT(D, unpin, UnpinRequest, obj.unpin(c, r); return Json::object();)
    TETHER_SDK_SLOT(D, list_pins, LocatorRequest, return Json{{"pins", obj.list_pins(c, r)}};)
    TETHER_SDK_SLOT(D, fork, ForkRequest, return Json{{"ref", obj.fork(c, r)}};)
    TETHER_SDK_SLOT(D, delete_working_ref, RefRequest, obj.delete_working_ref(c, r); return Json::object();)
    TETHER_SDK_SLOT(D, list_working_refs, LocatorRequest, return Json{{"refs", obj.list_working_refs(c, r)}};)
    TETHER_SDK_SLOT(D, working_ref_blockers, RefRequest, return Json{{"blocker", opt_to_json(obj.working_ref_blockers(c, r))}};)
    TETHER_SDK_SLOT(D, open, OpenRequest, return Json{{"handle", obj.open(c, r)}};)
    TETHER_SDK_SLOT(D, listing, StateRequest, return Json{{"listing", opt_to_json(obj.listing(c, r))}};)
    TETHER_SDK_SLOT(D, diff, DiffRequest, return Json(obj.diff(c, r));)
    TETHER_SDK_SLOT(D, history, HistoryRequest,
                    for (const auto& e : obj.history(c, r)) if (!c.emit(Json(e))) break;
                    return Json::object();)
    TETHER_SDK_SLOT(D, promote, PromoteRequest, return Json{{"state", obj.promote(c, r)}};)
    TETHER_SDK_SLOT(D, merge, MergeRequest, return Json{{"state", obj.merge(c, r)}};)
    TETHER_SDK_SLOT(D, ancestor_of, AncestorRequest, {
      auto v = obj.ancestor_of(c, r);
      return Json{{"result", v ? Json(*v) : Json(nullptr)}};
    })
    TETHER_SDK_SLOT(D, check_quiescence, QuiescenceRequest, obj.check_quiescence(c, r); return Json::object();)
    TETHER_SDK_SLOT(D, create, CreateRequest, return Json{{"state", obj.create(c, r)}};)
    TETHER_SDK_SLOT(D, owner, LocatorRequest, return Json{{"owner", opt_to_json(obj.owner(c, r))}};)
    TETHER_SDK_SLOT(D, is_ref_empty, IsRefEmptyRequest, {
      auto v = obj.is_ref_empty(c, r);
      return Json{{"result", v ? Json(*v) : Json(nullptr)}};
    })
    TETHER_SDK_SLOT(D, delete_store, LocatorRequest, obj.delete_store(c, r); return Json::object();)
    TETHER_SDK_SLOT(D, rename_pin, RenamePinRequest, return Json{{"pin", obj.rename_pin(c, r)}};)
    TETHER_SDK_SLOT(D, rename_working_ref, RenameRefRequest, return Json{{"ref", obj.rename_working_ref(c, r)}};)
    TETHER_SDK_SLOT(D, promote_blockers, LandingRequest, return Json(obj.promote_blockers(c, r));)
    TETHER_SDK_SLOT(D, rewind, RewindRequest, return Json{{"state", obj.rewind(c, r)}};)
    // verify_many always has a slot: the plugin's own, else verify() once per item.
    t.verify_many = [](tether_backend* self, tether_call* call, const char* req, size_t len) noexcept {
      D& obj = *static_cast<D*>(reinterpret_cast<Instance*>(self)->object);
      auto one = [&obj](Call& c, const VerifyRequest& r) { return obj.verify(c, r); };
      if constexpr (TETHER_SDK_DEFINES(D, verify_many))
        return detail::run_verify_many(
            call, req, len, [&obj](Call& c, const VerifyManyRequest& r) { return obj.verify_many(c, r); }, one);
      else
        return detail::run_verify_many(call, req, len, nullptr, one);
    };
    return t;
  }();
  return &table;
}

namespace detail {

template <class D>
tether_status create_instance(tether_call* call, const char* config, size_t len, tether_backend** out) noexcept {
  try {
    std::string why;
    auto parsed = (config && len) ? parse_json_bounded(std::string_view(config, len), kMaxJsonMessageBytes, &why)
                                  : std::optional<Json>(Json::object());
    if (!parsed) return fail(call, TETHER_E_INVALID_ARGUMENT, "invalid config: " + why, nullptr);
    const Json& cfg = *parsed;
    if (!cfg.is_object()) return fail(call, TETHER_E_INVALID_ARGUMENT, "config is not a JSON object", nullptr);
    auto* inst = new Instance{new D(cfg)};
    *out = reinterpret_cast<tether_backend*>(inst);
    return TETHER_OK;
  } catch (const Error& e) {
    return fail(call, e.status(), e.what(), e.details());
  } catch (const std::exception& e) {
    return fail(call, TETHER_E_INVALID_ARGUMENT, e.what(), nullptr);
  } catch (...) {
    return fail(call, TETHER_E_INTERNAL, "backend constructor failed", nullptr);
  }
}

template <class D>
void destroy_instance(tether_backend* b) noexcept {
  auto* inst = reinterpret_cast<Instance*>(b);
  delete static_cast<D*>(inst->object);
  delete inst;
}

inline std::atomic<int>& init_count() {
  static std::atomic<int> n{0};
  return n;
}
inline tether_status counted_init(const tether_host*) noexcept { ++init_count(); return TETHER_OK; }
inline void counted_deinit() noexcept { --init_count(); }

}  // namespace detail
}  // namespace tether::sdk

// Emits the one exported symbol for backend class `Class` of kind `KIND`.
#define TETHER_BACKEND_PLUGIN(Class, KIND, VERSION)                                               \
  extern "C" TETHER_EXPORT const tether_plugin_entry tether_entry = {                              \
      TETHER_PLUGIN_MAGIC,                                                                         \
      TETHER_ABI_MAJOR,                                                                            \
      TETHER_ABI_MINOR,                                                                            \
      sizeof(tether_plugin_entry),                                                                 \
      KIND,                                                                                        \
      VERSION,                                                                                     \
      &::tether::sdk::detail::counted_init,                                                        \
      &::tether::sdk::detail::counted_deinit,                                                      \
      &::tether::sdk::detail::create_instance<Class>,                                              \
      &::tether::sdk::detail::destroy_instance<Class>,                                             \
      ::tether::sdk::Backend<Class>::vtable(),                                                     \
  };
