#include "cli/common.hpp"

#include <filesystem>

#include "cli/output.hpp"

namespace tether::cli {

std::unique_ptr<engine::Repo> open_repo() {
  auto repo = engine::Repo::open(std::filesystem::current_path());
  for (const auto& w : repo->warnings()) warning(w);
  return repo;
}

std::string rjust(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string ljust(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

}  // namespace tether::cli
