// Helpers for the host tests: scratch directories, scoped environment variables, the test
// plugins' build directory.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "tether/host/discovery.hpp"
#include "tether/testing/temp_dir.hpp"

namespace tether::host::test {

inline std::filesystem::path testdata() { return TETHER_HOST_TESTDATA; }
inline std::filesystem::path test_plugin(const std::string& kind) { return testdata() / plugin_file_name(kind); }

using TempDir = tether::testing::TempDir;

// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace tether::host::test
