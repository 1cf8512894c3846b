// tether/host/load_error.hpp: a plugin could not be found or loaded.
#pragma once

#include <filesystem>
#include <string>

#include "tether/errors.hpp"

namespace tether::host {

// One line naming the file and the way out, e.g.
//   /x/tether-backend-git.so: built for tether plugin ABI 0.2, this tether speaks 0.1; ...
class LoadError : public TetherError {
 public:
  LoadError(const std::string& message, std::filesystem::path path = {})
      : TetherError(message), path_(std::move(path)) {}
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace tether::host
