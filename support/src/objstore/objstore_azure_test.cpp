// The Azure Blob client against Microsoft's emulator, Azurite (tests/azure/with-azurite, which
// exports TETHER_TEST_AZURE_*). Each case makes its own container. Exits 77 (skipped) without
// the emulator.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <set>
#include <thread>

#include "tether/support/objstore.hpp"
#include "tether/testing/objstore.hpp"

using namespace tether::support::objstore;

using tether::testing::kind_of;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

Options options() {
  Options o;
  o.values["endpoint"] = env("TETHER_TEST_AZURE_ENDPOINT");
  o.values["account_name"] = env("TETHER_TEST_AZURE_ACCOUNT");
  o.values["account_key"] = env("TETHER_TEST_AZURE_KEY");
  o.values["allow_http"] = "true";
  return o;
}

Environment no_env() {
  Environment e;
  e.getenv = [](const std::string&) { return std::optional<std::string>(); };
  return e;
}

std::unique_ptr<Store> container(const std::string& stem, const Options& o = options(), const Environment& e = no_env(),
                                 bool create = true) {
  static std::atomic<int> n{0};
  std::string name = create ? stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++) : stem;
  auto s = open(*parse_location("az://" + name + "/"), o, e);
  if (create) s->create_bucket();
  return s;
}

}  // namespace

TEST_CASE("Azure Blob: put, head, get, ranges, remove") {
  auto s = container("rw");
  PutResult p = s->put("dir/hello.txt", "hello, object store");
  CHECK_FALSE(p.etag.empty());
  auto m = s->head("dir/hello.txt");
  REQUIRE(m);
  CHECK(m->size == 19);
  CHECK(m->etag == p.etag);
  CHECK_FALSE(s->head("dir/absent"));
  ObjectMeta gm;
  CHECK(s->get("dir/hello.txt", Range{7, 6}, std::nullopt, &gm) == "object");
  CHECK(gm.size == 19);
  CHECK(s->get("dir/hello.txt") == "hello, object store");
  CHECK_FALSE(s->get("dir/absent"));
  std::string empty_body;
  s->put("empty", empty_body);
  CHECK(s->get("empty") == "");
  CHECK(s->head("empty")->size == 0);
  s->remove("dir/hello.txt");
  CHECK_FALSE(s->head("dir/hello.txt"));
  s->remove("dir/hello.txt");
}

TEST_CASE("Azure Blob: conditional puts") {
  auto s = container("cond");
  s->put("ref", "1", PutCondition::if_absent());
  CHECK(kind_of([&] { s->put("ref", "2", PutCondition::if_absent()); }) == ErrorKind::PreconditionFailed);
  PutResult a = s->put("repo", "a");
  PutResult b = s->put("repo", "b", PutCondition::if_match(a.etag));
  CHECK(kind_of([&] { s->put("repo", "c", PutCondition::if_match(a.etag)); }) == ErrorKind::PreconditionFailed);
  CHECK(s->get("repo") == "b");
  std::atomic<int> won{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 6; ++i)
    ts.emplace_back([&] {
      try {
        s->put("race", "x", PutCondition::if_absent());
        ++won;
      } catch (const StoreError&) {
      }
    });
  for (auto& t : ts) t.join();
  CHECK(won == 1);
  (void)b;
}

TEST_CASE("Azure Blob: listing with prefixes, delimiters and odd names") {
  auto s = container("list");
  for (int i = 0; i < 30; ++i) s->put("big/" + std::to_string(1000 + i), std::string(static_cast<std::size_t>(i), 'x'));
  s->put("odd/a b+c/é.txt", "1");
  s->put("odd/amp&lt;", "22");
  auto all = s->list_all("big/");
  REQUIRE(all.size() == 30);
  CHECK(all[0].key == "big/1000");
  CHECK(all[29].size == 29);
  std::set<std::string> keys;
  for (const auto& o : s->list_all("odd/")) keys.insert(o.key);
  CHECK(keys == std::set<std::string>{"odd/a b+c/é.txt", "odd/amp&lt;"});
  ListPage top = s->list_page("", "/", std::nullopt);
  CHECK(top.objects.empty());
  CHECK(top.common_prefixes == std::vector<std::string>{"big/", "odd/"});
}

TEST_CASE("Azure Blob: refused keys, a missing container, and no ambient key for another account") {
  auto s = container("fail");
  s->put("k", "v");
  Options wrong = options();
  wrong.values["account_key"] = "bm90LXRoZS1rZXk=";  // base64 "not-the-key"
  std::string m;
  auto name = s->root().substr(5);
  CHECK(kind_of([&] { container(name, wrong, no_env(), false)->head("k"); }, &m) == ErrorKind::Auth);
  CHECK(m.find("access denied") != std::string::npos);
  CHECK(m.find("bm90LXRoZS1rZXk") == std::string::npos);
  CHECK(kind_of([&] { container("no-such-container", options(), no_env(), false)->head("k"); }) == ErrorKind::NoBucket);

  // The environment's key goes to the account the environment names only.
  std::map<std::string, std::string> vars{{"AZURE_STORAGE_ACCOUNT_NAME", "someoneelse"},
                                          {"AZURE_STORAGE_ACCOUNT_KEY", env("TETHER_TEST_AZURE_KEY")}};
  Environment e;
  e.getenv = [&](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  Options no_key = options();
  no_key.values.erase("account_key");
  CHECK(kind_of([&] { container(name, no_key, e, false)->get("k"); }, &m) == ErrorKind::Auth);
  CHECK(m.find("anonymous") != std::string::npos);
  vars["AZURE_STORAGE_ACCOUNT_NAME"] = env("TETHER_TEST_AZURE_ACCOUNT");
  CHECK(container(name, no_key, e, false)->get("k") == "v");
}

int main(int argc, char** argv) {
  if (env("TETHER_TEST_AZURE_ENDPOINT").empty()) {
    std::fprintf(stderr, "objstore_azure_test: no Azurite (run it through tests/azure/with-azurite) -- skipped\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
