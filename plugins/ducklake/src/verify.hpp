// verify: is a recorded state still addressable (docs/backends.md#ducklake)? A snapshot stays
// addressable exactly while its ducklake_snapshot row exists with the recorded time; `deep`
// also checks that the data files visible at it are still there: in a local data directory
// that exists, by stat; under an s3:// (or gs://) data path, by one listing of its prefix,
// comparing sizes with the catalog's (the reference's deep check reads no data files at all).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "lake.hpp"
#include "tether/sdk/types.hpp"
#include "tether/support/objstore.hpp"

namespace tether::ducklake {

// Opens the object store that holds a data path, with the object's credentials.
using StoreOpener = std::function<std::unique_ptr<support::objstore::Store>(const support::objstore::Location&)>;

// `data_path` overrides the catalog's own (the locator's `data_path`); empty: the catalog's.
// Without `open_store`, data files in object stores are not checked.
sdk::VerifyReport verify_snapshot(Lake& lake, int64_t id, std::optional<int64_t> recorded_time_us, bool deep,
                                  const std::string& data_path, const StoreOpener& open_store = {});

// Why snapshot `id` cannot be found: expired by retention, or the catalog was recreated.
std::string missing_snapshot_message(Lake& lake, int64_t id);

}  // namespace tether::ducklake
