// tether/engine/init.hpp: `tether init` (docs/cli.md): what init created.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tether::engine {

using Json = nlohmann::json;

struct InitResult {
  std::filesystem::path root;
  std::string dataset_id;
  std::string trunk;
  Json to_json() const;  // `tether init --json` (docs/cli.md)
};

// Makes the directory (in a git working tree) a dataset, adopting the checked-out branch as
// the trunk.
InitResult init(const std::filesystem::path& path);

}  // namespace tether::engine
