#include "tether/host/plugin.hpp"

#include <doctest/doctest.h>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace tether::host;
using tether::host::test::TempDir;
using tether::host::test::test_plugin;

namespace {
// The LoadError message of loading `path`, or "" when it loads.
std::string load_error(const fs::path& path, const LoadOptions& opts = {}) {
  try {
    Plugin::load(path, opts);
  } catch (const LoadError& e) {
    CHECK(e.path() == path);
    return e.what();
  }
  return "";
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("a good plugin loads: entry, vtable copy, description") {
  auto p = Plugin::load(test_plugin("good"));
  CHECK(p->loaded());
  CHECK(p->kind() == "good");
  CHECK(p->abi_version() == "0.1");
  CHECK(p->plugin_version() == "1.2.3");
  CHECK(p->plugin_vtable_size() == sizeof(tether_backend_vtable));
  CHECK(p->description().kind == "good");
  CHECK(p->description().maturity == "experimental");
  CHECK(p->description().volatile_keys == std::vector<std::string>{"lsn"});
  CHECK_FALSE(p->thread_safe());
  CHECK(p->has(Op::Fingerprint));
  CHECK(p->has(Op::Merge));
  CHECK_FALSE(p->has(Op::Diff));
  CHECK_FALSE(p->has(Op::Identity));

  CallResult r = p->call(Op::Fingerprint, R"({"locator":{"v":7}})");
  CHECK(r.ok());
  CHECK(r.called);
  REQUIRE(r.reply);
  CHECK(tether::sdk::Json::parse(*r.reply)["state"]["v"] == 7);

  CallResult absent = p->call(Op::Diff, "{}");
  CHECK_FALSE(absent.called);
  CHECK(absent.status == TETHER_E_UNSUPPORTED);
}

TEST_CASE("unload closes the plugin and it loads again") {
  auto p = Plugin::load(test_plugin("good"));
  p->unload();
  CHECK_FALSE(p->loaded());
  CHECK_THROWS_AS(p->call(Op::Fingerprint, "{}"), LoadError);
  auto again = Plugin::load(test_plugin("good"));
  CHECK(again->call(Op::Fingerprint, R"({"locator":{}})").ok());
}

TEST_CASE("load errors name the file and the way out") {
  SUBCASE("missing file") {
    CHECK(contains(load_error("/nowhere/tether-backend-x.so"), "/nowhere/tether-backend-x.so: no such plugin file"));
  }
  SUBCASE("not a shared object: dlerror quoted") {
    TempDir t;
    fs::path junk = t.file("tether-backend-junk.so", std::string(4096, 'x'));
    std::string m = load_error(junk);
    CHECK(contains(m, junk.string() + ": cannot load the shared object ("));
    INFO(m);
    CHECK(contains(m, "invalid ELF header)"));
    CHECK(contains(m, "remove it from the plugin path"));
  }
  SUBCASE("no tether_entry") {
    std::string m = load_error(test_plugin("noentry"));
    CHECK(contains(m, "not a tether backend plugin (it exports no tether_entry)"));
  }
  SUBCASE("wrong magic") {
    std::string m = load_error(test_plugin("badmagic"));
    CHECK(contains(m, test_plugin("badmagic").string() + ": not a tether backend plugin (tether_entry has magic "
                                                         "0xdeadbeef, expected 0x54544852)"));
  }
  SUBCASE("ABI mismatch") {
    std::string m = load_error(test_plugin("abi02"));
    CHECK(contains(m, "built for tether plugin ABI 0.2, this tether speaks 0.1; rebuild the plugin"));
  }
  SUBCASE("kind differs from the file name") {
    std::string m = load_error(test_plugin("wrongkind"));
    CHECK(contains(m, "declares kind 'other' but was looked up for kind 'wrongkind'; rename it "
                      "tether-backend-other.so"));
  }
  SUBCASE("kind differs from the requested kind") {
    LoadOptions opts;
    opts.kind = "file";
    CHECK(contains(load_error(test_plugin("good"), opts), "declares kind 'good' but was looked up for kind 'file'"));
  }
  SUBCASE("required op missing") {
    CHECK(contains(load_error(test_plugin("noverify")), "lacks the required operation 'verify'"));
  }
  SUBCASE("create refuses the config") {
    LoadOptions opts;
    opts.config = R"({"refuse": true})";
    CHECK(contains(load_error(test_plugin("good"), opts), "cannot create a good backend: config says refuse"));
  }
}

TEST_CASE("an in-process entry goes through the same checks") {
  tether_plugin_entry bad{};
  bad.magic = 1;
  try {
    Plugin::from_entry(bad, "builtin:bad");
    FAIL("no error");
  } catch (const LoadError& e) {
    CHECK(contains(e.what(), "builtin:bad: not a tether backend plugin"));
  }
}
