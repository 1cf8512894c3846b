// tether/sdk/types.hpp: the typed request and reply payloads of every backend operation,
// and their JSON forms. The plugin SDK and the core both use this header, so the two sides
// of the C ABI read and write one definition.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/backend.h"

namespace tether::sdk {

using Json = nlohmann::json;
using Locator = Json;  // a JSON object naming one object in its system
using State = Json;    // a JSON object: one native state

// Capabilities, the bits of backend.h in their fixed order.
enum Capability : uint32_t {
  kFingerprint = TETHER_CAP_FINGERPRINT,
  kAddressable = TETHER_CAP_ADDRESSABLE,
  kPin = TETHER_CAP_PIN,
  kFork = TETHER_CAP_FORK,
  kCheapFingerprint = TETHER_CAP_CHEAP_FINGERPRINT,
  kRetentionBound = TETHER_CAP_RETENTION_BOUND,
  kNeedsQuiescence = TETHER_CAP_NEEDS_QUIESCENCE,
  kAtomicRef = TETHER_CAP_ATOMIC_REF,
  kDiff = TETHER_CAP_DIFF,
  kHistory = TETHER_CAP_HISTORY,
  kBranchIsStorage = TETHER_CAP_BRANCH_IS_STORAGE,
  kPromote = TETHER_CAP_PROMOTE,
  kMerge = TETHER_CAP_MERGE,
  kCreate = TETHER_CAP_CREATE,
  kConditionalRef = TETHER_CAP_CONDITIONAL_REF,
};
inline constexpr int kCapabilityCount = 15;
// Lower-case names in bit order, as `tether backends` prints them.
inline constexpr const char* kCapabilityNames[kCapabilityCount] = {
    "fingerprint", "addressable", "pin",     "fork",  "cheap_fingerprint",
    "retention_bound", "needs_quiescence", "atomic_ref", "diff", "history",
    "branch_is_storage", "promote", "merge", "create", "conditional_ref"};

inline std::vector<std::string> capability_names(uint32_t caps) {
  std::vector<std::string> out;
  for (int i = 0; i < kCapabilityCount; ++i)
    if (caps & (1u << i)) out.emplace_back(kCapabilityNames[i]);
  return out;
}

// Tier = highest of FORK -> forkable, PIN -> pinnable, ADDRESSABLE -> addressable.
inline const char* tier_name(uint32_t caps) {
  if (caps & kFork) return "forkable";
  if (caps & kPin) return "pinnable";
  if (caps & kAddressable) return "addressable";
  return "observed";
}

// ---- small helpers for optional fields ----------------------------------------------------
inline std::string get_string(const Json& j, const char* key, std::string fallback = {}) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<std::string>();
}
inline std::optional<std::string> get_opt_string(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<std::string>();
}
inline Json get_object(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Json::object();
  if (!it->is_object()) throw Json::type_error::create(302, std::string("'") + key + "' must be an object", nullptr);
  return *it;
}
inline Json opt_to_json(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

// ---- value types -----------------------------------------------------------------------------
struct Pin {
  std::string id;   // <dataset8>.<hash16>
  std::string ref;  // tether.<id> (or a later generation)
  bool created = true;
};
inline void to_json(Json& j, const Pin& p) { j = Json{{"id", p.id}, {"ref", p.ref}, {"created", p.created}}; }
inline void from_json(const Json& j, Pin& p) {
  p.id = j.at("id").get<std::string>();
  p.ref = get_string(j, "ref", "tether." + p.id);
  p.created = j.value("created", true);
}

// What fork/promote/merge/open/ancestor_of act on: the base, a pin, a state, or a ref.
struct Source {
  enum class Kind { Base, Pin, State, Ref } kind = Kind::Base;
  tether::sdk::Pin pin;
  State state = Json::object();
  std::string ref;

  static Source base() { return {}; }
  static Source of_pin(tether::sdk::Pin p) { Source s; s.kind = Kind::Pin; s.pin = std::move(p); return s; }
  static Source of_state(State st) { Source s; s.kind = Kind::State; s.state = std::move(st); return s; }
  static Source of_ref(std::string r) { Source s; s.kind = Kind::Ref; s.ref = std::move(r); return s; }
};
inline void to_json(Json& j, const Source& s) {
  switch (s.kind) {
    case Source::Kind::Base: j = Json::object(); break;
    case Source::Kind::Pin: j = Json{{"pin", s.pin}}; break;
    case Source::Kind::State: j = Json{{"state", s.state}}; break;
    case Source::Kind::Ref: j = Json{{"ref", s.ref}}; break;
  }
}
inline void from_json(const Json& j, Source& s) {
  s = Source{};
  if (j.is_null()) return;
  if (!j.is_object()) throw Json::type_error::create(302, "source/target must be an object", nullptr);
  if (j.contains("pin") && !j["pin"].is_null()) { s.kind = Source::Kind::Pin; s.pin = j["pin"].get<Pin>(); }
  else if (j.contains("state") && !j["state"].is_null()) { s.kind = Source::Kind::State; s.state = get_object(j, "state"); }
  else if (j.contains("ref") && !j["ref"].is_null()) { s.kind = Source::Kind::Ref; s.ref = j["ref"].get<std::string>(); }
}

// The head a conditional move must find: none (unconditional), ABSENT, or a state.
struct Expected {
  enum class Kind { None, Absent, At } kind = Kind::None;
  State state = Json::object();
  static Expected none() { return {}; }
  static Expected absent() { Expected e; e.kind = Kind::Absent; return e; }
  static Expected at(State st) { Expected e; e.kind = Kind::At; e.state = std::move(st); return e; }
  bool given() const { return kind != Kind::None; }
};
// Written into a request object only when given.
inline void put_expected(Json& req, const Expected& e) {
  if (e.kind == Expected::Kind::Absent) req["expected"] = Json::object();
  else if (e.kind == Expected::Kind::At) req["expected"] = e.state;
}
inline Expected get_expected(const Json& req) {
  auto it = req.find("expected");
  if (it == req.end() || it->is_null()) return Expected::none();
  if (!it->is_object()) throw Json::type_error::create(302, "'expected' must be an object", nullptr);
  if (it->empty()) return Expected::absent();
  return Expected::at(*it);
}

enum class VerifyStatus { Ok, Drifted, Missing, Unknown };
inline const char* verify_status_name(VerifyStatus s) {
  switch (s) {
    case VerifyStatus::Ok: return "ok";
    case VerifyStatus::Drifted: return "drifted";
    case VerifyStatus::Missing: return "missing";
    case VerifyStatus::Unknown: return "unknown";
  }
  return "unknown";
}
inline VerifyStatus parse_verify_status(const std::string& s) {
  if (s == "ok") return VerifyStatus::Ok;
  if (s == "drifted") return VerifyStatus::Drifted;
  if (s == "missing") return VerifyStatus::Missing;
  if (s == "unknown") return VerifyStatus::Unknown;
  throw Json::type_error::create(302, "unknown verify status '" + s + "'", nullptr);
}
struct VerifyReport {
  VerifyStatus status = VerifyStatus::Unknown;
  std::string message;
  bool ok() const { return status == VerifyStatus::Ok; }
};
inline void to_json(Json& j, const VerifyReport& r) { j = Json{{"status", verify_status_name(r.status)}, {"message", r.message}}; }
inline void from_json(const Json& j, VerifyReport& r) {
  r.status = parse_verify_status(j.at("status").get<std::string>());
  r.message = get_string(j, "message");
}

struct ChangeEntry {
  std::string path;
  std::string change;  // added | removed | modified | renamed
  std::string detail;
};
inline void to_json(Json& j, const ChangeEntry& e) {
  j = Json{{"path", e.path}, {"change", e.change}};
  if (!e.detail.empty()) j["detail"] = e.detail;
}
inline void from_json(const Json& j, ChangeEntry& e) {
  e.path = j.at("path").get<std::string>();
  e.change = j.at("change").get<std::string>();
  e.detail = get_string(j, "detail");
}

inline constexpr std::size_t kMaxDiffEntries = 2000;
struct ObjectDiff {
  std::string unit = "entries";
  int64_t added = 0, removed = 0, modified = 0;
  bool truncated = false;
  std::string note;
  std::vector<ChangeEntry> entries;

  // Count a change; keep the entry while under the cap.
  void add(std::string path, const std::string& change, std::string detail = {}) {
    if (change == "added") ++added;
    else if (change == "removed") ++removed;
    else ++modified;  // modified and renamed
    if (entries.size() < kMaxDiffEntries) entries.push_back({std::move(path), change, std::move(detail)});
    else truncated = true;
  }
  bool empty() const { return added == 0 && removed == 0 && modified == 0 && entries.empty(); }
  std::string summary() const {
    std::string s = "+" + std::to_string(added) + " -" + std::to_string(removed) + " ~" +
                    std::to_string(modified) + " " + unit;
    if (truncated) s += " (first " + std::to_string(entries.size()) + " shown)";
    if (!note.empty()) s += "; " + note;
    return s;
  }
};
inline void to_json(Json& j, const ObjectDiff& d) {
  j = Json{{"summary", d.summary()}, {"unit", d.unit}, {"added", d.added}, {"removed", d.removed},
           {"modified", d.modified}, {"truncated", d.truncated}, {"note", d.note}, {"entries", d.entries}};
}
inline void from_json(const Json& j, ObjectDiff& d) {
  d.unit = get_string(j, "unit", "entries");
  d.added = j.value("added", int64_t{0});
  d.removed = j.value("removed", int64_t{0});
  d.modified = j.value("modified", int64_t{0});
  d.truncated = j.value("truncated", false);
  d.note = get_string(j, "note");
  d.entries = j.value("entries", std::vector<ChangeEntry>{});
}

struct HistoryEntry {
  std::string id;                   // accepted as the locator's `at`
  std::optional<std::string> when;  // ISO-8601 UTC, seconds
  std::string message;
  std::vector<std::string> refs;
};
inline void to_json(Json& j, const HistoryEntry& h) {
  j = Json{{"id", h.id}, {"when", opt_to_json(h.when)}, {"message", h.message}, {"refs", h.refs}};
}
inline void from_json(const Json& j, HistoryEntry& h) {
  h.id = j.at("id").get<std::string>();
  h.when = get_opt_string(j, "when");
  h.message = get_string(j, "message");
  h.refs = j.value("refs", std::vector<std::string>{});
}

// Static facts about a backend (the describe op).
struct Description {
  std::string kind;
  std::string maturity = "stable";  // stable | experimental
  uint32_t capabilities = kFingerprint;
  std::vector<std::string> volatile_keys;
  std::vector<std::string> local_path_keys;
  std::vector<std::string> local_path_prefixes;
  std::vector<std::string> uri_keys{"uri", "path"};
  std::optional<std::vector<std::string>> key_suffixes;  // null: locator is not a path
  std::vector<std::string> safe_config_keys;
  std::map<std::string, std::vector<std::string>> safe_option_keys;
  std::string promote_hint;
  bool thread_safe = false;
  // verify_many answers a whole batch in one pass (lists the refs once): the host then sends
  // a kind's records in as few batches as it has cores, not one per concurrent request. The
  // SDK sets it for a backend that defines verify_many.
  bool batch_verify = false;
  // Object-store URI schemes the backend reads, each with its own maturity ("s3" -> "stable",
  // "az" -> "experimental"): `tether backends` shows them. Empty: local stores only.
  std::map<std::string, std::string> uri_schemes;
};
inline void to_json(Json& j, const Description& d) {
  j = Json{{"kind", d.kind},
           {"maturity", d.maturity},
           {"capabilities", d.capabilities},
           {"volatile_keys", d.volatile_keys},
           {"local_path_keys", d.local_path_keys},
           {"local_path_prefixes", d.local_path_prefixes},
           {"uri_keys", d.uri_keys},
           {"key_suffixes", d.key_suffixes ? Json(*d.key_suffixes) : Json(nullptr)},
           {"safe_config_keys", d.safe_config_keys},
           {"safe_option_keys", d.safe_option_keys},
           {"promote_hint", d.promote_hint},
           {"thread_safe", d.thread_safe}};
  if (!d.uri_schemes.empty()) j["uri_schemes"] = d.uri_schemes;
  if (d.batch_verify) j["batch_verify"] = true;
}
inline void from_json(const Json& j, Description& d) {
  d.kind = j.at("kind").get<std::string>();
  d.maturity = get_string(j, "maturity", "stable");
  d.capabilities = j.value("capabilities", uint32_t{kFingerprint});
  d.volatile_keys = j.value("volatile_keys", std::vector<std::string>{});
  d.local_path_keys = j.value("local_path_keys", std::vector<std::string>{});
  d.local_path_prefixes = j.value("local_path_prefixes", std::vector<std::string>{});
  d.uri_keys = j.value("uri_keys", std::vector<std::string>{"uri", "path"});
  if (j.contains("key_suffixes") && !j["key_suffixes"].is_null())
    d.key_suffixes = j["key_suffixes"].get<std::vector<std::string>>();
  d.safe_config_keys = j.value("safe_config_keys", std::vector<std::string>{});
  d.safe_option_keys = j.value("safe_option_keys", std::map<std::string, std::vector<std::string>>{});
  d.promote_hint = get_string(j, "promote_hint");
  d.thread_safe = j.value("thread_safe", false);
  d.batch_verify = j.value("batch_verify", false);
  if (auto it = j.find("uri_schemes"); it != j.end() && it->is_object())
    for (const auto& [scheme, maturity] : it->items())
      if (maturity.is_string()) d.uri_schemes[scheme] = maturity.get<std::string>();
}

// State minus volatile keys: what equality, pin ids and drift checks compare.
inline State content_state(const State& s, const std::vector<std::string>& volatile_keys) {
  if (!s.is_object()) return s;
  State out = s;
  for (const auto& k : volatile_keys) out.erase(k);
  return out;
}

// ---- requests ----------------------------------------------------------------------------
// Each request is an object; `locator` is always present for per-object operations.
struct ConfigureRequest {
  std::string cache_dir;
  std::string checkout;
  Json defaults = Json::object();
  Json rules = Json::object();  // uri prefix -> options
};
inline void to_json(Json& j, const ConfigureRequest& r) {
  j = Json{{"cache_dir", r.cache_dir}, {"checkout", r.checkout}, {"defaults", r.defaults}, {"rules", r.rules}};
}
inline void from_json(const Json& j, ConfigureRequest& r) {
  r.cache_dir = get_string(j, "cache_dir");
  r.checkout = get_string(j, "checkout");
  r.defaults = get_object(j, "defaults");
  r.rules = get_object(j, "rules");
}

struct LocatorRequest { Locator locator = Json::object(); };
struct PolicyRequest { Locator locator = Json::object(); Json policy = Json::object(); };
struct StateRequest { Locator locator = Json::object(); State state = Json::object(); };
struct FingerprintRequest { Locator locator = Json::object(); std::optional<std::string> working_ref; };
struct VerifyRequest { Locator locator = Json::object(); State state = Json::object(); std::optional<Pin> pin; bool deep = false; };
struct PinRequest { Locator locator = Json::object(); State state = Json::object(); std::string pin_id; };
struct UnpinRequest { Locator locator = Json::object(); Pin pin; };
struct RefRequest { Locator locator = Json::object(); std::string ref; };
struct ForkRequest { Locator locator = Json::object(); Source source; std::string name; Expected expected; };
// with_password: the caller asked to see a secret in the handle's `display` (`tether open
// --with-password`); without it a backend redacts passwords everywhere in the handle.
struct OpenRequest { Locator locator = Json::object(); Source target; bool read_only = true; bool with_password = false; };
struct DiffRequest { Locator locator = Json::object(); State a, b; std::optional<std::string> listing_a, listing_b; };
struct HistoryRequest { Locator locator = Json::object(); std::optional<std::string> ref; int64_t limit = 20; };
struct PromoteRequest { Locator locator = Json::object(); Source source; Expected expected; };
struct MergeRequest { Locator locator = Json::object(); Source source; std::string message; Expected expected; };
struct AncestorRequest { Locator locator = Json::object(); State ancestor; Source descendant; };
struct QuiescenceRequest { Locator locator = Json::object(); std::optional<std::string> working_ref; };
struct CreateRequest { Locator locator = Json::object(); std::string owner; };
struct IsRefEmptyRequest { Locator locator = Json::object(); std::vector<std::string> ignoring; };
struct RenamePinRequest { Locator locator = Json::object(); Pin old; State state; std::string new_id; };
struct RenameRefRequest { Locator locator = Json::object(); std::string old_ref, new_ref; };
// promote_blockers: would promote (merge = false) or merge (merge = true) of `source` into the
// base branch refuse right now? Asked for every object before a bookmark's first move.
struct LandingRequest { Locator locator = Json::object(); Source source; bool merge = false; Expected expected; };
// Why the move would refuse (nullopt: it would not), and the units a merge would conflict in.
struct LandingBlocker {
  std::optional<std::string> blocker;
  std::vector<std::string> conflicts;
};
// rewind: move the base branch back to `to`, an ancestor of its head (undo of a promote).
struct RewindRequest { Locator locator = Json::object(); State to = Json::object(); Expected expected; };

inline Json locator_of(const Json& j) { return get_object(j, "locator"); }

inline void to_json(Json& j, const LocatorRequest& r) { j = Json{{"locator", r.locator}}; }
inline void from_json(const Json& j, LocatorRequest& r) { r.locator = locator_of(j); }
inline void to_json(Json& j, const PolicyRequest& r) { j = Json{{"locator", r.locator}, {"policy", r.policy}}; }
inline void from_json(const Json& j, PolicyRequest& r) { r.locator = locator_of(j); r.policy = get_object(j, "policy"); }
inline void to_json(Json& j, const StateRequest& r) { j = Json{{"locator", r.locator}, {"state", r.state}}; }
inline void from_json(const Json& j, StateRequest& r) { r.locator = locator_of(j); r.state = get_object(j, "state"); }
inline void to_json(Json& j, const FingerprintRequest& r) { j = Json{{"locator", r.locator}, {"working_ref", opt_to_json(r.working_ref)}}; }
inline void from_json(const Json& j, FingerprintRequest& r) { r.locator = locator_of(j); r.working_ref = get_opt_string(j, "working_ref"); }
inline void to_json(Json& j, const VerifyRequest& r) {
  j = Json{{"locator", r.locator}, {"state", r.state}, {"pin", r.pin ? Json(*r.pin) : Json(nullptr)}, {"deep", r.deep}};
}
inline void from_json(const Json& j, VerifyRequest& r) {
  r.locator = locator_of(j);
  r.state = get_object(j, "state");
  if (j.contains("pin") && !j["pin"].is_null()) r.pin = j["pin"].get<Pin>(); else r.pin.reset();
  r.deep = j.value("deep", false);
}
// verify_many: many verify requests in one call, answered one result per item, in order.
struct VerifyManyRequest { std::vector<VerifyRequest> items; };
inline void to_json(Json& j, const VerifyManyRequest& r) {
  Json items = Json::array();
  for (const auto& it : r.items) items.push_back(Json(it));
  j = Json{{"items", std::move(items)}};
}
inline void from_json(const Json& j, VerifyManyRequest& r) {
  auto it = j.find("items");
  if (it == j.end() || !it->is_array()) throw Json::type_error::create(302, "'items' must be a list", nullptr);
  r.items.clear();
  r.items.reserve(it->size());
  for (const auto& item : *it) r.items.push_back(item.get<VerifyRequest>());
}
// One item's answer: the report verify would have replied, or the status and one-line
// message it would have failed with (`report` empty, `status` not TETHER_OK).
struct VerifyOutcome {
  std::optional<VerifyReport> report;
  tether_status status = TETHER_OK;
  std::string message;
  static VerifyOutcome of(VerifyReport r) { VerifyOutcome o; o.report = std::move(r); return o; }
  static VerifyOutcome failed(tether_status st, std::string m) {
    VerifyOutcome o;
    o.status = st == TETHER_OK ? TETHER_E_BACKEND : st;
    o.message = std::move(m);
    return o;
  }
  bool ok() const { return report.has_value(); }
};
inline void to_json(Json& j, const VerifyOutcome& o) {
  if (o.report) j = Json(*o.report);
  else j = Json{{"error", {{"status", o.status}, {"message", o.message}}}};
}
// A result as a plugin sent it; throws on a malformed one (the host reports that per item).
inline void from_json(const Json& j, VerifyOutcome& o) {
  o = VerifyOutcome{};
  if (!j.is_object()) throw Json::type_error::create(302, "a verify_many result is not an object", nullptr);
  if (auto e = j.find("error"); e != j.end() && !e->is_null()) {
    if (!e->is_object()) throw Json::type_error::create(302, "a verify_many result's 'error' is not an object", nullptr);
    auto st = e->find("status");
    tether_status status = TETHER_E_BACKEND;
    if (st != e->end() && st->is_number_integer()) {
      auto v = st->get<int64_t>();
      if (v > 0 && v <= INT32_MAX) status = static_cast<tether_status>(v);
    }
    o.status = status;
    o.message = get_string(*e, "message");
    return;
  }
  o.report = j.get<VerifyReport>();
}

// verify_many's batches as text, byte for byte what Json::dump() writes for the Json forms
// above (compact, keys in order, strict UTF-8), appended piece by piece: building a Json per
// item and then dumping it cost more than the check itself. One serializer for the batch.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out)
      : out_(out), s_(nlohmann::detail::output_adapter<char, std::string>(out), ' ', Json::error_handler_t::strict) {}
  JsonWriter& raw(std::string_view text) { out_.append(text); return *this; }
  // Containers, strings, booleans and null here; numbers (and the rest) by the serializer.
  JsonWriter& value(const Json& j) {
    switch (j.type()) {
      case Json::value_t::object: {
        out_.push_back('{');
        bool first = true;
        for (const auto& [k, v] : j.get_ref<const Json::object_t&>()) {
          if (!first) out_.push_back(',');
          first = false;
          string(k);
          out_.push_back(':');
          value(v);
        }
        out_.push_back('}');
        return *this;
      }
      case Json::value_t::array: {
        out_.push_back('[');
        bool first = true;
        for (const auto& v : j.get_ref<const Json::array_t&>()) {
          if (!first) out_.push_back(',');
          first = false;
          value(v);
        }
        out_.push_back(']');
        return *this;
      }
      case Json::value_t::string: return string(j.get_ref<const std::string&>());
      case Json::value_t::boolean: return boolean(j.get<bool>());
      case Json::value_t::null: return raw("null");
      default: s_.dump(j, false, false, 0); return *this;
    }
  }
  // A string as dump() writes it: printable ASCII other than '"' and '\\' is written as it
  // is; anything else (escapes, UTF-8, its checks) goes through the serializer.
  JsonWriter& string(std::string_view v) {
    for (char c : v)
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        s_.dump(Json(std::string(v)), false, false, 0);
        return *this;
      }
    out_.push_back('"');
    out_.append(v);
    out_.push_back('"');
    return *this;
  }
  JsonWriter& boolean(bool b) { return raw(b ? "true" : "false"); }

 private:
  std::string& out_;
  nlohmann::detail::serializer<Json> s_;
};
// A verify request's parts, none of them copied: the pin as its id and ref, the state as a
// Json or (`state` null) the text of one JSON value, which is written as it is.
struct VerifyRequestRef {
  const Locator* locator = nullptr;
  const State* state = nullptr;
  std::string_view state_text;
  bool pinned = false, pin_created = false;
  std::string_view pin_id, pin_ref;
  bool deep = false;
};
// Json(VerifyRequest{locator, state, pin, deep}).dump(), of the caller's own values (with a
// state text, that text in the state's place).
inline void write_verify_request(JsonWriter& w, const VerifyRequestRef& r) {
  w.raw("{\"deep\":").boolean(r.deep).raw(",\"locator\":").value(*r.locator).raw(",\"pin\":");
  if (r.pinned) w.raw("{\"created\":").boolean(r.pin_created).raw(",\"id\":").string(r.pin_id).raw(",\"ref\":").string(r.pin_ref).raw("}");
  else w.raw("null");
  w.raw(",\"state\":");
  if (r.state) w.value(*r.state);
  else w.raw(r.state_text);
  w.raw("}");
}
inline void write_verify_request(JsonWriter& w, const Locator& locator, const State& state,
                                 const std::optional<Pin>& pin, bool deep) {
  VerifyRequestRef r{&locator, &state, {}, pin.has_value(), pin && pin->created, {}, {}, deep};
  if (pin) r.pin_id = pin->id, r.pin_ref = pin->ref;
  write_verify_request(w, r);
}
// Json(VerifyOutcome).dump().
inline void write_verify_outcome(JsonWriter& w, const VerifyOutcome& o) {
  if (o.report)
    w.raw("{\"message\":").string(o.report->message).raw(",\"status\":\"").raw(verify_status_name(o.report->status)).raw("\"}");
  else
    w.raw("{\"error\":{\"message\":").string(o.message).raw(",\"status\":").value(Json(o.status)).raw("}}");
}

inline void to_json(Json& j, const PinRequest& r) { j = Json{{"locator", r.locator}, {"state", r.state}, {"pin_id", r.pin_id}}; }
inline void from_json(const Json& j, PinRequest& r) { r.locator = locator_of(j); r.state = get_object(j, "state"); r.pin_id = j.at("pin_id").get<std::string>(); }
inline void to_json(Json& j, const UnpinRequest& r) { j = Json{{"locator", r.locator}, {"pin", r.pin}}; }
inline void from_json(const Json& j, UnpinRequest& r) { r.locator = locator_of(j); r.pin = j.at("pin").get<Pin>(); }
inline void to_json(Json& j, const RefRequest& r) { j = Json{{"locator", r.locator}, {"ref", r.ref}}; }
inline void from_json(const Json& j, RefRequest& r) { r.locator = locator_of(j); r.ref = j.at("ref").get<std::string>(); }
inline void to_json(Json& j, const ForkRequest& r) {
  j = Json{{"locator", r.locator}, {"source", r.source}, {"name", r.name}};
  put_expected(j, r.expected);
}
inline void from_json(const Json& j, ForkRequest& r) {
  r.locator = locator_of(j);
  r.source = j.at("source").get<Source>();
  r.name = j.at("name").get<std::string>();
  r.expected = get_expected(j);
}
inline void to_json(Json& j, const OpenRequest& r) {
  j = Json{{"locator", r.locator}, {"target", r.target}, {"read_only", r.read_only}};
  if (r.with_password) j["with_password"] = true;
}
inline void from_json(const Json& j, OpenRequest& r) {
  r.locator = locator_of(j);
  r.target = j.contains("target") ? j["target"].get<Source>() : Source{};
  r.read_only = j.value("read_only", true);
  r.with_password = j.value("with_password", false);
}
inline void to_json(Json& j, const DiffRequest& r) {
  j = Json{{"locator", r.locator}, {"a", r.a}, {"b", r.b}, {"listing_a", opt_to_json(r.listing_a)}, {"listing_b", opt_to_json(r.listing_b)}};
}
inline void from_json(const Json& j, DiffRequest& r) {
  r.locator = locator_of(j);
  r.a = get_object(j, "a");
  r.b = get_object(j, "b");
  r.listing_a = get_opt_string(j, "listing_a");
  r.listing_b = get_opt_string(j, "listing_b");
}
inline void to_json(Json& j, const HistoryRequest& r) { j = Json{{"locator", r.locator}, {"ref", opt_to_json(r.ref)}, {"limit", r.limit}}; }
inline void from_json(const Json& j, HistoryRequest& r) { r.locator = locator_of(j); r.ref = get_opt_string(j, "ref"); r.limit = j.value("limit", int64_t{20}); }
inline void to_json(Json& j, const PromoteRequest& r) { j = Json{{"locator", r.locator}, {"source", r.source}}; put_expected(j, r.expected); }
inline void from_json(const Json& j, PromoteRequest& r) { r.locator = locator_of(j); r.source = j.at("source").get<Source>(); r.expected = get_expected(j); }
inline void to_json(Json& j, const MergeRequest& r) {
  j = Json{{"locator", r.locator}, {"source", r.source}, {"message", r.message}};
  put_expected(j, r.expected);
}
inline void from_json(const Json& j, MergeRequest& r) {
  r.locator = locator_of(j);
  r.source = j.at("source").get<Source>();
  r.message = get_string(j, "message");
  r.expected = get_expected(j);
}
inline void to_json(Json& j, const AncestorRequest& r) { j = Json{{"locator", r.locator}, {"ancestor", r.ancestor}, {"descendant", r.descendant}}; }
inline void from_json(const Json& j, AncestorRequest& r) {
  r.locator = locator_of(j);
  r.ancestor = get_object(j, "ancestor");
  r.descendant = j.at("descendant").get<Source>();
}
inline void to_json(Json& j, const QuiescenceRequest& r) { j = Json{{"locator", r.locator}, {"working_ref", opt_to_json(r.working_ref)}}; }
inline void from_json(const Json& j, QuiescenceRequest& r) { r.locator = locator_of(j); r.working_ref = get_opt_string(j, "working_ref"); }
inline void to_json(Json& j, const CreateRequest& r) { j = Json{{"locator", r.locator}, {"owner", r.owner}}; }
inline void from_json(const Json& j, CreateRequest& r) { r.locator = locator_of(j); r.owner = j.at("owner").get<std::string>(); }
inline void to_json(Json& j, const IsRefEmptyRequest& r) { j = Json{{"locator", r.locator}, {"ignoring", r.ignoring}}; }
inline void from_json(const Json& j, IsRefEmptyRequest& r) { r.locator = locator_of(j); r.ignoring = j.value("ignoring", std::vector<std::string>{}); }
inline void to_json(Json& j, const RenamePinRequest& r) { j = Json{{"locator", r.locator}, {"old", r.old}, {"state", r.state}, {"new_id", r.new_id}}; }
inline void from_json(const Json& j, RenamePinRequest& r) {
  r.locator = locator_of(j);
  r.old = j.at("old").get<Pin>();
  r.state = get_object(j, "state");
  r.new_id = j.at("new_id").get<std::string>();
}
inline void to_json(Json& j, const RenameRefRequest& r) { j = Json{{"locator", r.locator}, {"old", r.old_ref}, {"new", r.new_ref}}; }
inline void from_json(const Json& j, RenameRefRequest& r) { r.locator = locator_of(j); r.old_ref = j.at("old").get<std::string>(); r.new_ref = j.at("new").get<std::string>(); }
inline void to_json(Json& j, const LandingRequest& r) {
  j = Json{{"locator", r.locator}, {"source", r.source}, {"merge", r.merge}};
  put_expected(j, r.expected);
}
inline void from_json(const Json& j, LandingRequest& r) {
  r.locator = locator_of(j);
  r.source = j.at("source").get<Source>();
  r.merge = j.value("merge", false);
  r.expected = get_expected(j);
}
inline void to_json(Json& j, const LandingBlocker& b) {
  j = Json{{"blocker", opt_to_json(b.blocker)}, {"conflicts", b.conflicts}};
}
inline void from_json(const Json& j, LandingBlocker& b) {
  b.blocker = get_opt_string(j, "blocker");
  b.conflicts.clear();
  if (auto it = j.find("conflicts"); it != j.end() && it->is_array())
    for (const auto& c : *it)
      if (c.is_string()) b.conflicts.push_back(c.get<std::string>());
}
inline void to_json(Json& j, const RewindRequest& r) { j = Json{{"locator", r.locator}, {"to", r.to}}; put_expected(j, r.expected); }
inline void from_json(const Json& j, RewindRequest& r) { r.locator = locator_of(j); r.to = get_object(j, "to"); r.expected = get_expected(j); }

}  // namespace tether::sdk
