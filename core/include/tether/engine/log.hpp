// tether/engine/log.hpp: `tether log` (docs/cli.md#log): an object's native history, as its
// backend tells it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/sdk/types.hpp"

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct LogResult {
  std::string key;                         // the object whose history this is
  std::vector<sdk::HistoryEntry> entries;  // newest first
  Json to_json() const;                    // `tether log --json` (docs/cli.md#log): the entries as an array
};

// The history of `key` from `ref` (default: this checkout's working ref of it, else the
// backend's head), newest first, at most `limit` entries. A backend without HISTORY is refused.
LogResult log(Repo& repo, const std::string& key, const std::optional<std::string>& ref, int limit);
// The history of a store that is not registered (`tether log LOCATOR --kind K`): its local
// paths made absolute against `cwd` and the locator checked by the backend, as `add` does;
// from `ref` (default: the backend's head). Nothing is written.
LogResult log_store(Repo& repo, const std::string& kind, const Json& locator, const std::filesystem::path& cwd,
                    const std::optional<std::string>& ref, int limit);

}  // namespace tether::engine
