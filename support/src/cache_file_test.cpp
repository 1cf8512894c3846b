// Tests of support/cache_file: a cache file is read only when it is a regular file within its
// bound, never through a symlink, and replaced by a rename that does not follow one.
#include <doctest/doctest.h>

#include <fstream>

#include "tether/support/cache_file.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::support;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("read_bounded_file reads a regular file within its bound and declines anything else") {
  tether::testing::TempDir tmp;
  const fs::path f = tmp.path() / "cache";
  std::string out = "stale";
  CHECK(read_bounded_file(f, 100, out) == ReadStatus::absent);
  CHECK(out.empty());
  CHECK(read_bounded_file(tmp.path() / "no-dir" / "cache", 100, out) == ReadStatus::absent);
  CHECK(replace_cache_file(f, "0123456789"));
  CHECK(read_bounded_file(f, 10, out) == ReadStatus::ok);
  CHECK(out == "0123456789");
  CHECK(read_bounded_file(f, 9, out) == ReadStatus::declined);  // one byte over the bound
  fs::create_symlink(f, tmp.path() / "link");
  CHECK(read_bounded_file(tmp.path() / "link", 100, out) == ReadStatus::declined);
  fs::create_directory(tmp.path() / "dir");
  CHECK(read_bounded_file(tmp.path() / "dir", 100, out) == ReadStatus::declined);
}

TEST_CASE("replace_cache_file replaces a symlink instead of writing through it, and leaves nothing on failure") {
  tether::testing::TempDir tmp;
  const fs::path target = tmp.path() / "target";
  CHECK(replace_cache_file(target, "outside"));
  const fs::path link = tmp.path() / "cache";
  fs::create_symlink(target, link);
  CHECK(replace_cache_file(link, "new"));
  CHECK_FALSE(fs::is_symlink(link));
  CHECK(slurp(link) == "new");
  CHECK(slurp(target) == "outside");

  fs::create_directory(tmp.path() / "dir");
  CHECK_FALSE(replace_cache_file(tmp.path() / "dir", "x"));  // a directory in its place
  CHECK_FALSE(replace_cache_file(tmp.path() / "missing" / "cache", "x"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path())) ++files;
  CHECK(files == 3);  // target, cache, dir: no temporary left behind
}
