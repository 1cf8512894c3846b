// The walk emits rows in byte order of their full paths, even though it scans directory by
// directory on several threads.
#include <algorithm>
#include <mutex>

#include <doctest/doctest.h>

#include "support.hpp"
#include "walk.hpp"

namespace tether::file::test {

TEST_CASE("walk order is the byte order of full paths ('/' sorts between '.' and '0')") {
  TempDir tmp;
  for (const char* p : {"a/x", "a/y/z", "a b", "a-b", "a.txt", "a0", "b", "\xc3\xa9", "A"}) write_file(tmp.path / p, p);
  std::vector<std::string> got;
  walk_directory(tmp.path.string()).each([&](std::string_view rel, const WalkChild&) { got.emplace_back(rel); });
  CHECK(got == std::vector<std::string>{"A", "a b", "a-b", "a.txt", "a/x", "a/y/z", "a0", "b", "\xc3\xa9"});
}

TEST_CASE("a wide, deep tree walks completely and in order") {
  TempDir tmp;
  std::vector<std::string> want;
  for (int d = 0; d < 40; ++d)
    for (int f = 0; f < 5; ++f) {
      std::string p = "d" + std::to_string(d) + "/s" + std::to_string(f % 2) + "/f" + std::to_string(f);
      write_file(tmp.path / p, p);
      want.push_back(p);
    }
  std::sort(want.begin(), want.end());
  std::vector<std::string> got;
  WalkTree tree = walk_directory(tmp.path.string());
  tree.each([&](std::string_view rel, const WalkChild& c) {
    CHECK(c.kind == WalkChild::kFile);
    got.emplace_back(rel);
  });
  CHECK(got == want);
  CHECK(tree.files == want.size());
  CHECK(tree.links == 0);
  CHECK_THROWS(walk_directory((tmp.path / "missing").string()));
}

TEST_CASE("the hook hears whether its directory is the only one in the walk") {
  TempDir tmp;
  // A chain: one directory at a time, each alone.
  for (const char* p : {"top.txt", "a/x", "a/b/y", "a/b/c/z"}) write_file(tmp.path / p, p);
  std::vector<std::string> dirs;
  std::mutex mu;
  walk_directory(tmp.path.string(), [&](const std::string& rel, WalkNode&, bool alone) {
    std::lock_guard lock(mu);
    dirs.push_back(rel);
    CHECK(alone);
  });
  std::sort(dirs.begin(), dirs.end());
  CHECK(dirs == std::vector<std::string>{"", "a", "a/b", "a/b/c"});
  // Siblings: the root is alone (scanned before the rest); every directory is heard once.
  TempDir wide;
  for (int d = 0; d < 8; ++d) write_file(wide.path / ("d" + std::to_string(d)) / "f", "f");
  std::size_t heard = 0;
  walk_directory(wide.path.string(), [&](const std::string& rel, WalkNode&, bool alone) {
    std::lock_guard lock(mu);
    ++heard;
    if (rel.empty()) CHECK(alone);
  });
  CHECK(heard == 9);
}

}  // namespace tether::file::test
