// diff: what changed between two snapshots of a DuckLake catalog, per table, from the
// metadata alone (docs/backends.md#ducklake): the change tokens of the snapshots in between,
// worded as the reference words them, with row counts (row_counts.hpp) where they are exact.
#pragma once

#include "lake.hpp"
#include "tether/sdk/types.hpp"

namespace tether::ducklake {

// The diff from snapshot `a` to snapshot `b` (their recorded times tell a recreated catalog).
sdk::ObjectDiff diff(Lake& lake, const Snapshot& a, const Snapshot& b);

}  // namespace tether::ducklake
