// verify: is a recorded state still addressable (docs/backends.md#ducklake)? A snapshot stays
// addressable exactly while its ducklake_snapshot row exists with the recorded time; `deep`
// also checks that the data files visible at it are still there, when the data path is a
// local directory that exists (the reference's deep check reads no data files at all).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lake.hpp"
#include "tether/sdk/types.hpp"

namespace tether::ducklake {

// `data_path` overrides the catalog's own (the locator's `data_path`); empty: the catalog's.
sdk::VerifyReport verify_snapshot(Lake& lake, int64_t id, std::optional<int64_t> recorded_time_us, bool deep,
                                  const std::string& data_path);

// Why snapshot `id` cannot be found: expired by retention, or the catalog was recreated.
std::string missing_snapshot_message(Lake& lake, int64_t id);

}  // namespace tether::ducklake
