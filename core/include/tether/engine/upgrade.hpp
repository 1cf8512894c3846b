// tether/engine/upgrade.hpp: `tether upgrade` (docs/cli.md#upgrade): bring a dataset of an
// older format to version 5.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tether/engine/plan.hpp"

namespace tether::engine {

class Repo;

struct UpgradeOptions {
  bool dry_run = false;
  bool ignore_immutable = false;  // jj's immutable commits; git has none: accepted, changes nothing
  std::optional<Plan> saved;
};
struct UpgradeResult {
  Plan plan;
  bool applied = false;
  int from_version = 5, to_version = 5;
  std::vector<std::pair<std::string, std::string>> renamed_pins, renamed_branches;  // old ref -> new ref
  std::size_t rewritten_commits = 0;
  std::vector<std::string> rewritten_manifests;  // keys
  std::vector<std::string> refingerprinted;      // keys whose older state shape was recorded again
  std::map<std::string, std::size_t> rewritten_indexes;  // index file -> records given this version's identity
  std::optional<std::string> dataset_id;         // given by this upgrade
  std::optional<std::string> trunk;              // adopted by this upgrade
  std::optional<std::string> vcs_commit;
  std::map<std::string, std::string> failed;  // what -> why: the upgrade stopped there
  Json to_json() const;                       // `tether upgrade --json` (docs/cli.md)
};

// `repo` must be opened with Services::allow_outdated.
UpgradeResult upgrade(Repo& repo, const UpgradeOptions& options);

}  // namespace tether::engine
