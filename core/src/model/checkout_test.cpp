// model/checkout_test.cpp: the checkout's own files are opened without following symlinks.
#include "tether/model/checkout.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/manifest.hpp"
#include "test_util.hpp"

using namespace tether::model;
using tether::model::testing::TempDir;
using tether::model::testing::write_text;
namespace fs = std::filesystem;

namespace {

// Everything under `dir` (names, kinds, contents): what must stay unchanged.
std::string snapshot(const fs::path& dir) {
  std::string out;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    out += e.path().lexically_relative(dir).string();
    out += e.is_symlink() ? " link" : e.is_directory() ? " dir" : " file " + read_file(e.path());
    out += "\n";
  }
  return out;
}

// The ConfigError message `f` throws ("" when it does not throw one).
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const tether::ConfigError& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("read and write inside a real checkout") {
  TempDir tmp;
  const fs::path root = tmp.path() / "ds";
  fs::create_directories(root);
  CHECK_FALSE(read_checkout_file(tether_path(root, "workspace.toml")));
  write_checkout_file(tether_path(root, "objects/a/b.toml"), "x = 1\n");
  CHECK(read_file(root / ".tether/objects/a/b.toml") == "x = 1\n");
  CHECK(read_checkout_file(tether_path(root, "objects/a/b.toml")) == std::optional<std::string>("x = 1\n"));
  CHECK(list_checkout_files(tether_path(root, "objects"), ".toml", true) == std::vector<fs::path>{"a/b.toml"});
  CHECK(list_checkout_files(tether_path(root, "objects"), ".toml", false).empty());
  CHECK(checkout_entry_exists(tether_path(root, "objects/a")));
  CHECK_FALSE(checkout_entry_exists(tether_path(root, "objects/zz")));

  // Create-if-absent: the first wins, no temp file stays.
  CHECK(create_checkout_file(tether_path(root, "w.toml"), "first"));
  CHECK_FALSE(create_checkout_file(tether_path(root, "w.toml"), "second"));
  CHECK(read_file(root / ".tether/w.toml") == "first");
  CHECK_THROWS_AS(create_checkout_file(tether_path(root, "no/such/w.toml"), "x"), tether::TetherError);

  CHECK(remove_checkout_file(tether_path(root, "objects/a/b.toml")));
  CHECK_FALSE(remove_checkout_file(tether_path(root, "objects/a/b.toml")));
  remove_empty_checkout_dirs(tether_path(root, "objects/a"), ".tether/objects");
  CHECK_FALSE(fs::exists(root / ".tether/objects/a"));
  CHECK(fs::exists(root / ".tether/objects"));
  int entries = 0;
  for (auto& e : fs::directory_iterator(root / ".tether")) entries += e.path().filename().string().find(".tmp") != std::string::npos;
  CHECK(entries == 0);

  CHECK_THROWS_AS(read_checkout_file(tether_path(root, "../../etc/passwd")), tether::TetherError);
}

TEST_CASE("a symlinked .tether is refused for reads and writes, naming the link and its target") {
  TempDir tmp;
  const fs::path root = tmp.path() / "ds", outside = tmp.path() / "outside";
  write_text(outside / "secrets.toml", "[vcs]\ngit_path = \"./run.sh\"\n");
  fs::create_directories(root);
  fs::create_directory_symlink(outside, root / ".tether");
  const std::string before = snapshot(outside);

  const std::string msg =
      ".tether is a symlink (to " + outside.string() +
      "); tether.toml and .tether/ must be real files and directories inside the dataset, never symlinks: remove "
      "the symlink from the repository";
  CHECK_THROWS_WITH_AS(read_checkout_file(tether_path(root, "secrets.toml")), msg.c_str(), tether::ConfigError);
  CHECK_THROWS_WITH_AS(write_checkout_file(tether_path(root, "workspace.toml"), "x"), msg.c_str(), tether::ConfigError);
  CHECK_THROWS_AS(open_checkout_file(tether_path(root, "lock"), O_RDWR | O_CREAT, 0600), tether::ConfigError);
  CHECK_THROWS_AS(open_checkout_dir(tether_path(root, "cache"), true), tether::ConfigError);
  CHECK_THROWS_AS(list_checkout_files(tether_path(root, "objects"), ".toml", true), tether::ConfigError);
  CHECK_THROWS_WITH_AS(check_checkout(root, false), msg.c_str(), tether::ConfigError);
  CHECK(snapshot(outside) == before);
}

TEST_CASE("a symlink below .tether is never followed") {
  TempDir tmp;
  const fs::path root = tmp.path() / "ds", outside = tmp.path() / "outside";
  write_text(outside / "shadow", "root:SECRET\n");
  write_text(outside / "victim", "keep me\n");
  write_text(root / "tether.toml", "version = 5\n");
  fs::create_directories(root / ".tether/objects");
  fs::create_directory_symlink(outside, root / ".tether/objects/evil");
  fs::create_symlink(outside / "shadow", root / ".tether/objects/a.toml");
  fs::create_symlink(outside / "victim", root / ".tether/lock");
  fs::create_directory_symlink(outside, root / ".tether/listings");
  const std::string before = snapshot(outside);

  // A directory on the way: the write goes nowhere.
  CHECK_THROWS_WITH_AS(write_checkout_file(tether_path(root, "objects/evil/x.toml"), "owned"),
                       doctest::Contains((".tether/objects/evil is a symlink (to " + outside.string() + ")").c_str()),
                       tether::ConfigError);
  // A manifest: not read, and the walk of objects/ refuses it (or the directory link).
  CHECK_THROWS_WITH_AS(read_checkout_file(tether_path(root, "objects/a.toml")),
                       doctest::Contains(".tether/objects/a.toml is a symlink"), tether::ConfigError);
  CHECK_THROWS_AS(list_checkout_files(tether_path(root, "objects"), ".toml", true), tether::ConfigError);
  CHECK_THROWS_AS(load_manifests(tether_path(root, "objects")), tether::ConfigError);
  try {
    load_manifests(tether_path(root, "objects"));
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("SECRET") == std::string::npos);
  }
  // The lock: never opened (so never truncated) through the link.
  CHECK_THROWS_WITH_AS(open_checkout_file(tether_path(root, "lock"), O_RDWR | O_CREAT, 0600),
                       doctest::Contains(".tether/lock is a symlink"), tether::ConfigError);
  CHECK_THROWS_AS(write_checkout_file(tether_path(root, "listings/x.jsonl"), "{}"), tether::ConfigError);
  CHECK_THROWS_WITH_AS(check_checkout(root), doctest::Contains("is a symlink"), tether::ConfigError);
  CHECK(snapshot(outside) == before);

  // Replacing a linked file replaces the link itself; its target is untouched.
  write_checkout_file(tether_path(root, "objects/a.toml"), "mine\n");
  CHECK_FALSE(fs::is_symlink(root / ".tether/objects/a.toml"));
  // Removing one removes the link.
  CHECK(remove_checkout_file(tether_path(root, "lock")));
  CHECK_FALSE(fs::exists(fs::symlink_status(root / ".tether/lock")));
  CHECK(snapshot(outside) == before);
}

TEST_CASE("tether.toml and the names under .tether must have the right type") {
  TempDir tmp;
  const fs::path root = tmp.path() / "ds";
  write_text(tmp.path() / "real.toml", "version = 5\n");
  fs::create_directories(root);
  fs::create_symlink(tmp.path() / "real.toml", root / "tether.toml");
  CHECK_THROWS_WITH_AS(check_checkout(root), doctest::Contains("tether.toml is a symlink (to "), tether::ConfigError);
  fs::remove(root / "tether.toml");
  write_text(root / "tether.toml", "version = 5\n");
  check_checkout(root);  // no .tether yet: fine

  write_text(root / ".tether", "not a directory");
  CHECK(starts_with(refusal([&] { check_checkout(root); }), ".tether is not a directory; "));
  fs::remove(root / ".tether");
  fs::create_directories(root / ".tether/lock");
  CHECK(starts_with(refusal([&] { check_checkout(root); }), ".tether/lock is not a regular file; "));
  CHECK_THROWS_AS(open_checkout_file(tether_path(root, "lock"), O_RDWR | O_CREAT, 0600), tether::ConfigError);
  fs::remove(root / ".tether/lock");

  // A FIFO is refused, not waited on.
  REQUIRE(::mkfifo((root / ".tether/secrets.toml").c_str(), 0600) == 0);
  CHECK(starts_with(refusal([&] { read_checkout_file(tether_path(root, "secrets.toml")); }),
                    ".tether/secrets.toml is not a regular file; "));
  CHECK_THROWS_AS(check_checkout(root), tether::ConfigError);
}
