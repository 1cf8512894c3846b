#include "model.hpp"

#include <algorithm>
#include <cctype>

#include "tether/sdk/error.hpp"
#include "tether/support/redact.hpp"

namespace tether::neon {

using sdk::BackendError;
using sdk::Json;

namespace {

std::optional<std::string> string_field(const sdk::Locator& l, const char* key) {
  auto it = l.find(key);
  if (it == l.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw BackendError(std::string("neon locator '") + key + "' must be a string");
  std::string v = it->get<std::string>();
  if (v.empty()) return std::nullopt;
  return v;
}

}  // namespace

Target parse_target(const sdk::Locator& locator) {
  if (!locator.is_object()) throw BackendError("neon locator must be an object");
  if (string_field(locator, "at"))
    throw BackendError("neon does not read a branch at an LSN (`at`): an LSN is meaningful only inside the project's "
                       "history window; pin from a branch instead (`--branch`)");
  Target t;
  std::vector<std::pair<const char*, const char*>> missing;
  auto need = [&](const char* key, const char* flag, std::string& into) {
    if (auto v = string_field(locator, key)) into = *v;
    else missing.emplace_back(key, flag);
  };
  need("project_id", "--project-id", t.project_id);
  need("database", "--database", t.database);
  need("role", "--role", t.role);
  if (!missing.empty()) {
    std::string names, flags;
    for (const auto& [k, f] : missing) {
      names += (names.empty() ? "'" : ", '") + std::string(k) + "'";
      flags += (flags.empty() ? "`" : ", `") + std::string(f) + "`";
    }
    // Neon builds no connection URI without a database and a role.
    throw BackendError("neon locator needs " + names + " (" + flags + ")");
  }
  if (auto b = string_field(locator, "branch")) t.branch = *b;
  return t;
}

Json identity_of(const Target& t) { return Json{{"project_id", t.project_id}, {"branch", t.branch}}; }

std::string scope_of(const Target& t) { return "neon:" + t.project_id; }

bool is_lsn(std::string_view s) {
  auto slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  auto hex = [](std::string_view part) {
    return !part.empty() && part.size() <= 8 &&
           std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  };
  return hex(s.substr(0, slash)) && hex(s.substr(slash + 1));
}

StateView parse_state(const sdk::State& state) {
  StateView v;
  auto get = [&](const char* key) -> std::optional<std::string> {
    auto it = state.find(key);
    if (it == state.end() || it->is_null()) return std::nullopt;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_integer()) return std::to_string(it->get<long long>());
    throw BackendError(std::string("neon state '") + key + "' must be a string");
  };
  if (!state.is_object()) throw BackendError("neon state must be an object");
  auto lsn = get("lsn");
  auto branch = get("branch");
  if (!lsn || !branch) throw BackendError("not a neon state (it needs 'lsn' and 'branch'): " + state.dump());
  // The LSN goes into API requests and the URI `open` prints: PostgreSQL's `X/X` (hex, up to
  // 8 digits each side) and nothing else, whatever a committed manifest says.
  if (!is_lsn(*lsn))
    throw BackendError("neon state 'lsn' " + Json(*lsn).dump() + " is not a PostgreSQL LSN (X/X in hex); the manifest "
                       "was edited by hand or comes from a hostile clone -- restore it from history");
  v.lsn = *lsn;
  v.branch = *branch;
  v.commit_xid = get("commit_xid").value_or("");
  v.timeline = get("timeline");
  return v;
}

sdk::State make_state(const std::string& lsn, const std::string& commit_xid, const std::string& lineage,
                      const std::string& read_branch) {
  Json s{{"lsn", lsn}, {"commit_xid", commit_xid}, {"branch", lineage}};
  if (read_branch != lineage) s["timeline"] = read_branch;
  return s;
}

std::string lineage_of(const Branch& branch, const std::vector<Branch>& all, const std::string& source) {
  std::set<std::string> seen;
  const Branch* b = &branch;
  while (b && seen.insert(b->id).second) {
    if (b->name == source) return source;
    if (!b->parent_id) break;
    const Branch* parent = nullptr;
    for (const auto& c : all)
      if (c.id == *b->parent_id) parent = &c;
    b = parent;
  }
  return branch.name;
}

std::string sibling_name(const std::string& name, const std::set<std::string>& taken) {
  for (unsigned n = 2;; ++n) {
    std::string candidate = name + "." + std::to_string(n);
    if (!taken.count(candidate)) return candidate;
  }
}

std::optional<std::string> blockers_text(std::vector<std::string> children) {
  if (children.empty()) return std::nullopt;
  std::sort(children.begin(), children.end());
  std::string list;
  for (std::size_t i = 0; i < children.size() && i < 3; ++i) list += (i ? ", " : "") + children[i];
  if (children.size() > 3) list += ", ...";
  return std::to_string(children.size()) + " branch(es) hang off it (" + list +
         "); Neon deletes a branch only once its children are gone -- release those pins first";
}

bool RetryPolicy::retryable(long status) { return status == 423 || status == 429 || (status >= 500 && status <= 599); }

std::optional<double> RetryPolicy::delay(long status, std::size_t attempt,
                                         const std::optional<std::string>& retry_after) const {
  if (!retryable(status) || attempt >= delays.size()) return std::nullopt;
  if (retry_after && !retry_after->empty() && retry_after->size() < 10 &&
      std::all_of(retry_after->begin(), retry_after->end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::min(static_cast<double>(std::stol(*retry_after)), retry_after_cap);
  return delays[attempt];
}

namespace {

// [scheme://][userinfo@]host... : the span of the userinfo's password, if any.
struct Userinfo {
  std::size_t user_begin = std::string::npos, colon = std::string::npos, at = std::string::npos;
};
Userinfo find_userinfo(const std::string& uri) {
  Userinfo u;
  auto scheme = uri.find("://");
  if (scheme == std::string::npos) return u;
  std::size_t begin = scheme + 3;
  std::size_t end = uri.find_first_of("/?#", begin);
  if (end == std::string::npos) end = uri.size();
  // The last '@' of the authority ends the userinfo (a raw '@' may sit in a password).
  auto at = uri.rfind('@', end == 0 ? 0 : end - 1);
  if (at == std::string::npos || at < begin) return u;
  u.user_begin = begin;
  u.at = at;
  auto colon = uri.find(':', begin);
  if (colon != std::string::npos && colon < at) u.colon = colon;
  return u;
}

}  // namespace

bool has_password(const std::string& uri) {
  Userinfo u = find_userinfo(uri);
  return u.colon != std::string::npos && u.colon + 1 < u.at;
}

std::string redact_password(const std::string& uri) { return support::redact_secrets(uri); }

std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string with_password(const std::string& uri, const std::string& password) {
  Userinfo u = find_userinfo(uri);
  if (u.at == std::string::npos) return uri;  // no user to attach it to
  std::size_t user_end = u.colon != std::string::npos ? u.colon : u.at;
  return uri.substr(0, user_end) + ":" + url_encode(password) + uri.substr(u.at);
}

std::string add_query(const std::string& uri, const std::string& param) {
  auto hash = uri.find('#');
  std::string base = hash == std::string::npos ? uri : uri.substr(0, hash);
  std::string frag = hash == std::string::npos ? "" : uri.substr(hash);
  return base + (base.find('?') != std::string::npos ? "&" : "?") + param + frag;
}

}  // namespace tether::neon
