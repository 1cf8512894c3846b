// Helpers for the host tests: scratch directories, scoped environment variables, the test
// plugins' build directory.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "tether/host/discovery.hpp"

namespace tether::host::test {

inline std::filesystem::path testdata() { return TETHER_HOST_TESTDATA; }
inline std::filesystem::path test_plugin(const std::string& kind) { return testdata() / plugin_file_name(kind); }

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tether-host-test.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Creates the directory (and parents) and returns it.
  std::filesystem::path dir(const std::string& rel) const {
    std::filesystem::create_directories(path_ / rel);
    return path_ / rel;
  }
  // Writes a file (parents created) and returns its path.
  std::filesystem::path file(const std::string& rel, const std::string& text = "") const {
    std::filesystem::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << text;
    return path_ / rel;
  }

 private:
  std::filesystem::path path_;
};

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
