#include "tether/host/plugin_host.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace tether::host;
using tether::host::test::ScopedEnv;
using tether::host::test::TempDir;
using tether::host::test::testdata;
namespace sdk = tether::sdk;

TEST_CASE("get() loads from TETHER_PLUGIN_PATH once, configures once, shares the proxy") {
  ScopedEnv path("TETHER_PLUGIN_PATH", "/nowhere:" + testdata().string());
  PluginHost host;
  CHECK(host.search_path()[1] == testdata());
  std::atomic<int> configured{0};
  host.set_configurator([&configured](BackendProxy& b) {
    ++configured;
    sdk::ConfigureRequest req;
    req.cache_dir = "/cache/" + b.kind();
    b.configure(req);
  });
  CHECK(host.loaded("good") == nullptr);

  std::vector<std::thread> threads;
  std::vector<BackendProxy*> seen(4);
  for (int i = 0; i < 4; ++i) threads.emplace_back([&, i] { seen[i] = &host.get("good"); });
  for (auto& t : threads) t.join();
  for (auto* p : seen) CHECK(p == seen[0]);
  CHECK(configured == 1);
  CHECK(host.loaded("good") == seen[0]);
  CHECK(seen[0]->path() == testdata() / "tether-backend-good.so");
  CHECK(seen[0]->open(sdk::Json::object())["cache_dir"] == "/cache/good");
}

TEST_CASE("get() errors: invalid kind, not found, broken plugin") {
  TempDir t;
  PluginHost host({t.path(), testdata()});
  CHECK_THROWS_AS(host.get("../x"), tether::ConfigError);
  CHECK_THROWS_WITH_AS(host.get("neon"),
                       ("no backend plugin for kind 'neon' (looked in: " + t.path().string() + ", " +
                        testdata().string() + "); install tether-backend-neon.so or set TETHER_PLUGIN_PATH")
                           .c_str(),
                       LoadError);
  CHECK_THROWS_WITH_AS(host.get("abi02"), doctest::Contains("built for tether plugin ABI 0.2"), LoadError);
  // A failed load is not cached as success.
  CHECK(host.loaded("abi02") == nullptr);
}

TEST_CASE("per-kind create() config") {
  PluginHost host({testdata()});
  host.set_backend_config("good", R"({"refuse": true})");
  CHECK_THROWS_WITH_AS(host.get("good"), doctest::Contains("cannot create a good backend: config says refuse"),
                       LoadError);
}

TEST_CASE("list_installed lists every plugin, broken ones with their error") {
  PluginHost host({testdata()});
  host.get("goodmt");  // one already loaded
  auto all = host.list_installed();
  std::map<std::string, PluginInfo> by_kind;
  for (auto& i : all) by_kind[i.kind] = i;
  REQUIRE(by_kind.size() == 8);

  const PluginInfo& good = by_kind["good"];
  CHECK_FALSE(good.error);
  CHECK(good.maturity == "experimental");
  CHECK(good.tier == "forkable");
  CHECK(good.abi == "0.1");
  CHECK(good.version == "1.2.3");
  CHECK(good.path == testdata() / "tether-backend-good.so");
  CHECK((good.capabilities & TETHER_CAP_MERGE) != 0);
  CHECK_FALSE(by_kind["goodmt"].error);
  CHECK_FALSE(by_kind["misbehave"].error);
  for (const char* broken : {"badmagic", "abi02", "noentry", "wrongkind", "noverify"}) {
    INFO(broken);
    REQUIRE(by_kind[broken].error);
    CHECK(by_kind[broken].error->find(by_kind[broken].path.string()) == 0);
  }
}

namespace {
// A backend linked into the test: its entry from the pure-C helpers of backend.h.
tether_status builtin_describe(tether_backend*, tether_call* call, const char*, size_t) {
  const char* d = R"({"kind":"inproc","capabilities":1,"thread_safe":true})";
  call->host->reply(call, d, std::strlen(d));
  return TETHER_OK;
}
tether_status builtin_fingerprint(tether_backend*, tether_call* call, const char*, size_t) {
  const char* s = R"({"state":{"n":1}})";
  call->host->reply(call, s, std::strlen(s));
  return TETHER_OK;
}
tether_status builtin_verify(tether_backend*, tether_call* call, const char*, size_t) {
  const char* s = R"({"status":"ok"})";
  call->host->reply(call, s, std::strlen(s));
  return TETHER_OK;
}
tether_status builtin_open(tether_backend*, tether_call* call, const char*, size_t) {
  const char* s = R"({"handle":{"address":"inproc"}})";
  call->host->reply(call, s, std::strlen(s));
  return TETHER_OK;
}
tether_backend_vtable builtin_vtable() {
  tether_backend_vtable t{};
  t.struct_size = sizeof t;
  t.describe = builtin_describe;
  t.fingerprint = builtin_fingerprint;
  t.verify = builtin_verify;
  t.open = builtin_open;
  return t;
}
const tether_backend_vtable kBuiltinVtable = builtin_vtable();
int g_builtin_instance;
const tether_plugin_entry kBuiltin = {
    TETHER_PLUGIN_MAGIC,
    TETHER_ABI_MAJOR,
    TETHER_ABI_MINOR,
    sizeof(tether_plugin_entry),
    "inproc",
    "0.0.1",
    nullptr,
    nullptr,
    [](tether_call*, const char*, size_t, tether_backend** out) -> tether_status {
      *out = reinterpret_cast<tether_backend*>(&g_builtin_instance);
      return TETHER_OK;
    },
    [](tether_backend*) {},
    &kBuiltinVtable,
};
}  // namespace

TEST_CASE("a builtin entry is served without the search path") {
  PluginHost host(std::vector<fs::path>{});
  host.add_builtin(kBuiltin);
  BackendProxy& b = host.get("inproc");
  CHECK(b.path() == fs::path("builtin:inproc"));
  CHECK(b.fingerprint(sdk::Json::object())["n"] == 1);
  auto all = host.list_installed();
  REQUIRE(all.size() == 1);
  CHECK(all[0].kind == "inproc");
  CHECK_FALSE(all[0].error);
}
