#include "remote.hpp"

#include <algorithm>

namespace tether::file {

RemoteTarget parse_remote(const std::string& uri) {
  std::optional<objstore::Location> loc;
  try {
    loc = objstore::parse_location(uri);
  } catch (const objstore::StoreError& e) {
    throw sdk::BackendError(e.what());  // "cannot use object-store URL '<uri>': <why>"
  }
  if (!loc) throw sdk::BackendError("cannot use " + uri + " as a file URI: it is not an object-store URL");
  return RemoteTarget{uri, std::move(*loc)};
}

std::optional<std::string> locator_region(const sdk::Locator& locator) {
  auto it = locator.find("region");
  // Unset, as the reference reads it: absent, null or "".
  if (it == locator.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty()))
    return std::nullopt;
  bool valid = it->is_string() && !it->get_ref<const std::string&>().empty() &&
               std::all_of(it->get_ref<const std::string&>().begin(), it->get_ref<const std::string&>().end(),
                           [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
  if (!valid)
    throw sdk::BackendError("file locator 'region' must be a region name (lowercase letters, digits, '-'), not " +
                            it->dump().substr(0, 80));
  return it->get<std::string>();
}

objstore::Options resolve_options(const sdk::Json& defaults, const sdk::Json& rule, const sdk::Locator& locator,
                                  const std::string& uri) {
  objstore::Options out;
  try {
    // Each read on its own, so an error names where the option is: the kind's settings, or
    // the object's rule; the rule's options over the kind's.
    out = objstore::options_from_settings(defaults, "[backends.file]");
    out.merge(objstore::options_from_settings(rule, "the secrets for " + uri));
  } catch (const objstore::StoreError& e) {
    throw RemoteError(uri + ": " + e.what() + "; fix it in .tether/secrets.toml", objstore::ErrorKind::Config);
  }
  try {
    if (auto region = locator_region(locator)) out.values["region"] = *region;
  } catch (const sdk::BackendError& e) {
    throw RemoteError(e.what(), objstore::ErrorKind::Config);
  }
  return out;
}

RemoteError remote_error(const objstore::StoreError& e, const RemoteTarget& target) {
  std::string msg = objstore::explain(e, target.uri);
  if (e.kind() == objstore::ErrorKind::Config)
    msg += "; fix the store options in .tether/secrets.toml [uris.\"" + target.location.root() + "/\"]";
  // Name the object first, whatever request failed.
  if (msg.find(target.uri) == std::string::npos) msg = target.uri + ": " + msg;
  return RemoteError(msg, e.kind());
}

std::shared_ptr<objstore::Store> StoreCache::get(const objstore::Location& location, const objstore::Options& options) {
  // The key holds option values (secrets among them): it lives in this process only.
  std::string key = location.root();
  key += '\n';
  key += location.account;
  for (const auto& [k, v] : options.values) {
    key += '\n';
    key += k;
    key += '=';
    key += v;
  }
  std::lock_guard lock(mu_);
  auto it = stores_.find(key);
  if (it != stores_.end()) return it->second;
  // A store names its bucket: open it at the bucket's root, whatever key the caller reads.
  objstore::Location root = location;
  root.key.clear();
  std::shared_ptr<objstore::Store> store =
      env_ ? objstore::open(root, options, *env_) : objstore::open(root, options);
  // Changed options open a new store beside the old ones; the cache never grows past a few
  // dozen (a dataset names few stores, and secrets change rarely).
  if (stores_.size() >= kMaxStores) stores_.clear();
  stores_.emplace(std::move(key), store);
  return store;
}

std::size_t StoreCache::size() const {
  std::lock_guard lock(mu_);
  return stores_.size();
}

}  // namespace tether::file
