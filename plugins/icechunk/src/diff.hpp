// diff: what changed between two snapshots of one repository, the way Icechunk's own
// Repository.diff computes it (docs/backends.md#icechunk): from the transaction logs of the
// snapshots between them, translated to paths through the nodes of both ends. Metadata only:
// no chunk is read. And the existence check of a snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "repository.hpp"

namespace tether::icechunk {

struct SnapshotDiff {
  std::set<std::string> new_groups, new_arrays, deleted_groups, deleted_arrays, updated_groups, updated_arrays;
  std::map<std::string, std::set<std::vector<uint32_t>>> updated_chunks;  // path -> chunk coordinates
  std::vector<std::pair<std::string, std::string>> moved;                 // (from, to) paths
  // Some transaction log between the two was gone (expired or collected): the result is
  // what the remaining logs say, as Icechunk's own "degraded but correct" diff.
  std::vector<std::string> missing_logs;
};

// `from` is not a strict ancestor of `to` (Icechunk's BadSnapshotChainForDiff).
class BadSnapshotChain : public FormatError {
 public:
  using FormatError::FormatError;
};

// `progress(done, total)`: transaction logs read of those to read, after each local log or
// each window of remote ones (an S3 diff across hundreds of commits takes seconds); what it
// throws ends the diff.
using LogProgress = std::function<void(std::size_t done, std::size_t total)>;
SnapshotDiff diff_snapshots(const Repository& repo, const std::string& from, const std::string& to,
                            const LogProgress& progress = {});

struct SnapshotCheck {
  bool ok = true;
  std::string problem;  // what is missing or broken, naming the file
};
// The snapshot file exists, decodes, verifies and names itself; every manifest it lists
// exists with its recorded size, and every array's manifest is in that list. `deep` also
// opens each manifest and checks that it decodes and names itself.
SnapshotCheck check_snapshot(const Repository& repo, const std::string& id, bool deep);

}  // namespace tether::icechunk
