// tether/testing/temp_dir.hpp (tests only): a scratch directory made with mkdtemp and
// removed at scope exit, with helpers to make directories and files inside it.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace tether::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "tether-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(tmpl);  // resolved, so paths compare equal to ours
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

}  // namespace tether::testing
