// remote: what the file backend needs to read an object store (docs/backends.md#file): the
// location an object-store URL names (a single object or a prefix), the store options of one
// object (the committed safe keys, the secrets, the locator's region), one cached
// objstore::Store per (store root, options), and the one-line errors a store failure becomes.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "tether/sdk/error.hpp"
#include "tether/sdk/types.hpp"
#include "tether/support/objstore.hpp"

namespace tether::file {

namespace objstore = support::objstore;

// An object-store URL as a file locator names it.
struct RemoteTarget {
  std::string uri;  // as written: how messages name the object
  objstore::Location location;
  // A single object (key non-empty, not ending in '/'); otherwise a prefix ("" = the whole
  // bucket).
  bool single() const { return !location.key.empty() && location.key.back() != '/'; }
};

// Parses `uri` (already known to use a remote scheme). Throws sdk::BackendError naming it for
// an object-store URL that cannot be used (objstore's StoreError{Config}).
RemoteTarget parse_remote(const std::string& uri);

// The locator's `region`, checked ([a-z0-9-]+); nullopt when it sets none. A locator is
// committed, so its value may be hostile: anything else is a BackendError.
std::optional<std::string> locator_region(const sdk::Locator& locator);

// A failure to configure or talk to the store, already worded for the user (one line naming
// the object and the way out). It says nothing about the object: verify reports it as an
// error, not as a missing object.
struct RemoteError : sdk::BackendError {
  RemoteError(const std::string& m, objstore::ErrorKind kind) : sdk::BackendError(m), kind(kind) {}
  objstore::ErrorKind kind;
};

// The store options of one object: objstore::options_from_settings of the kind defaults,
// then of the object's own secrets rule (sdk::Backend::secret_rule_for) over them, then the
// locator's region. Throws RemoteError (kind Config) naming
// `uri` for an unknown option, a bad value or a bad region.
objstore::Options resolve_options(const sdk::Json& defaults, const sdk::Json& rule, const sdk::Locator& locator,
                                  const std::string& uri);

// The user-facing error for `e` on `target`: objstore::explain's way out (the secrets rule
// and AWS_* variables for Auth, the endpoint settings for Unreachable and NoBucket), naming
// the object's URI. Never a credential: StoreError messages carry none.
RemoteError remote_error(const objstore::StoreError& e, const RemoteTarget& target);

// One Store per (store root, options), shared by every object and thread; a changed option
// set opens a new Store. A bounded cache: a few dozen stores at most.
class StoreCache {
 public:
  explicit StoreCache(std::optional<objstore::Environment> env = std::nullopt) : env_(std::move(env)) {}
  // Throws objstore::StoreError{Config} for a bad option value.
  std::shared_ptr<objstore::Store> get(const objstore::Location& location, const objstore::Options& options);
  std::size_t size() const;

 private:
  static constexpr std::size_t kMaxStores = 32;
  std::optional<objstore::Environment> env_;  // tests substitute their own; else the process's
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<objstore::Store>> stores_;
};

}  // namespace tether::file
