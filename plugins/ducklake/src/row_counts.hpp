// row_counts: rows inserted into and deleted from a table between two snapshots, from the
// catalog's metadata alone (docs/backends.md#ducklake): data files, delete files (cumulative
// before 0.4, partial since), whole-file deletes, inlined rows and inlined deletions, with
// compactions told apart by the change tokens. Where a file holds rows of several snapshots
// and straddles an end of the range, the split is only in the Parquet file: ambiguous.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "lake.hpp"

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

}  // namespace tether::ducklake
