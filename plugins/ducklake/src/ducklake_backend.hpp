// ducklake_backend: the `ducklake` backend (docs/backends.md#ducklake): a DuckLake
// lakehouse as an Addressable object, read straight from its metadata catalog (SQLite or
// Postgres, no DuckDB). State {snapshot_id, snapshot_time_us}; snapshots are catalog-wide, so
// a locator's `table` only scopes the handle. No pins or forks: DuckLake has no tags, and a
// recorded snapshot stays reachable only while retention keeps it. Never writes the catalog.
#pragma once

#include <string>
#include <vector>

#include "locator.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::ducklake {

class DuckLakeBackend : public sdk::Backend<DuckLakeBackend> {
 public:
  explicit DuckLakeBackend(const sdk::Json& config);

  sdk::Description describe(sdk::Call&);
  sdk::Json identity(sdk::Call&, const sdk::LocatorRequest&);
  void validate_locator(sdk::Call&, const sdk::LocatorRequest&);
  bool state_addressable(sdk::Call&, const sdk::StateRequest&);
  sdk::State fingerprint(sdk::Call&, const sdk::FingerprintRequest&);
  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest&);
  sdk::Json open(sdk::Call&, const sdk::OpenRequest&);
  sdk::ObjectDiff diff(sdk::Call&, const sdk::DiffRequest&);
  std::vector<sdk::HistoryEntry> history(sdk::Call&, const sdk::HistoryRequest&);

 private:
  // parse_locator, with the object's secrets.toml options attached.
  Target target_of(const sdk::Locator& locator) const;
};

}  // namespace tether::ducklake
