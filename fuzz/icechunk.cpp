// fuzz/icechunk.cpp: an Icechunk repository someone else wrote, as the icechunk backend
// reads it (plugins/icechunk: the metadata files' header and zstd, the flatbuffers of the
// `repo` file, snapshots, manifests and transaction logs, the spec-1 ref.json files). The
// input is a bundle of files: each starts with a line `@@FILE <path>` (path relative to the
// repository: repo, refs/<ref>/ref.json, snapshots/<id>, manifests/<id>, transactions/<id>)
// followed by its bytes up to the next `\n@@FILE ` line (fuzz/bundle-icechunk makes one
// from a real repository). Every reader is run over what the files name; errors must be
// FormatError.
#include <algorithm>
#include <fstream>
#include <cctype>
#include <filesystem>
#include <vector>

#include "diff.hpp"
#include "fuzz_support.hpp"
#include "repository.hpp"

using namespace tether;
namespace fs = std::filesystem;

namespace {

// Paths a bundle may write: the repository's own layout, nothing that climbs out.
bool safe_path(const std::string& p) {
  if (p.empty() || p.size() > 200 || p.front() == '/') return false;
  if (p.find("..") != std::string::npos) return false;
  for (char c : p)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '#'))
      return false;
  for (const char* top : {"repo", "refs/", "snapshots/", "manifests/", "transactions/"})
    if (p.rfind(top, 0) == 0) return true;
  return false;
}

void unbundle(std::string_view text, const fs::path& root) {
  static const std::string_view kSep = "\n@@FILE ";
  static const std::string_view kFirst = "@@FILE ";
  if (text.substr(0, kFirst.size()) != kFirst) return;
  std::size_t at = kFirst.size();
  while (at <= text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return;
    std::string path(text.substr(at, nl - at));
    std::size_t next = text.find(kSep, nl + 1);
    std::string_view body = text.substr(nl + 1, next == std::string_view::npos ? std::string_view::npos : next - nl - 1);
    // A bundle whose paths cannot all be files (a directory path, a file under a file) is
    // materialised as far as it can be: the parser sees what a store could hold.
    if (safe_path(path) && path.back() != '/' && path.find("//") == std::string::npos) {
      std::error_code ec;
      fs::create_directories((root / path).parent_path(), ec);
      if (!ec && !fs::is_directory(root / path, ec)) {
        std::ofstream out(root / path, std::ios::binary | std::ios::trunc);
        out.write(body.data(), static_cast<std::streamsize>(body.size()));
      }
    }
    if (next == std::string_view::npos) return;
    at = next + kSep.size();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fs::path root = fuzz::scratch_dir() / "repo.icechunk";
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root);
  unbundle(fuzz::text_of(data, size), root);
  try {
    auto repo = icechunk::Repository::open(root.string());
    (void)repo.repo_snapshots();
    (void)repo.ops_log();
    std::vector<std::string> heads;
    for (const auto& [name, id] : repo.branches()) heads.push_back(id);
    for (const auto& [name, id] : repo.tags()) heads.push_back(id);
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    if (heads.size() > 8) heads.resize(8);
    for (const auto& id : heads) {
      try {
        (void)icechunk::check_snapshot(repo, id, true);
        auto history = repo.ancestry(id, 16);
        for (const auto& info : history) (void)icechunk::iso_utc_us(info.flushed_at_us);
        (void)repo.read_snapshot(id);
        if (history.size() > 1) (void)icechunk::diff_snapshots(repo, history.back().id, id);
      } catch (const icechunk::FormatError&) {
      }
    }
  } catch (const icechunk::FormatError&) {
  }
  return 0;
}
