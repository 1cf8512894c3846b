// file_backend: the `file` backend (docs/backends.md#file): local files and directories as
// content-hash states, objects and prefixes of object stores (s3://, gs://, az://, http(s)://)
// as ETag states, listings and diffs of directory and prefix states, verify by
// re-fingerprinting (or by the recorded version of a versioned object), and CREATE for a
// local directory with its `.tether-owner` marker. Every operation may run on several
// threads at once.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include "hash_cache.hpp"
#include "listing.hpp"
#include "remote.hpp"
#include "walk.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::file {

struct FileBackendOptions {
  int64_t racy_window_ns = kRacyWindowNs;  // tests shrink it to see hits on fresh files
  // Where object stores find ambient credentials (AWS_* variables, ~/.aws); nullopt = this
  // process's environment. Tests substitute their own.
  std::optional<objstore::Environment> environment;
};

class FileBackend : public sdk::Backend<FileBackend> {
 public:
  using Options = FileBackendOptions;

  explicit FileBackend(const sdk::Json& config, Options options = {});

  sdk::Description describe(sdk::Call&);
  void configure(sdk::Call&, const sdk::ConfigureRequest&);
  sdk::Json identity(sdk::Call&, const sdk::LocatorRequest&);
  void validate_locator(sdk::Call&, const sdk::LocatorRequest&);
  uint32_t effective_capabilities(sdk::Call&, const sdk::PolicyRequest&);
  std::optional<std::string> default_key(sdk::Call&, const sdk::LocatorRequest&);
  bool state_addressable(sdk::Call&, const sdk::StateRequest&);
  sdk::State fingerprint(sdk::Call&, const sdk::FingerprintRequest&);
  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest&);
  sdk::Json open(sdk::Call&, const sdk::OpenRequest&);
  std::optional<std::string> listing(sdk::Call&, const sdk::StateRequest&);
  sdk::ObjectDiff diff(sdk::Call&, const sdk::DiffRequest&);
  sdk::State create(sdk::Call&, const sdk::CreateRequest&);
  std::optional<std::string> owner(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<bool> is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest&);
  void delete_store(sdk::Call&, const sdk::LocatorRequest&);

  // Files whose content was read since construction.
  uint64_t files_hashed() const { return cache_.files_hashed(); }
  // Object-store clients opened since construction and still cached.
  std::size_t stores_open() const { return stores_.size(); }

 private:
  sdk::State fingerprint_locator(const sdk::Locator& locator, const sdk::Call* call = nullptr);
  sdk::State fingerprint_remote(const sdk::Locator& locator, const RemoteTarget& target, const sdk::Call* call);
  // The store `target` lives in, opened with the object's options (cached).
  std::shared_ptr<objstore::Store> store_for(const sdk::Locator& locator, const RemoteTarget& target);
  sdk::VerifyReport verify_version(const sdk::Locator& locator, const sdk::State& state);
  // `call` (may be null) hears how far the walk and the hashing got.
  sdk::State fingerprint_path(const std::string& path, const sdk::Call* call = nullptr);
  sdk::State fingerprint_dir(const std::string& root, const sdk::Call* call);
  static HashCache::FillProgress hash_progress(const sdk::Call* call);
  std::optional<bool> only_marker_left(const std::string& path) const;
  // A listing kept for listing(): a prefix's rows, or a directory's tree as walked.
  using Listed = std::variant<std::shared_ptr<const Rows>, std::shared_ptr<const WalkTree>>;
  void remember(const std::string& digest, Listed rows);
  Listed recall(const std::string& digest);

  HashCache cache_;
  StoreCache stores_;
  // The rows of the last directory states fingerprinted, by digest: listing() at commit
  // renders them without walking again.
  static constexpr std::size_t kListingCache = 16;
  std::mutex listings_mu_;
  std::list<std::pair<std::string, Listed>> listings_;
};

}  // namespace tether::file
