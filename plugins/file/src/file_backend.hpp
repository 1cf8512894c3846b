// file_backend: the `file` backend (docs/backends.md#file): local files and directories as
// content-hash states, listings and diffs of directory states, verify by re-fingerprinting,
// and CREATE for a local directory with its `.tether-owner` marker. Object-store URLs are
// refused for now. Every operation may run on several threads at once.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "hash_cache.hpp"
#include "listing.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::file {

struct FileBackendOptions {
  int64_t racy_window_ns = kRacyWindowNs;  // tests shrink it to see hits on fresh files
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

 private:
  sdk::State fingerprint_locator(const sdk::Locator& locator);
  sdk::State fingerprint_path(const std::string& path);
  sdk::State fingerprint_dir(const std::string& root);
  std::optional<bool> only_marker_left(const std::string& path) const;
  void remember(const std::string& digest, std::shared_ptr<const Rows> rows);
  std::shared_ptr<const Rows> recall(const std::string& digest);

  HashCache cache_;
  // The rows of the last directory states fingerprinted, by digest: listing() at commit
  // renders them without walking again.
  static constexpr std::size_t kListingCache = 16;
  std::mutex listings_mu_;
  std::list<std::pair<std::string, std::shared_ptr<const Rows>>> listings_;
};

}  // namespace tether::file
