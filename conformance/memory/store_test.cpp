// Unit tests of the memory store (store.hpp) and of where the memory plugin keeps it: the
// JSON file is what lets separate `tether` processes share one store.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "store.hpp"
#include "tether/host/proxy.hpp"

namespace fs = std::filesystem;
using tether::memory::Json;
using tether::memory::Store;
using tether::memory::with_store;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "tether-memory-test-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string plugin_path() {
  const char* p = std::getenv("MEMORY_PLUGIN");
  REQUIRE_MESSAGE(p != nullptr, "MEMORY_PLUGIN is not set (run through meson test)");
  return p;
}

}  // namespace

TEST_CASE("a system starts at <name>:s0 on main; writes chain parents; ancestors are nearest first") {
  Store st;
  auto& sys = st.system("a");
  CHECK(sys.branches.at("main") == "a:s0");
  std::string s1 = Store::write(sys, "a", "main", Json{{"k", 1}});
  std::string s2 = Store::write(sys, "a", "main", Json{{"k", 2}});
  CHECK(s1 == "a:s1");
  CHECK(Store::ancestors(sys, s2) == std::vector<std::string>{"a:s2", "a:s1", "a:s0"});
  sys.tags["tether.x"] = s1;
  CHECK(Store::resolve(sys, "a", "tether.x") == s1);
  CHECK(Store::resolve(sys, "a", "a:s0") == "a:s0");
  CHECK_THROWS_AS(Store::resolve(sys, "a", "nope"), tether::memory::StoreError);
  st.remove("a");
  CHECK_THROWS_AS(st.system("a"), tether::memory::StoreError);
  CHECK(st.find("a") == nullptr);
}

TEST_CASE("the JSON form keeps everything") {
  Store st;
  auto& sys = st.system("a");
  Store::write(sys, "a", "tether.ws.x", Json{{"k", "v"}});
  sys.owner = "0a1b2c3d";
  st.system("b");
  st.remove("b");
  Store back = Store::from_json(st.to_json());
  CHECK(back.to_json() == st.to_json());
  CHECK(back.deleted("b"));
}

TEST_CASE("a file store is shared between accesses, and a failed change writes nothing") {
  TempDir d;
  std::string file = (d.path / "store.json").string();
  with_store(file, true, [](Store& st) { Store::write(st.system("a"), "a", "main", Json{{"k", 1}}); });
  with_store(file, false, [](Store& st) { CHECK(st.system("a").branches.at("main") == "a:s1"); });
  CHECK_THROWS(with_store(file, true, [](Store& st) {
    Store::write(st.system("a"), "a", "main", Json{{"k", 2}});
    throw std::runtime_error("midway");
  }));
  with_store(file, false, [](Store& st) { CHECK(st.system("a").branches.at("main") == "a:s1"); });
}

TEST_CASE("two processes writing one file store lose no write") {
  TempDir d;
  std::string file = (d.path / "store.json").string();
  with_store(file, true, [](Store& st) { st.materialize("a"); });
  constexpr int kWrites = 40;
  pid_t kids[2];
  for (pid_t& kid : kids) {
    kid = ::fork();
    REQUIRE(kid >= 0);
    if (kid == 0) {
      for (int i = 0; i < kWrites; ++i)
        with_store(file, true, [](Store& st) { Store::write(st.system("a"), "a", "main", Json::object()); });
      ::_exit(0);
    }
  }
  for (pid_t kid : kids) {
    int status = 0;
    REQUIRE(::waitpid(kid, &status, 0) == kid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  with_store(file, false, [](Store& st) { CHECK(st.system("a").counter == 2 * kWrites); });
}

TEST_CASE("the memory plugin keeps its store where configure's defaults, create's config or the environment say") {
  TempDir d;
  tether::host::LoadOptions lo;

  SUBCASE("configure defaults: store") {
    std::string file = (d.path / "from-secrets.json").string();
    auto p = tether::host::Plugin::load(plugin_path(), lo);
    tether::host::BackendProxy be(p);
    tether::sdk::ConfigureRequest cr;
    cr.defaults = Json{{"store", file}};
    be.configure(cr);
    be.fork(Json{{"system", "s"}}, tether::sdk::Source::base(), "tether.ws.c0fe5a1e.x");  // a write
    CHECK(fs::exists(file));
  }
  SUBCASE("create config: store") {
    std::string file = (d.path / "from-config.json").string();
    lo.config = Json{{"store", file}}.dump();
    auto p = tether::host::Plugin::load(plugin_path(), lo);
    tether::host::BackendProxy be(p);
    be.fork(Json{{"system", "s"}}, tether::sdk::Source::base(), "tether.ws.c0fe5a1e.x");  // a write
    CHECK(fs::exists(file));
  }
  SUBCASE("TETHER_MEMORY_STORE, seen by a second instance as by a second process") {
    std::string file = (d.path / "from-env.json").string();
    ::setenv("TETHER_MEMORY_STORE", file.c_str(), 1);
    {
      auto p = tether::host::Plugin::load(plugin_path(), lo);
      tether::host::BackendProxy be(p);
      Json loc{{"system", "s"}};
      be.fork(loc, tether::sdk::Source::base(), "tether.ws.c0fe5a1e.shared");
    }
    {
      auto p = tether::host::Plugin::load(plugin_path(), lo);
      tether::host::BackendProxy be(p);
      CHECK(be.list_working_refs(Json{{"system", "s"}}) == std::vector<std::string>{"tether.ws.c0fe5a1e.shared"});
    }
    ::unsetenv("TETHER_MEMORY_STORE");
    CHECK(fs::exists(file));
  }
}
