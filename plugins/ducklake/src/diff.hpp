// diff: what changed between two snapshots of a DuckLake catalog, per table, from the
// metadata alone (spec/ducklake.md §7.4): the change tokens of the snapshots in between,
// and row counts from data files, delete files and inlined rows.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "lake.hpp"
#include "tether/sdk/types.hpp"

namespace tether::ducklake {

struct RowCounts {
  int64_t inserted = 0, deleted = 0;
  // Some file covers rows of several snapshots and straddles a range end: its split per
  // snapshot lives only inside the Parquet file, so the counts are not exact.
  bool ambiguous = false;
};

// Rows inserted into and deleted from each of `tables` over snapshots (lo, hi]; `range` is
// lake.range(lo, hi) (its change tokens tell compactions and drops apart).
std::map<int64_t, RowCounts> count_rows(Lake& lake, const std::vector<SnapshotChanges>& range, int64_t lo, int64_t hi,
                                        const std::set<int64_t>& tables);

// The diff from snapshot `a` to snapshot `b` (their recorded times tell a recreated catalog).
sdk::ObjectDiff diff(Lake& lake, const Snapshot& a, const Snapshot& b);

}  // namespace tether::ducklake
