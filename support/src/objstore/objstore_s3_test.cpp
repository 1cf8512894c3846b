// The S3 client against a real object store: the throwaway Ceph object gateway of
// tests/s3/cluster (run through tests/s3/with-cluster, which exports TETHER_TEST_S3_*). Each
// test case makes its own bucket with Debian's AWS CLI, so what is checked here is written or
// read by a second, independent client wherever it matters. Exits 77 (skipped) without a
// cluster.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "tether/support/objstore.hpp"
#include "tether/testing/objstore.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/s3.hpp"

using namespace tether::support;
using namespace tether::support::objstore;

using tether::testing::kind_of;

namespace {

const tether::testing::S3Cluster& cluster() {
  static const tether::testing::S3Cluster c = tether::testing::S3Cluster::from_env();
  return c;
}

ProcessResult aws(const std::vector<std::string>& args) { return cluster().aws(args); }

std::string new_bucket(const std::string& stem) {
  std::string b;
  REQUIRE_NOTHROW(b = cluster().new_bucket(stem));
  return b;
}

Options options() { return cluster().options(); }

Environment no_env() {
  Environment e;
  e.getenv = [](const std::string&) { return std::optional<std::string>(); };
  return e;
}

std::unique_ptr<Store> store(const std::string& bucket, const Options& o = options(), const Environment& e = no_env()) {
  return open(*parse_location("s3://" + bucket + "/"), o, e);
}

}  // namespace

TEST_CASE("put, head, get and ranges agree with the AWS CLI") {
  std::string b = new_bucket("rw");
  auto s = store(b);
  PutResult p = s->put("dir/hello.txt", "hello, object store");
  CHECK(p.etag == "ee1db6aa9820372cbfba04a2813c4951");  // MD5 of the body, as S3 defines it for one PUT
  auto cli = nlohmann::json::parse(aws({"s3api", "head-object", "--bucket", b, "--key", "dir/hello.txt"}).out);
  CHECK(cli["ETag"] == "\"" + p.etag + "\"");

  auto m = s->head("dir/hello.txt");
  REQUIRE(m);
  CHECK(m->size == 19);
  CHECK(m->etag == p.etag);
  CHECK_FALSE(m->version_id);
  CHECK_FALSE(s->head("dir/absent"));

  ObjectMeta gm;
  CHECK(s->get("dir/hello.txt", std::nullopt, std::nullopt, &gm) == "hello, object store");
  CHECK(gm.etag == p.etag);
  CHECK(s->get("dir/hello.txt", Range{7, 6}, std::nullopt, &gm) == "object");
  CHECK(gm.size == 19);  // the object's size, not the range's
  CHECK(s->get("dir/hello.txt", Range{14, std::nullopt}) == "store");
  CHECK(s->get("dir/hello.txt", Range{100, 5}) == "");
  CHECK_FALSE(s->get("dir/absent"));

  // Written by the CLI, read by us, byte for byte.
  std::string body(70000, '\0');
  for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 131 % 251);
  {
    std::string path = "/tmp/tether-objstore-" + std::to_string(::getpid());
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fwrite(body.data(), 1, body.size(), f);
    std::fclose(f);
    REQUIRE(aws({"s3api", "put-object", "--bucket", b, "--key", "bin/data", "--body", path}).ok());
    std::remove(path.c_str());
  }
  CHECK(s->get("bin/data") == body);

  s->remove("dir/hello.txt");
  CHECK_FALSE(s->head("dir/hello.txt"));
  s->remove("dir/hello.txt");  // absent: fine
}

TEST_CASE("conditional puts: create-only and replace-if-unchanged are arbitrated by the store") {
  auto s = store(new_bucket("cond"));
  PutResult first = s->put("refs/branch.main/ZZZZ.json", "{\"v\":1}", PutCondition::if_absent());
  CHECK_FALSE(first.etag.empty());
  std::string m;
  CHECK(kind_of([&] { s->put("refs/branch.main/ZZZZ.json", "{\"v\":2}", PutCondition::if_absent()); }, &m) ==
        ErrorKind::PreconditionFailed);
  CHECK(m.find("already exists") != std::string::npos);
  CHECK(s->get("refs/branch.main/ZZZZ.json") == "{\"v\":1}");

  PutResult second = s->put("repo", "config 1", PutCondition::always());
  PutResult third = s->put("repo", "config 2", PutCondition::if_match(second.etag));
  CHECK(third.etag != second.etag);
  CHECK(kind_of([&] { s->put("repo", "config 3", PutCondition::if_match(second.etag)); }) == ErrorKind::PreconditionFailed);
  // The quoted form an S3 listing shows is accepted too: the client sends it unquoted.
  s->put("repo", "config 4", PutCondition::if_match("\"" + third.etag + "\""));
  CHECK(s->get("repo") == "config 4");

  // Eight writers race to create one key: exactly one wins.
  std::atomic<int> won{0}, lost{0};
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      try {
        s->put("race", "writer " + std::to_string(i), PutCondition::if_absent());
        ++won;
      } catch (const StoreError& e) {
        if (e.kind() == ErrorKind::PreconditionFailed) ++lost;
      }
    });
  for (auto& t : ts) t.join();
  CHECK(won == 1);
  CHECK(lost == 7);
}

TEST_CASE("a conditional put whose answer was lost: the retry finds its own bytes, not a conflict") {
  std::string b = new_bucket("lossy");
  std::string endpoint = cluster().endpoint;
  std::string port = endpoint.substr(endpoint.rfind(':') + 1);
  std::string cmd = "exec " + std::string(TETHER_SOURCE_ROOT) + "/tests/s3/lossy-proxy " + port;
  FILE* proxy = popen(cmd.c_str(), "r");
  REQUIRE(proxy);
  char line[32] = {0};
  REQUIRE(std::fgets(line, sizeof line, proxy));
  Options through = options();
  int proxy_port = 0, proxy_pid = 0;
  REQUIRE(std::sscanf(line, "%d %d", &proxy_port, &proxy_pid) == 2);
  through.values["endpoint"] = "http://127.0.0.1:" + std::to_string(proxy_port);
  {
    auto s = store(b, through);
    // The first PUT is carried out by the store, its answer lost; the client retries and gets
    // 412 (the key exists), reads the key back, finds its own bytes: created, not a conflict.
    PutResult r = s->put("refs/tag.v1/ref.json", "{\"snapshot\":\"A\"}", PutCondition::if_absent());
    CHECK(r.etag == store(b)->head("refs/tag.v1/ref.json")->etag);
    // Someone else's bytes stay a conflict.
    CHECK(kind_of([&] { s->put("refs/tag.v1/ref.json", "{\"snapshot\":\"B\"}", PutCondition::if_absent()); }) ==
          ErrorKind::PreconditionFailed);
  }
  ::kill(proxy_pid, SIGTERM);
  pclose(proxy);
}

TEST_CASE("listing: pages with continuation tokens, delimiters, keys that need encoding") {
  std::string b = new_bucket("list");
  auto s = store(b);
  // 1,050 objects cross Ceph's 1,000-key page.
  std::vector<std::thread> ts;
  for (int t = 0; t < 6; ++t)
    ts.emplace_back([&, t] {
      for (int i = t; i < 1050; i += 6) {
        char key[64];
        std::snprintf(key, sizeof key, "big/%04d.bin", i);
        s->put(key, std::string(static_cast<std::size_t>(i % 7), 'x'));
      }
    });
  for (auto& t : ts) t.join();
  s->put("odd/a b+c/é.txt", "1");
  s->put("odd/tab\there", "22");
  s->put("odd/amp&lt;", "333");

  std::vector<uint64_t> progress;
  auto all = s->list_all("big/", [&](uint64_t n) { progress.push_back(n); });
  REQUIRE(all.size() == 1050);
  CHECK(progress.size() >= 2);
  CHECK(progress.back() == 1050);
  CHECK(all.front().key == "big/0000.bin");
  CHECK(all.back().key == "big/1049.bin");
  CHECK(all[3].size == 3);
  CHECK(all[3].etag.size() == 32);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].key < all[i].key);

  auto odd = s->list_all("odd/");
  std::set<std::string> keys;
  for (const auto& o : odd) keys.insert(o.key);
  CHECK(keys == std::set<std::string>{"odd/a b+c/é.txt", "odd/amp&lt;", "odd/tab\there"});
  // The CLI sees the same keys.
  auto cli = nlohmann::json::parse(aws({"s3api", "list-objects-v2", "--bucket", b, "--prefix", "odd/"}).out);
  std::set<std::string> cli_keys;
  for (const auto& o : cli["Contents"]) cli_keys.insert(o["Key"].get<std::string>());
  CHECK(cli_keys == keys);

  ListPage top = s->list_page("", "/", std::nullopt);
  CHECK(top.objects.empty());
  CHECK(top.common_prefixes == std::vector<std::string>{"big/", "odd/"});
  CHECK(s->list_all("nothing/").empty());
}

TEST_CASE("versions: listed, read back, deleted") {
  std::string b = new_bucket("ver");
  REQUIRE(aws({"s3api", "put-bucket-versioning", "--bucket", b, "--versioning-configuration", "Status=Enabled"}).ok());
  auto s = store(b);
  PutResult v1 = s->put("obj", "first");
  PutResult v2 = s->put("obj", "second!");
  REQUIRE(v1.version_id);
  REQUIRE(v2.version_id);
  CHECK(*v1.version_id != *v2.version_id);
  auto head = s->head("obj");
  REQUIRE(head);
  CHECK(head->version_id == v2.version_id);
  auto old = s->head("obj", v1.version_id);
  REQUIRE(old);
  CHECK(old->etag == v1.etag);
  CHECK(old->size == 5);
  CHECK(s->get("obj", std::nullopt, v1.version_id) == "first");

  auto versions = s->list_versions("obj");
  REQUIRE(versions.size() == 2);
  CHECK(versions[0].version_id == v2.version_id);
  CHECK(versions[0].is_latest);
  CHECK(versions[1].version_id == v1.version_id);
  CHECK_FALSE(versions[1].is_latest);

  s->remove("obj", v1.version_id);
  CHECK_FALSE(s->head("obj", v1.version_id));
  CHECK_FALSE(s->get("obj", std::nullopt, v1.version_id));
  CHECK(s->head("obj"));
  s->remove("obj");  // a delete marker on a versioned bucket
  CHECK_FALSE(s->head("obj"));
  bool marker = false;
  for (const auto& v : s->list_versions("obj")) marker = marker || v.delete_marker;
  CHECK(marker);
}

TEST_CASE("failures: wrong keys, a missing bucket, no server; no secret in any message") {
  std::string b = new_bucket("fail");
  auto good = store(b);
  good->put("k", "v");

  Options wrong = options();
  wrong.values["secret_access_key"] = "not-the-secret-0123456789";
  std::string m;
  CHECK(kind_of([&] { store(b, wrong)->head("k"); }, &m) == ErrorKind::Auth);
  CHECK(m.find("s3://" + b + "/k") != std::string::npos);
  CHECK(m.find("credentials from the store options") != std::string::npos);
  CHECK(m.find("not-the-secret") == std::string::npos);
  CHECK(m.find(cluster().secret_access_key) == std::string::npos);
  CHECK(kind_of([&] { store(b, wrong)->list_all(""); }) == ErrorKind::Auth);
  CHECK(kind_of([&] { store(b, wrong)->put("k", "x"); }) == ErrorKind::Auth);
  CHECK(good->get("k") == "v");

  CHECK(kind_of([&] { store("no-such-bucket-here")->head("k"); }, &m) == ErrorKind::NoBucket);
  CHECK(m.find("s3://no-such-bucket-here") != std::string::npos);
  CHECK(kind_of([&] { store("no-such-bucket-here")->list_all("p/"); }) == ErrorKind::NoBucket);
  CHECK(kind_of([&] { store("no-such-bucket-here")->get("k"); }) == ErrorKind::NoBucket);

  Options closed = options();
  closed.values["endpoint"] = "http://127.0.0.1:9";  // discard: nothing listens
  closed.values["connect_timeout"] = "1000ms";
  CHECK(kind_of([&] { store(b, closed)->head("k"); }, &m) == ErrorKind::Unreachable);
  CHECK(m.find("cannot reach the store") != std::string::npos);
}

TEST_CASE("ambient credentials: the environment's keys and endpoint, and never to Google's endpoint") {
  std::string b = new_bucket("env");
  store(b)->put("k", "v");
  std::map<std::string, std::string> vars{{"AWS_ACCESS_KEY_ID", cluster().access_key_id},
                                          {"AWS_SECRET_ACCESS_KEY", cluster().secret_access_key},
                                          {"AWS_ENDPOINT_URL", cluster().endpoint},
                                          {"AWS_REGION", cluster().region},
                                          {"AWS_ALLOW_HTTP", "true"}};
  Environment e;
  e.getenv = [&](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  CHECK(store(b, Options{}, e)->get("k") == "v");

  // gs:// with the same environment: the AWS keys are not sent (the request goes unsigned and
  // is refused), even to an endpoint the options name.
  Options gs;
  gs.values["endpoint"] = cluster().endpoint;
  gs.values["allow_http"] = "true";
  std::string m;
  CHECK(kind_of([&] { open(*parse_location("gs://" + b + "/"), gs, e)->get("k"); }, &m) == ErrorKind::Auth);
  CHECK(m.find("no credentials") != std::string::npos);
}

TEST_CASE("one store, many threads: connections are pooled, answers are not mixed up") {
  auto s = store(new_bucket("par"));
  for (int i = 0; i < 16; ++i) s->put("k" + std::to_string(i), std::string(static_cast<std::size_t>(i + 1), 'a' + i % 26));
  std::atomic<int> ok{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int r = 0; r < 20; ++r) {
        int i = (t * 7 + r) % 16;
        auto m = s->head("k" + std::to_string(i));
        if (m && m->size == static_cast<uint64_t>(i + 1)) ++ok;
      }
    });
  for (auto& t : ts) t.join();
  CHECK(ok == 160);
}

TEST_CASE("plain HTTP objects: read-only, HEAD and ranged GET, nothing signed") {
  std::string b = new_bucket("http");
  REQUIRE(aws({"s3api", "put-bucket-acl", "--bucket", b, "--acl", "public-read"}).ok());  // a 404, not a 403, for a missing key
  store(b)->put("private", "secret bytes");
  std::string path = "/tmp/tether-objstore-pub-" + std::to_string(::getpid());
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fputs("public bytes", f);
    std::fclose(f);
  }
  REQUIRE(aws({"s3api", "put-object", "--bucket", b, "--key", "pub/a.txt", "--body", path, "--acl", "public-read"}).ok());
  std::remove(path.c_str());
  std::string base = cluster().endpoint + "/" + b + "/";
  Options http;
  http.values["allow_http"] = "true";
  auto loc = parse_location(base + "pub/a.txt");
  REQUIRE(loc);
  auto s = open(*loc, http, no_env());
  auto m = s->head(loc->key);
  REQUIRE(m);
  CHECK(m->size == 12);
  CHECK(m->etag.size() == 32);
  CHECK(s->get(loc->key, Range{7, 5}) == "bytes");
  CHECK_FALSE(s->head(b + "/pub/none"));
  // The private object is refused: no key is ever sent over plain HTTP.
  CHECK(kind_of([&] { s->get(b + "/private"); }) == ErrorKind::Auth);
  CHECK(kind_of([&] { s->put("x", "y"); }) == ErrorKind::Unsupported);
  CHECK(kind_of([&] { s->list_all(""); }) == ErrorKind::Unsupported);
  // http:// needs allow_http.
  CHECK(kind_of([&] { open(*loc, Options{}, no_env()); }) == ErrorKind::Config);
}

int main(int argc, char** argv) {
  if (!cluster().present()) {
    std::fprintf(stderr, "objstore_s3_test: no S3 cluster (run it through tests/s3/with-cluster) -- skipped\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
