// model/test_util.hpp (tests only): a scratch directory removed at scope exit, file helpers.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tether/testing/temp_dir.hpp"

namespace tether::model::testing {

using TempDir = tether::testing::TempDir;

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace tether::model::testing
