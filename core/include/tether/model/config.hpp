// tether/model/config.hpp: `tether.toml`, the committed repository configuration
// (docs/FORMAT.md#tethertoml), and the committed-config safety checks.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/model/checkout.hpp"

namespace tether::model {

inline constexpr int kConfigVersion = 5;

struct RepoConfig {
  int version = 1;  // [tether] version; a file without it is version 1
  std::optional<std::string> dataset_id;  // [dataset] id
  bool snapshot_auto = false;             // [snapshot] auto
  bool verify_on_status = false;          // [verify] on_status
  std::string new_fork = "lazy";          // [new] fork: lazy | eager
  std::string default_file = "immutable"; // [defaults] file
  std::string default_pin = "native";     // [defaults] pin
  std::optional<std::string> vcs_prefer;  // [vcs] prefer (jj | git); written only when set
  std::optional<std::string> vcs_trunk;   // [vcs] trunk; written only when set
  nlohmann::json backends = nlohmann::json::object();  // [backends.<kind>] tables, as read
  std::optional<std::string> import_query;              // [import] query (refused by `import`)

  std::string prefer() const { return vcs_prefer.value_or("jj"); }
  std::string trunk() const { return vcs_trunk.value_or("main"); }
  // The committed [backends.<kind>] table, or an empty object.
  nlohmann::json backend(std::string_view kind) const;
};

// Parse tether.toml text. `source` names the file in TOML syntax errors (`<source>:<line>: ...`).
// Refuses: a version newer than kConfigVersion, a missing/invalid [dataset] id at version >= 2,
// an invalid [new] fork / [defaults] value, a committed [vcs] git_path/jj_path, wrong types.
// Versions older than kConfigVersion are accepted here; the engine decides about upgrading.
RepoConfig parse_repo_config(std::string_view text, const std::string& source = "tether.toml");
RepoConfig read_repo_config(const CheckoutPath& path);

// The TOML text in the table order of docs/FORMAT.md#tethertoml; unset optionals dropped.
std::string repo_config_to_toml(const RepoConfig& config);
void write_repo_config(const CheckoutPath& path, const RepoConfig& config);

// The message for a missing/invalid dataset id (with a freshly generated id in the example).
std::string missing_dataset_id_message();

// Refuse keys of a committed [backends.<kind>] table outside the backend's allowlists: a key
// must be in safe_config_keys; a table value's sub-keys must be in safe_option_keys[key] (a
// table without an allowlist refuses every sub-key). Throws ConfigError with one message
// listing every refused key in table order.
void check_committed_backend_config(std::string_view kind, const nlohmann::json& table,
                                    const std::vector<std::string>& safe_config_keys,
                                    const std::map<std::string, std::vector<std::string>>& safe_option_keys);

}  // namespace tether::model
