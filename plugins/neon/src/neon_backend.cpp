#include "neon_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "pg.hpp"
#include "tether/sdk/error.hpp"

namespace tether::neon {
namespace {

using sdk::BackendError;
using sdk::Json;

constexpr uint32_t kCaps = sdk::kFingerprint | sdk::kAddressable | sdk::kPin | sdk::kFork | sdk::kNeedsQuiescence |
                           sdk::kRetentionBound | sdk::kBranchIsStorage;
const std::vector<std::string> kVolatile{"lsn", "timeline"};

// One protocol call on one object: its locator, the API client and the project's cache.
struct Ctx {
  Target t;
  HttpClient http;
  ProjectApi api;
  Ctx(const sdk::Locator& locator, ApiConfig config)
      : t(parse_target(locator)), http(std::move(config)), api(http, t.project_id) {}
};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string pin_ref(const sdk::Pin& p) { return p.ref.empty() ? kPinPrefix + p.id : p.ref; }

std::string or_none(const std::optional<std::string>& s) { return s ? *s : "None"; }

sdk::Json handle(const std::string& key, bool read_only, const std::string& branch, const std::string& url,
                 bool with_password) {
  std::string redacted = redact_password(url);
  std::string shown = with_password ? url : redacted;
  return Json{{"type", "NeonHandle"}, {"key", key},          {"read_only", read_only}, {"branch", branch},
              {"address", redacted},  {"redacted_url", redacted}, {"url", shown},     {"display", shown}};
}

}  // namespace

NeonBackend::NeonBackend(const Json&) {}

ApiConfig NeonBackend::api_config() const {
  ApiConfig c;
  if (const char* env = std::getenv("TETHER_NEON_API_URL"); env && *env) c.api_url = env;
  const Json& d = configuration().defaults;
  if (auto v = d.find("api_url"); v != d.end() && v->is_string() && !v->get<std::string>().empty())
    c.api_url = v->get<std::string>();
  if (auto v = d.find("api_key_env"); v != d.end() && v->is_string() && !v->get<std::string>().empty())
    c.api_key_env = v->get<std::string>();
  return c;
}

bool NeonBackend::protected_pins() const {
  const Json& d = configuration().defaults;
  auto v = d.find("protected_pins");
  if (v == d.end()) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) return *v == "true" || *v == "1" || *v == "yes";
  return false;
}

sdk::Description NeonBackend::describe(sdk::Call&) {
  sdk::Description d;
  d.kind = "neon";
  d.maturity = "experimental";
  d.capabilities = kCaps;
  d.volatile_keys = kVolatile;
  d.promote_hint =
      "Neon cannot promote a child branch into its parent; work on the trunk bookmark for databases that must "
      "receive writes on main, or copy the data with pg_dump/psql";
  d.thread_safe = true;
  return d;
}

Json NeonBackend::identity(sdk::Call&, const sdk::LocatorRequest& r) { return identity_of(parse_target(r.locator)); }

void NeonBackend::validate_locator(sdk::Call&, const sdk::LocatorRequest& r) { parse_target(r.locator); }

uint32_t NeonBackend::effective_capabilities(sdk::Call&, const sdk::PolicyRequest&) { return kCaps; }

std::string NeonBackend::base_branch(sdk::Call&, const sdk::LocatorRequest& r) { return parse_target(r.locator).branch; }

std::string NeonBackend::branch_scope(sdk::Call&, const sdk::LocatorRequest& r) { return scope_of(parse_target(r.locator)); }

std::string NeonBackend::ref_namespace(sdk::Call&, const sdk::LocatorRequest& r) {
  return scope_of(parse_target(r.locator));
}

bool NeonBackend::state_addressable(sdk::Call&, const sdk::StateRequest& r) {
  try {
    parse_state(r.state);
    return true;
  } catch (const BackendError&) {
    return false;
  }
}

// ---- endpoints and the SQL reads ------------------------------------------------------------

std::string NeonBackend::ensure_endpoint(ProjectApi& api, const std::string& branch_id, const std::string& type) {
  std::mutex* m;
  {
    std::lock_guard g(locks_mutex_);
    auto& slot = endpoint_locks_[api.project() + '\n' + branch_id + '\n' + type];
    if (!slot) slot = std::make_unique<std::mutex>();
    m = slot.get();
  }
  // Held across list-then-create: two objects on one branch must not both create one.
  std::lock_guard g(*m);
  auto existing = [&]() -> std::optional<std::string> {
    for (const auto& e : api.endpoints_of(branch_id))
      if (e.type == type) return e.id;
    return std::nullopt;
  };
  if (auto id = existing()) return *id;
  try {
    return api.create_endpoint(branch_id, type);
  } catch (const sdk::Error& e) {
    // Another process (a second tether) won the race: use the endpoint it made.
    if (e.status() == TETHER_E_AUTH) throw;
    if (auto id = existing()) return *id;
    throw;
  }
}

std::string NeonBackend::uri_for(ProjectApi& api, const Target& t, const Branch& b, const std::string& type) {
  std::string endpoint = ensure_endpoint(api, b.id, type);
  return api.connection_uri(b.id, endpoint, t.database, t.role);
}

sdk::State NeonBackend::read_state(ProjectApi& api, const Target& t, const Branch& b) {
  Probe p = probe(uri_for(api, t, b, "read_write"));
  return make_state(p.lsn, p.commit_xid, lineage_of(b, api.branches(), t.branch), b.name);
}

sdk::State NeonBackend::fingerprint(sdk::Call&, const sdk::FingerprintRequest& r) {
  Ctx c(r.locator, api_config());
  return read_state(c.api, c.t, c.api.require(r.working_ref.value_or(c.t.branch)));
}

void NeonBackend::check_quiescence(sdk::Call&, const sdk::QuiescenceRequest& r) {
  Ctx c(r.locator, api_config());
  Branch b = c.api.require(r.working_ref.value_or(c.t.branch));
  long n = active_writers(uri_for(c.api, c.t, b, "read_write"));
  if (n > 0)
    throw BackendError("neon branch " + b.name + ": " + std::to_string(n) +
                       " other session(s) writing or running a statement; active writers detected; commit with "
                       "--force to override");
}

// ---- pins -----------------------------------------------------------------------------------

sdk::VerifyReport NeonBackend::verify(sdk::Call&, const sdk::VerifyRequest& r) {
  using S = sdk::VerifyStatus;
  if (!r.pin) return {S::Unknown, "no pin recorded"};
  Ctx c(r.locator, api_config());
  StateView s = parse_state(r.state);
  std::string ref = pin_ref(*r.pin);
  auto pin = c.api.find(ref);
  if (!pin || pin->name != ref) return {S::Missing, "branch " + ref + " missing"};
  if (or_none(pin->parent_lsn) != s.lsn) return {S::Drifted, "parent_lsn " + or_none(pin->parent_lsn) + " != " + s.lsn};
  if (auto tl = c.api.find(s.timeline_branch()); tl && or_none(pin->parent_id) != tl->id)
    return {S::Drifted, "pin hangs off " + or_none(pin->parent_id) + ", not " + s.timeline_branch()};
  if (pin->last_reset_at) return {S::Drifted, "branch was reset"};
  for (const auto& e : c.api.endpoints_of(pin->id))
    if (e.type == "read_write") return {S::Drifted, "pin branch has a read-write endpoint"};
  return {S::Ok, ""};
}

sdk::Pin NeonBackend::pin(sdk::Call&, const sdk::PinRequest& r) {
  Ctx c(r.locator, api_config());
  StateView s = parse_state(r.state);
  std::string ref = kPinPrefix + r.pin_id;
  Branch parent = c.api.require(s.timeline_branch());
  if (auto existing = c.api.find(ref); existing && existing->name == ref) {
    if (or_none(existing->parent_id) != parent.id || or_none(existing->parent_lsn) != s.lsn)
      throw BackendError("pin " + ref + " exists but hangs off " + or_none(existing->parent_id) + "@" +
                         or_none(existing->parent_lsn) + ", not " + s.timeline_branch() + "@" + s.lsn);
    return sdk::Pin{r.pin_id, ref, false};
  }
  c.api.create_branch(Json{{"name", ref}, {"parent_id", parent.id}, {"parent_lsn", s.lsn}, {"protected", protected_pins()}},
                      true);
  return sdk::Pin{r.pin_id, ref, true};
}

void NeonBackend::unpin(sdk::Call&, const sdk::UnpinRequest& r) {
  Ctx c(r.locator, api_config());
  std::string ref = pin_ref(r.pin);
  auto b = c.api.find(ref);
  if (!b || b->name != ref) return;
  if (b->is_protected) c.api.patch_branch(b->id, Json{{"protected", false}});
  c.api.delete_branch(b->id);
  // Deletion is asynchronous on Neon: the status code is not trusted, the listing is.
  if (auto still = c.api.find(ref); still && still->name == ref) throw BackendError("pin " + ref + " was not deleted");
}

std::vector<std::string> NeonBackend::list_pins(sdk::Call&, const sdk::LocatorRequest& r) {
  Ctx c(r.locator, api_config());
  std::vector<std::string> out;
  for (const auto& b : c.api.branches())
    if (starts_with(b.name, kPinPrefix) && !starts_with(b.name, kWorkingRefPrefix))
      out.push_back(b.name.substr(std::string(kPinPrefix).size()));
  std::sort(out.begin(), out.end());
  return out;
}

sdk::Pin NeonBackend::rename_pin(sdk::Call&, const sdk::RenamePinRequest& r) {
  Ctx c(r.locator, api_config());
  std::string old_ref = pin_ref(r.old), new_ref = kPinPrefix + r.new_id;
  auto old = c.api.find(old_ref);
  bool old_exists = old && old->name == old_ref;
  auto target = c.api.find(new_ref);
  if (!target || target->name != new_ref) {
    // Renamed in place: a pin may have children, so pin-then-unpin could not release it.
    if (!old_exists) throw BackendError("pin " + old_ref + " is gone; cannot rename it to " + new_ref);
    c.api.patch_branch(old->id, Json{{"name", new_ref}});
  } else if (old_exists) {
    c.api.delete_branch(old->id);
  }
  return sdk::Pin{r.new_id, new_ref, true};
}

// ---- forks and working branches ---------------------------------------------------------------

std::string NeonBackend::fork(sdk::Call&, const sdk::ForkRequest& r) {
  Ctx c(r.locator, api_config());
  auto existing = c.api.find(r.name);
  if (existing && existing->name != r.name) existing.reset();  // matched an id, not a name
  if (r.expected.kind == sdk::Expected::Kind::Absent && existing)
    throw sdk::RefMoved("neon branch " + r.name + " already exists", r.name, Json::object(),
                        sdk::content_state(read_state(c.api, c.t, *existing), kVolatile));
  if (r.expected.kind == sdk::Expected::Kind::At) {
    if (!existing) throw sdk::RefMoved("neon branch " + r.name + " does not exist", r.name, r.expected.state, nullptr);
    Json actual = sdk::content_state(read_state(c.api, c.t, *existing), kVolatile);
    if (actual != sdk::content_state(r.expected.state, kVolatile))
      throw sdk::RefMoved("neon branch " + r.name + " moved", r.name, r.expected.state, actual);
  }
  Branch parent;
  std::optional<std::string> lsn;
  switch (r.source.kind) {
    case sdk::Source::Kind::Pin: parent = c.api.require(pin_ref(r.source.pin)); break;
    case sdk::Source::Kind::State: {
      StateView s = parse_state(r.source.state);
      parent = c.api.require(s.timeline_branch());
      lsn = s.lsn;
      break;
    }
    case sdk::Source::Kind::Ref: parent = c.api.require(r.source.ref); break;
    case sdk::Source::Kind::Base: parent = c.api.require(c.t.branch); break;
  }
  std::string name = r.name;
  if (existing) {
    if (c.api.children_of(existing->id).empty()) {
      // Always restored: parent_id/parent_lsn say where a branch was made, not where its head is.
      c.api.restore_branch(existing->id, parent.id, lsn);
      return name;
    }
    // Pins hang off it; leave them their parent and work on a sibling.
    std::set<std::string> taken;
    for (const auto& b : c.api.branches()) taken.insert(b.name);
    name = sibling_name(r.name, taken);
  }
  Json branch{{"name", name}, {"parent_id", parent.id}};
  if (lsn) branch["parent_lsn"] = *lsn;
  c.api.create_branch(branch, false);
  return name;
}

void NeonBackend::delete_working_ref(sdk::Call&, const sdk::RefRequest& r) {
  Ctx c(r.locator, api_config());
  if (r.ref == c.t.branch) return;  // never the source branch
  auto b = c.api.find(r.ref);
  if (!b || b->name != r.ref) return;
  c.api.delete_branch(b->id);
  if (auto still = c.api.find(r.ref); still && still->name == r.ref)
    throw BackendError("branch " + r.ref + " was not deleted");
}

std::vector<std::string> NeonBackend::list_working_refs(sdk::Call&, const sdk::LocatorRequest& r) {
  Ctx c(r.locator, api_config());
  std::vector<std::string> out;
  for (const auto& b : c.api.branches())
    if (starts_with(b.name, kWorkingRefPrefix)) out.push_back(b.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> NeonBackend::working_ref_blockers(sdk::Call&, const sdk::RefRequest& r) {
  Ctx c(r.locator, api_config());
  auto b = c.api.find(r.ref);
  if (!b) return std::nullopt;
  return blockers_text(c.api.children_of(b->id));
}

std::string NeonBackend::rename_working_ref(sdk::Call&, const sdk::RenameRefRequest& r) {
  Ctx c(r.locator, api_config());
  c.api.patch_branch(c.api.require(r.old_ref).id, Json{{"name", r.new_ref}});
  return r.new_ref;
}

// ---- open -----------------------------------------------------------------------------------

Json NeonBackend::open(sdk::Call&, const sdk::OpenRequest& r) {
  Ctx c(r.locator, api_config());
  switch (r.target.kind) {
    case sdk::Source::Kind::Pin: {
      std::string ref = pin_ref(r.target.pin);
      Branch b = c.api.require(ref);
      return handle(ref, true, ref, uri_for(c.api, c.t, b, "read_only"), r.with_password);
    }
    case sdk::Source::Kind::State: {
      // Time travel: vanilla PostgreSQL refuses this startup option; Neon computes read it.
      StateView s = parse_state(r.target.state);
      Branch b = c.api.require(s.timeline_branch());
      // s.lsn is X/X hex (parse_state checked it), so it cannot add parameters to the URI.
      std::string uri = add_query(uri_for(c.api, c.t, b, "read_only"), "options=neon_lsn:" + s.lsn);
      return handle(b.name, true, b.name, uri, r.with_password);
    }
    case sdk::Source::Kind::Ref:
    case sdk::Source::Kind::Base: {
      std::string name = r.target.kind == sdk::Source::Kind::Ref ? r.target.ref : c.t.branch;
      Branch b = c.api.require(name);
      return handle(name, r.read_only, name, uri_for(c.api, c.t, b, "read_write"), r.with_password);
    }
  }
  throw BackendError("neon: unknown open target");
}

}  // namespace tether::neon
