// target: what a git locator names (docs/backends.md#git), checked before anything is opened.
// `path` (or the positional `uri`; `path` wins) is a local repository, absolute after `add`;
// `ref` (alias `branch`, from `add --branch`) the base ref, `at` a commit-ish to read
// instead, `remote` a remote configured in that repository, `allow_dirty` lets a dirty
// working tree be pinned.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "tether/sdk/types.hpp"

namespace tether::git {

struct Target {
  std::string path;  // absolute, symlinks resolved, no trailing slash
  std::optional<std::string> ref;
  std::optional<std::string> at;
  std::optional<std::string> remote;
  bool allow_dirty = false;

  // The ref fingerprint reads when there is no working ref: `at`, else `ref`, else HEAD.
  std::string read_ref() const { return at ? *at : ref ? *ref : std::string("HEAD"); }
};

// Throws sdk::BackendError for a missing or URL path, a relative path (add stores absolute
// ones, so the manifest was written by hand) and a path/ref/at/remote that starts with '-'.
Target parse_target(const sdk::Locator& locator);
// The same, with resolve_path's answers remembered in `resolved` (raw path -> resolved) for
// a caller that parses many locators naming few paths at one moment (verify_many).
Target parse_target(const sdk::Locator& locator, std::unordered_map<std::string, std::string>& resolved);

// Throws sdk::BackendError when `path` lies inside the dataset checkout `checkout` (empty:
// no checkout configured): its files came with the clone, and opening a repository reads its
// configuration.
void refuse_inside_checkout(const Target& t, const std::string& checkout);
// The same with the checkout already resolved (resolve_path; empty: none configured).
void refuse_inside_root(const Target& t, const std::string& root);

// The identity path: resolved like parse_target's, without its refusals.
std::string identity_path(const sdk::Locator& locator);

// `path` with symlinks resolved as far as it exists, lexically normalised, no trailing '/'.
std::string resolve_path(const std::string& path);

// A state's `sha` checked against ^[0-9a-f]{4,64}$; BackendError "not a git commit id".
std::string state_sha(const sdk::State& state);

}  // namespace tether::git
