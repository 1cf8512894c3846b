// model: the pure parts of the `neon` backend (docs/backends.md#neon): the locator and its
// identity, the state's fields, retry decisions for the HTTP API, password redaction in
// connection URIs and sibling branch names. No I/O here, so all of it is unit-tested.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tether/sdk/types.hpp"

namespace tether::neon {

inline constexpr const char* kPinPrefix = "tether.";
inline constexpr const char* kWorkingRefPrefix = "tether.ws.";

struct Target {
  std::string project_id, database, role;
  std::string branch = "main";  // the source branch
};

// Reads and checks a locator. BackendError listing every missing required field, and
// refusing `at` (an LSN is meaningful only inside the history window: pin from a branch).
Target parse_target(const sdk::Locator& locator);
// {project_id, branch}: a Neon branch at an LSN snapshots the whole project, so database and
// role only say how to connect.
sdk::Json identity_of(const Target& t);
// `neon:<project_id>`: branches and pins are project-wide.
std::string scope_of(const Target& t);

// The fields of a fingerprint this backend reads back.
struct StateView {
  std::string lsn, commit_xid, branch;
  std::optional<std::string> timeline;
  // The branch on which the LSN is meaningful: timeline, else branch.
  const std::string& timeline_branch() const { return timeline ? *timeline : branch; }
};
// PostgreSQL's LSN text: `X/X`, 1 to 8 hex digits each side.
bool is_lsn(std::string_view s);
// BackendError when `lsn` or `branch` is missing (not a neon state), or `lsn` is no LSN.
StateView parse_state(const sdk::State& state);
// `timeline` only when it differs from the lineage `branch`.
sdk::State make_state(const std::string& lsn, const std::string& commit_xid, const std::string& lineage,
                      const std::string& read_branch);

// One branch as the API lists it.
struct Branch {
  std::string id, name;
  std::optional<std::string> parent_id, parent_lsn, last_reset_at;
  bool is_protected = false;
};
// The lineage of `branch`: the source branch's name when the branch or any ancestor is named
// like it, else the branch's own name. Cycles in the parent links end the walk.
std::string lineage_of(const Branch& branch, const std::vector<Branch>& all, const std::string& source);
// `<name>.2`, `<name>.3`, ...: the first such name no branch has.
std::string sibling_name(const std::string& name, const std::set<std::string>& taken);
// "N branch(es) hang off it (a, b, c[, ...]); ..." or nullopt when there are none.
std::optional<std::string> blockers_text(std::vector<std::string> children);

// Retries of a Neon API call. A retryable status (423: another operation on the project
// is running, 429, 5xx) is retried after the next delay of the schedule; a Retry-After of
// digits only replaces it, capped. After the last delay the answer is returned as is.
struct RetryPolicy {
  std::vector<double> delays{0.5, 1, 2, 4, 8, 15, 30};  // seconds
  double retry_after_cap = 60;
  static bool retryable(long status);
  // The wait before attempt `attempt + 1` (attempt counts from 0), or nullopt: give up.
  std::optional<double> delay(long status, std::size_t attempt, const std::optional<std::string>& retry_after) const;
};

// The URI through support::redact_secrets: the userinfo password and credential query
// parameters become `****`.
std::string redact_password(const std::string& uri);
// Whether the URI's userinfo carries a password.
bool has_password(const std::string& uri);
// The URI with `password` put into its userinfo (percent-encoded).
std::string with_password(const std::string& uri, const std::string& password);
// Appends `key=value` as a query parameter (`&` when the URI already has a `?`).
std::string add_query(const std::string& uri, const std::string& param);
// Percent-encodes everything outside the unreserved set (for query values and userinfo).
std::string url_encode(const std::string& s);

}  // namespace tether::neon
