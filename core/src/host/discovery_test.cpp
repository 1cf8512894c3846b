#include "tether/host/discovery.hpp"

#include <doctest/doctest.h>

#include "tether/errors.hpp"
#include "tether/host/load_error.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace tether::host;
using tether::host::test::ScopedEnv;
using tether::host::test::TempDir;

TEST_CASE("kind names are [a-z0-9_-]+") {
  CHECK(valid_kind("file"));
  CHECK(valid_kind("my_kind-2"));
  CHECK_FALSE(valid_kind(""));
  CHECK_FALSE(valid_kind("Git"));
  CHECK_FALSE(valid_kind("../x"));
  CHECK_FALSE(valid_kind("a/b"));
  CHECK_FALSE(valid_kind("a.b"));
  CHECK_FALSE(valid_kind(std::string(65, 'a')));
  CHECK_THROWS_AS(check_kind("../evil"), tether::ConfigError);
  CHECK_THROWS_AS(find_plugin("Bad Kind", std::vector<fs::path>{}), tether::ConfigError);
}

TEST_CASE("plugin file names") {
  CHECK(plugin_file_name("git") == "tether-backend-git.so");
  CHECK(kind_from_file_name("/x/tether-backend-git.so") == "git");
  CHECK_FALSE(kind_from_file_name("/x/tether-backend-.so"));
  CHECK_FALSE(kind_from_file_name("/x/tether-backend-Git.so"));
  CHECK_FALSE(kind_from_file_name("/x/libfoo.so"));
  CHECK_FALSE(kind_from_file_name("/x/tether-backend-git.so.1"));
}

TEST_CASE("search path order: env, next to the executable, user data dir") {
  SearchEnv env;
  env.plugin_path = "/p/one::/p/two";
  env.exe_dir = "/opt/tether/bin";
  env.xdg_data_home = "/home/u/.data";
  env.home = "/home/u";
  std::vector<fs::path> want = {"/p/one", "/p/two", "/opt/tether/lib/tether/backends",
                                "/opt/tether/lib/x86_64-linux-gnu/tether/backends", "/home/u/.data/tether/backends"};
  CHECK(plugin_search_path(env) == want);

  env.xdg_data_home.reset();
  CHECK(plugin_search_path(env).back() == fs::path("/home/u/.local/share/tether/backends"));

  env.plugin_path.reset();
  env.exe_dir.clear();
  env.home.reset();
  CHECK(plugin_search_path(env).empty());
}

TEST_CASE("the build tree: plugins/*/ then conformance/** dirs holding plugins") {
  TempDir t;
  t.file("build/meson-info/meson-info.json", "{}");
  t.dir("build/plugins/zeta");
  t.dir("build/plugins/file");
  t.file("build/conformance/memory/tether-backend-memory.so");
  t.file("build/conformance/broken/x/tether-backend-badx.so");
  t.dir("build/conformance/empty");
  fs::path exe_dir = t.dir("build/core/cli");

  SearchEnv env;
  env.exe_dir = exe_dir;
  auto dirs = plugin_search_path(env);
  std::vector<fs::path> want = {(exe_dir / "../lib/tether/backends").lexically_normal(),
                                (exe_dir / "../lib/x86_64-linux-gnu/tether/backends").lexically_normal(),
                                t.path() / "build/plugins/file",
                                t.path() / "build/plugins/zeta",
                                t.path() / "build/conformance/broken/x",
                                t.path() / "build/conformance/memory"};
  CHECK(dirs == want);

  // Not a build tree: no marker, no build-tree entries.
  fs::remove_all(t.path() / "build/meson-info");
  CHECK(plugin_search_path(env).size() == 2);
}

TEST_CASE("find_plugin takes the first hit; discover_plugins the first of each kind") {
  TempDir t;
  fs::path a = t.dir("a"), b = t.dir("b");
  t.file("b/tether-backend-git.so");
  t.file("a/tether-backend-git.so");
  t.file("b/tether-backend-file.so");
  t.file("b/tether-backend-NotAKind.so");
  t.file("b/README");
  std::vector<fs::path> dirs = {a, b, t.path() / "missing"};

  CHECK(find_plugin("git", dirs) == a / "tether-backend-git.so");
  CHECK(find_plugin("file", dirs) == b / "tether-backend-file.so");
  CHECK_FALSE(find_plugin("neon", dirs));

  auto found = discover_plugins(dirs);
  REQUIRE(found.size() == 2);
  CHECK(found[0].kind == "file");
  CHECK(found[1].kind == "git");
  CHECK(found[1].path == a / "tether-backend-git.so");
}

TEST_CASE("not found names the places looked and the way out") {
  std::vector<fs::path> dirs = {"/nowhere/a", "/nowhere/b"};
  try {
    require_plugin("neon", dirs);
    FAIL("no error");
  } catch (const LoadError& e) {
    CHECK(std::string(e.what()) ==
          "no backend plugin for kind 'neon' (looked in: /nowhere/a, /nowhere/b); install tether-backend-neon.so or "
          "set TETHER_PLUGIN_PATH");
  }
}

TEST_CASE("TETHER_PLUGIN_PATH from the environment comes first") {
  TempDir t;
  ScopedEnv path("TETHER_PLUGIN_PATH", t.path().string() + ":/second");
  ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
  auto dirs = plugin_search_path();
  REQUIRE(dirs.size() >= 3);
  CHECK(dirs[0] == t.path());
  CHECK(dirs[1] == fs::path("/second"));
  CHECK(dirs.back() == fs::path("/xdg/tether/backends"));
  t.file("tether-backend-envkind.so");
  CHECK(find_plugin("envkind") == t.path() / "tether-backend-envkind.so");
}
