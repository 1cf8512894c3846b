// icechunk_backend: the `icechunk` backend (docs/backends.md#icechunk): an Icechunk
// repository, in a local directory or under an object-store prefix (s3://, gs://), as a
// Forkable object, read and written natively (no Icechunk library exists for C or C++). State `snapshot_id`; a pin is the tag `tether.<pin_id>` (generation
// `tether.<pin_id>.2`, `.3`, ... when an earlier one was deleted, since Icechunk never
// reuses a tag name); a fork is a branch, moved compare-and-swap; promote fast-forwards (no
// MERGE: Icechunk has no three-way merge of snapshots tether could drive). On an object store
// the store options come from secrets_for() and the store's conditional writes make every ref
// change a compare-and-swap; one Store (its connections, its cache of snapshots) is kept per
// repository URI and options for the life of the plugin.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "repository.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::icechunk {

struct Target;

class IcechunkBackend : public sdk::Backend<IcechunkBackend> {
 public:
  explicit IcechunkBackend(const sdk::Json& config);

  sdk::Description describe(sdk::Call&);
  sdk::Json identity(sdk::Call&, const sdk::LocatorRequest&);
  void validate_locator(sdk::Call&, const sdk::LocatorRequest&);
  std::string base_branch(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<std::string> default_key(sdk::Call&, const sdk::LocatorRequest&);
  bool state_addressable(sdk::Call&, const sdk::StateRequest&);
  sdk::State fingerprint(sdk::Call&, const sdk::FingerprintRequest&);
  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest&);
  std::vector<sdk::VerifyOutcome> verify_many(sdk::Call&, const sdk::VerifyManyRequest&);
  sdk::Pin pin(sdk::Call&, const sdk::PinRequest&);
  void unpin(sdk::Call&, const sdk::UnpinRequest&);
  std::vector<std::string> list_pins(sdk::Call&, const sdk::LocatorRequest&);
  std::string fork(sdk::Call&, const sdk::ForkRequest&);
  void delete_working_ref(sdk::Call&, const sdk::RefRequest&);
  std::vector<std::string> list_working_refs(sdk::Call&, const sdk::LocatorRequest&);
  sdk::Json open(sdk::Call&, const sdk::OpenRequest&);
  sdk::ObjectDiff diff(sdk::Call&, const sdk::DiffRequest&);
  std::vector<sdk::HistoryEntry> history(sdk::Call&, const sdk::HistoryRequest&);
  sdk::State promote(sdk::Call&, const sdk::PromoteRequest&);
  std::optional<bool> ancestor_of(sdk::Call&, const sdk::AncestorRequest&);
  sdk::State create(sdk::Call&, const sdk::CreateRequest&);
  std::optional<std::string> owner(sdk::Call&, const sdk::LocatorRequest&);
  std::optional<bool> is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest&);
  void delete_store(sdk::Call&, const sdk::LocatorRequest&);

 private:
  // The locator parsed, with the storage it names.
  Target target(const sdk::Locator& locator);

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Storage>> stores_;  // uri + options -> storage
};

}  // namespace tether::icechunk
