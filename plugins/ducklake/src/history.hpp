// history: snapshots newest first with their time and a one-line summary of their changes
// (docs/backends.md#ducklake), worded as the reference backend words them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lake.hpp"
#include "tether/sdk/types.hpp"

namespace tether::ducklake {

// The label of one token value: a table id becomes `schema.table` (its latest name), a
// schema or view id its name, a quoted name its plain form; anything else as written.
std::string value_label(const Change& change, const Names& names);

// `created: main.t; rows inserted: main.t` for the keys of one snapshot in the order of the
// extension's change map; labels sorted. Empty when the snapshot changed nothing shown.
std::string changes_message(const std::vector<Change>& changes, const Names& names);

// Snapshots with id <= upto (all when nullopt), newest first, at most `limit` (all if <= 0).
std::vector<sdk::HistoryEntry> history(Lake& lake, std::optional<int64_t> upto, int64_t limit);

}  // namespace tether::ducklake
