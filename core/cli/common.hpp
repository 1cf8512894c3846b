// core/cli/common.hpp: what every command file shares: opening the dataset from the current
// directory (printing its warnings) and small text helpers.
#pragma once

#include <memory>
#include <string>

#include "tether/engine/repo.hpp"

namespace tether::cli {

std::unique_ptr<engine::Repo> open_repo();
std::string rjust(const std::string& s, std::size_t w);
std::string ljust(const std::string& s, std::size_t w);

}  // namespace tether::cli
