// target: what a file locator names (docs/backends.md#file). `uri` (or its alias `path`) is a
// bare local path, a file:// URI, or an object-store URL; local paths are resolved the way
// the reference's local_path does (absolute: symlinks followed, `.`/`..`, double and trailing
// slashes removed; relative: normalised lexically).
#pragma once

#include <string>

#include "tether/sdk/types.hpp"

namespace tether::file {

struct Target {
  std::string raw;     // the locator's uri as written
  bool remote = false; // an object-store URL (s3, gs, az, http(s), ...)
  std::string scheme;  // lowercase; "" for a local path (bare or file://)
  bool file_uri = false;  // written as a file:// URI
  std::string path;    // local: the resolved path; remote: the object key (no leading '/')
};

// Throws sdk::BackendError: "file locator needs 'uri'", "unsupported file URI scheme: 'x'",
// or a file:// URI naming another host.
Target parse_target(const sdk::Locator& locator);

// parse_target, then refuses a remote URL for the store-lifecycle operation `op` (create,
// owner, is_ref_empty, delete_store): a remote prefix is managed by its bucket.
Target local_target(const sdk::Locator& locator, const char* op);

// Resolves a bare local path: realpath for an absolute one (non-strict: a missing tail is
// normalised lexically), lexical normalisation for a relative one; no trailing slash.
std::string resolve_local_path(const std::string& path);

// Throws the reference backend's BackendError when the locator carries a non-empty `at`.
void refuse_at(const sdk::Locator& locator);

}  // namespace tether::file
