// tether/engine/pull.hpp: `tether pull` (docs/cli.md): commit what a bookmark's branches hold
// now.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct PullResult {
  std::string bookmark;
  std::map<std::string, std::pair<Json, Json>> committed;  // key -> (from, to)
  std::vector<std::string> unchanged;
  std::map<std::string, std::string> skipped;
  std::optional<std::string> vcs_commit;
  std::map<std::string, std::optional<std::string>> pinned;  // key -> pin id
  Json to_json() const;  // `tether pull --json` (docs/cli.md)
};

PullResult pull(Repo& repo, const std::optional<std::string>& bookmark, const std::optional<std::string>& message,
                const ProgressFn& progress = {});

}  // namespace tether::engine
