// tether/engine/objects.hpp: registering objects (docs/cli.md: add, remove, set): the request
// `add` takes and what add, remove and set report.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct AddRequest {
  std::string key;
  // The command line gave one positional: for a kind whose locator is a path or URI (it
  // declares key suffixes) and with no uri among the options, it is the locator, and the key
  // is the backend's default_key of it (`tether add ../greetings.icechunk` is `greetings`).
  bool key_may_be_locator = false;
  std::string kind;
  Json locator = Json::object();  // built by the CLI from the positional and the options
  std::optional<std::string> file_policy, pin_policy;
  bool create = false;
  std::filesystem::path cwd;  // relative local paths resolve against it
};
struct AddResult {
  std::string key, kind;
  std::optional<std::string> at;
  bool created = false;
  std::string maturity;
  Json locator = Json::object();  // as the manifest stores it (local paths made absolute)
  std::optional<std::string> fork;    // --create on a bookmark other than the trunk: its branch
  std::vector<std::string> warnings;  // what went wrong after the store was made (it stays registered)
  Json to_json() const;               // `tether add --json` (docs/cli.md)
};
struct RemoveResult {
  std::string key, kind;
  Json to_json() const;  // `tether remove --json` (docs/cli.md)
};

struct SetResult {
  // key -> field -> (from, to)
  std::map<std::string, std::map<std::string, std::pair<std::string, std::string>>> changed;
  std::vector<std::string> unchanged;
  Json to_json() const;  // `tether set --json` (docs/cli.md)
};

AddResult add(Repo& repo, const AddRequest& request);
// The request with its key settled (key_may_be_locator resolved: see AddRequest), so a caller
// can look at the store before adding it (`add --pick`). add() does the same itself.
AddRequest settle_key(Repo& repo, const AddRequest& request);
// Unregisters the object; its working ref stays for gc.
RemoveResult remove(Repo& repo, const std::string& key);
// Sets the file and/or pin policy of `keys` (or of every object with `all`).
SetResult set_policy(Repo& repo, const std::vector<std::string>& keys, bool all, const std::optional<std::string>& file,
                     const std::optional<std::string>& pin);

}  // namespace tether::engine
