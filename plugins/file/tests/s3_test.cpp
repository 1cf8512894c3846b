// The backend on a real object store: the throwaway Ceph object gateway of tests/s3/cluster,
// run through tests/s3/with-cluster (skipped, exit 77, without it). Each test makes its own
// bucket with Debian's AWS CLI (/usr/bin/aws), which is also the oracle: sizes, ETags,
// version ids and listings are read back through it, independently of tether's client.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include <doctest/doctest.h>

#include "hashing.hpp"
#include "support.hpp"
#include "tether/support/process.hpp"
#include "tether/testing/s3.hpp"

namespace tether::file::test {
namespace {

using V = tether_backend_vtable;

const testing::S3Cluster& cluster() {
  static const testing::S3Cluster c = [] {
    auto c = testing::S3Cluster::from_env();
    if (!c.present() || !c.has_aws_cli()) {
      MESSAGE("no object store (run through tests/s3/with-cluster, with /usr/bin/aws): skipped");
      std::exit(77);
    }
    return c;
  }();
  return c;
}

// /usr/bin/aws s3api ARGS... against the cluster; its JSON output (null when it printed none).
Json aws(const std::vector<std::string>& args, bool must_succeed = true) {
  std::vector<std::string> argv{"/usr/bin/aws", "--endpoint-url", cluster().endpoint, "--output", "json", "s3api"};
  argv.insert(argv.end(), args.begin(), args.end());
  support::ProcessResult r = support::run_process(argv);
  if (must_succeed) {
    INFO(support::join_argv(argv), ": ", r.err);
    REQUIRE(r.exit_code == 0);
  }
  if (r.exit_code != 0 || r.out.find_first_not_of(" \n") == std::string::npos) return nullptr;
  return Json::parse(r.out);
}

std::string strip_quotes(std::string etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

// A fresh bucket for one test, named after it and unique to this run.
std::string new_bucket(const std::string& name) {
  std::string bucket;
  REQUIRE_NOTHROW(bucket = cluster().new_bucket("tf-" + name));
  return bucket;
}

// Writes one object with the AWS CLI; returns what it answered (ETag, VersionId).
Json put(const std::string& bucket, const std::string& key, const std::string& body) {
  TempDir tmp;
  write_file(tmp.path / "body", body);
  return aws({"put-object", "--bucket", bucket, "--key", key, "--body", (tmp.path / "body").string()});
}

// The store options the cluster needs, as a secrets rule or storage_options table.
Json cluster_options(const std::string& secret = "") {
  const testing::S3Cluster& c = cluster();
  return Json{{"endpoint", c.endpoint},
              {"access_key_id", c.access_key_id},
              {"secret_access_key", secret.empty() ? c.secret_access_key : secret},
              {"region", c.region},
              {"allow_http", true}};
}

// A backend configured with one secrets rule for the bucket, as `.tether/secrets.toml
// [uris."s3://<bucket>/"]` reaches it, and an environment with nothing in it: only the rule's
// options can reach the store.
struct Fixture {
  explicit Fixture(const std::string& bucket, Json rule = Json()) : backend(Json::object(), options()), d(backend) {
    Json rules = Json::object();
    rules["s3://" + bucket + "/"] = rule.is_null() ? cluster_options() : rule;
    d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", Json::object()}, {"rules", rules}});
  }
  static FileBackendOptions options() {
    FileBackendOptions o;
    o.environment = objstore::Environment{[](const std::string&) { return std::optional<std::string>(); }, "/nonexistent"};
    return o;
  }
  Result fp(const Json& locator) { return d.call(&V::fingerprint, Json{{"locator", locator}, {"working_ref", nullptr}}); }
  Json state(const std::string& uri) { return d.state(uri); }
  Json verify(const std::string& uri, const Json& state, bool deep) {
    return d.ok(&V::verify, Json{{"locator", {{"uri", uri}}}, {"state", state}, {"pin", nullptr}, {"deep", deep}});
  }
  FileBackend backend;
  Driver d;
};

// A loopback port nothing listens on.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

// The rows and digest of a prefix as the AWS CLI lists it (it pages by itself).
struct Listed {
  Rows rows;
  int64_t size = 0;
};
Listed aws_listing(const std::string& bucket, const std::string& prefix) {
  Json out = aws({"list-objects-v2", "--bucket", bucket, "--prefix", prefix});
  Listed l;
  if (out.is_object() && out.contains("Contents"))
    for (const Json& o : out["Contents"]) {
      l.rows.push_back(Row{o["Key"].get<std::string>(), strip_quotes(o["ETag"].get<std::string>()), o["Size"].get<int64_t>()});
      l.size += o["Size"].get<int64_t>();
    }
  sort_rows(l.rows);
  return l;
}

}  // namespace

TEST_CASE("a single object: one HEAD gives size and etag; verify and open without versions") {
  std::string bucket = new_bucket("object");
  Fixture f(bucket);
  const std::string uri = "s3://" + bucket + "/data/table.csv";
  put(bucket, "data/table.csv", "a,b\n1,2\n");
  Json head = aws({"head-object", "--bucket", bucket, "--key", "data/table.csv"});

  Json s1 = f.state(uri);
  CHECK(s1 == Json{{"type", "object"}, {"size", 8}, {"etag", strip_quotes(head["ETag"].get<std::string>())}});
  CHECK(f.state(uri) == s1);
  CHECK(f.d.ok(&V::identity, Json{{"locator", {{"uri", uri}}}})["identity"] == Json{{"uri", uri}});
  f.d.ok(&V::validate_locator, Json{{"locator", {{"uri", uri}}}});
  CHECK(f.d.ok(&V::state_addressable, Json{{"locator", {{"uri", uri}}}, {"state", s1}})["addressable"] == false);

  Json ok = f.verify(uri, s1, false);
  CHECK(ok["status"] == "ok");
  CHECK(ok["message"] == "no version id: the bucket is not versioned");

  Result refused = f.d.call(&V::open, Json{{"locator", {{"uri", uri}}}, {"target", {{"state", s1}}}, {"read_only", true}});
  CHECK(refused.message == uri + ": the recorded state has no version id (the bucket is not versioned), so it cannot be "
                                 "opened at that state");
  Json live = f.d.ok(&V::open, Json{{"locator", {{"uri", uri}}}, {"target", Json::object()}, {"read_only", true}});
  CHECK(live["handle"]["uri"] == uri);
  CHECK(live["handle"]["read_only"] == true);

  put(bucket, "data/table.csv", "a,b\n1,2\n3,4\n");
  Json s2 = f.state(uri);
  CHECK(s2["size"] == 12);
  CHECK(s2["etag"] != s1["etag"]);
  Json changed = f.verify(uri, s1, false);
  CHECK(changed["status"] == "missing");
  CHECK(changed["message"] ==
        "the object changed and no version id was recorded, so the recorded state cannot be read back");
  Json diff = f.d.ok(&V::diff, Json{{"locator", {{"uri", uri}}}, {"a", s1}, {"b", s2}});
  CHECK(diff["entries"][0]["detail"] ==
        "size +4 B, etag " + s1["etag"].get<std::string>() + " -> " + s2["etag"].get<std::string>());

  aws({"delete-object", "--bucket", bucket, "--key", "data/table.csv"});
  Result gone = f.fp(Json{{"uri", uri}});
  CHECK(gone.status == TETHER_E_BACKEND);
  CHECK(gone.message == "object does not exist: data/table.csv");
  Json missing = f.verify(uri, s2, false);
  CHECK(missing["status"] == "missing");
  CHECK(missing["message"] == "object does not exist: data/table.csv");
  // The store's lifecycle is its bucket's.
  Result create = f.d.call(&V::create, Json{{"locator", {{"uri", uri}}}, {"owner", "0a1b2c3d"}});
  CHECK(create.message ==
        "file create: only a local directory can be created or removed by tether; a remote prefix is managed by its "
        "bucket");
  CHECK(f.d.call(&V::delete_store, Json{{"locator", {{"uri", "s3://" + bucket + "/data/"}}}}).message ==
        "file delete_store: only a local directory can be created or removed by tether; a remote prefix is managed "
        "by its bucket");
}

TEST_CASE("a prefix past one listing page: one listing, the AWS CLI's rows and digest, progress") {
  std::string bucket = new_bucket("prefix");
  // 1,105 objects under run/ (a listing page holds 1,000), one beside it, one nested deeper.
  objstore::Options writer = cluster().options();
  auto store = objstore::open(*objstore::parse_location("s3://" + bucket), writer, Fixture::options().environment.value());
  for (int i = 0; i < 1105; ++i) store->put("run/f" + std::to_string(10000 + i), "x" + std::to_string(i));
  store->put("run/deep/er.bin", std::string(3000, 'z'));
  put(bucket, "other.txt", "not under run/");

  Fixture f(bucket);
  const std::string uri = "s3://" + bucket + "/run/";
  Result r = f.fp(Json{{"uri", uri}});
  REQUIRE(r.status == TETHER_OK);
  Json state = r.reply["state"];
  Listed oracle = aws_listing(bucket, "run/");
  REQUIRE(oracle.rows.size() == 1106);
  CHECK(state == Json{{"type", "prefix"}, {"count", 1106}, {"size", oracle.size}, {"digest", rows_digest(oracle.rows)}});
  CHECK(r.progress_calls >= 1);
  CHECK(r.last_progress == 1106);

  // The listing: full keys, ETags, sizes, sorted, from the rows just read.
  Json listing = f.d.ok(&V::listing, Json{{"locator", {{"uri", uri}}}, {"state", state}})["listing"];
  CHECK(listing == render_listing(oracle.rows));
  // Another process (no remembered rows) lists again and gets the same text.
  Fixture g(bucket);
  CHECK(g.d.ok(&V::listing, Json{{"locator", {{"uri", uri}}}, {"state", state}})["listing"] == listing);

  // The whole bucket: with and without the trailing slash.
  Json all = f.state("s3://" + bucket);
  CHECK(all["count"] == 1107);
  CHECK(f.state("s3://" + bucket + "/") == all);
  CHECK(f.verify(uri, state, false)["status"] == "ok");
  // Only the bucket manages it; the engine may still ask whether it is ours.
  CHECK(f.d.call(&V::owner, Json{{"locator", {{"uri", uri}}}}).message.rfind("file owner: only a local directory", 0) == 0);
}

TEST_CASE("prefix diff from listings: added, removed, modified rows; verify drifted") {
  std::string bucket = new_bucket("diff");
  for (const char* k : {"p/a.txt", "p/b.txt", "p/c.txt"}) put(bucket, k, std::string("first ") + k);
  Fixture f(bucket);
  const std::string uri = "s3://" + bucket + "/p/";
  Json a = f.state(uri);
  std::string la = f.d.ok(&V::listing, Json{{"locator", {{"uri", uri}}}, {"state", a}})["listing"];

  put(bucket, "p/b.txt", "second, and longer");
  aws({"delete-object", "--bucket", bucket, "--key", "p/c.txt"});
  put(bucket, "p/d/e.txt", "new");
  Json b = f.state(uri);
  CHECK(b["count"] == 3);
  CHECK(b["digest"] != a["digest"]);
  std::string lb = f.d.ok(&V::listing, Json{{"locator", {{"uri", uri}}}, {"state", b}})["listing"];

  Json diff = f.d.ok(&V::diff, Json{{"locator", {{"uri", uri}}}, {"a", a}, {"b", b}, {"listing_a", la}, {"listing_b", lb}});
  CHECK(diff["unit"] == "files");
  CHECK(diff["added"] == 1);
  CHECK(diff["removed"] == 1);
  CHECK(diff["modified"] == 1);
  CHECK(diff["entries"] == Json::parse(R"([
    {"path": "p/b.txt", "change": "modified", "detail": "+5 B"},
    {"path": "p/c.txt", "change": "removed", "detail": "-13 B"},
    {"path": "p/d/e.txt", "change": "added", "detail": "+3 B"}])"));

  Json drifted = f.verify(uri, a, false);
  CHECK(drifted["status"] == "drifted");
  CHECK(drifted["message"] == "content changed since commit");
  CHECK(f.verify(uri, b, false)["status"] == "ok");
}

TEST_CASE("a versioned bucket: version ids, deep verify (ok, drifted, missing), open at a version") {
  std::string bucket = new_bucket("versioned");
  aws({"put-bucket-versioning", "--bucket", bucket, "--versioning-configuration", "Status=Enabled"});
  const std::string uri = "s3://" + bucket + "/model.bin";
  Json v1 = put(bucket, "model.bin", "weights v1");
  Json v2 = put(bucket, "model.bin", "weights v2!");
  REQUIRE(v1.contains("VersionId"));
  Fixture f(bucket);
  Json policy{{"file", "versioned"}, {"pin", "native"}};
  CHECK(f.d.ok(&V::effective_capabilities, Json{{"locator", {{"uri", uri}}}, {"policy", policy}})["capabilities"] ==
        (TETHER_CAP_FINGERPRINT | TETHER_CAP_CHEAP_FINGERPRINT | TETHER_CAP_DIFF | TETHER_CAP_ADDRESSABLE));

  Json s2 = f.state(uri);
  CHECK(s2 == Json{{"type", "object"},
                   {"size", 11},
                   {"etag", strip_quotes(v2["ETag"].get<std::string>())},
                   {"version_id", v2["VersionId"]}});
  CHECK(f.d.ok(&V::state_addressable, Json{{"locator", {{"uri", uri}}}, {"state", s2}})["addressable"] == true);
  Json s1{{"type", "object"},
          {"size", 10},
          {"etag", strip_quotes(v1["ETag"].get<std::string>())},
          {"version_id", v1["VersionId"]}};

  Json shallow = f.verify(uri, s1, false);
  CHECK(shallow["status"] == "unknown");
  CHECK(shallow["message"] == "pass --deep to confirm the version");
  CHECK(f.verify(uri, s1, true)["status"] == "ok");  // an older version still there is ok
  CHECK(f.verify(uri, s2, true)["status"] == "ok");

  // A recorded etag the version does not have: drifted, naming the version's etag.
  Json forged = s1;
  forged["etag"] = s2["etag"];
  Json drifted = f.verify(uri, forged, true);
  CHECK(drifted["status"] == "drifted");
  CHECK(drifted["message"] == "version " + v1["VersionId"].get<std::string>() + " has etag " + s1["etag"].get<std::string>());

  Json handle = f.d.ok(&V::open, Json{{"locator", {{"uri", uri}}}, {"target", {{"state", s1}}}, {"read_only", true}})["handle"];
  CHECK(handle["uri"] == uri);
  CHECK(handle["version_id"] == v1["VersionId"]);
  CHECK(handle["read_only"] == true);
  Json diff = f.d.ok(&V::diff, Json{{"locator", {{"uri", uri}}}, {"a", s1}, {"b", s2}});
  CHECK(diff["entries"][0]["detail"] == "size +1 B, etag " + s1["etag"].get<std::string>() + " -> " +
                                            s2["etag"].get<std::string>() + ", version " +
                                            v1["VersionId"].get<std::string>() + " -> " + v2["VersionId"].get<std::string>());

  // The version deleted: missing.
  aws({"delete-object", "--bucket", bucket, "--key", "model.bin", "--version-id=" + v1["VersionId"].get<std::string>()});
  Json missing = f.verify(uri, s1, true);
  CHECK(missing["status"] == "missing");
  CHECK(missing["message"] == "version " + v1["VersionId"].get<std::string>() + " of " + uri + " no longer exists");
  CHECK(f.verify(uri, s2, true)["status"] == "ok");
}

TEST_CASE("a wrong secret: an Auth error naming the object and the secrets rule, never a key") {
  std::string bucket = new_bucket("auth");
  put(bucket, "k.txt", "x");
  const std::string wrong = "WRONGsecretWRONGsecretWRONGsecret00000000";
  Fixture f(bucket, cluster_options(wrong));
  const std::string uri = "s3://" + bucket + "/k.txt";
  for (const std::string& u : {uri, "s3://" + bucket + "/"}) {
    CAPTURE(u);
    Result r = f.fp(Json{{"uri", u}});
    CHECK(r.status == TETHER_E_BACKEND);
    CHECK(r.message.find(u) != std::string::npos);
    CHECK(r.message.find("access denied") != std::string::npos);
    CHECK(r.message.find("; give the store's keys in .tether/secrets.toml [uris.\"s3://" + bucket +
                         "/\"] (access_key_id, secret_access_key) or in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY") !=
          std::string::npos);
    CHECK(r.message.find(wrong) == std::string::npos);
    CHECK(r.message.find(cluster().secret_access_key) == std::string::npos);
    CHECK(r.message.find('\n') == std::string::npos);
  }
  // verify does not call an object it cannot reach missing: the error stands.
  Result v = f.d.call(&V::verify, Json{{"locator", {{"uri", uri}}},
                                       {"state", {{"type", "object"}, {"size", 1}, {"etag", "e"}}},
                                       {"pin", nullptr},
                                       {"deep", false}});
  CHECK(v.status == TETHER_E_BACKEND);
  CHECK(v.message.find("access denied") != std::string::npos);
}

TEST_CASE("a bucket that does not exist") {
  std::string bucket = "tf-nobucket-" + std::to_string(::getpid());
  Fixture f(bucket);
  Result r = f.fp(Json{{"uri", "s3://" + bucket + "/p/"}});
  CHECK(r.status == TETHER_E_BACKEND);
  CHECK(r.message.find("s3://" + bucket + "/p/") != std::string::npos);
  CHECK(r.message.find("the bucket does not exist") != std::string::npos);
  CHECK(r.message.find("; create it, or point `endpoint` in .tether/secrets.toml [uris.\"s3://" + bucket + "/\"]") !=
        std::string::npos);
  // A single object: not "object does not exist", the bucket is what is missing.
  Result o = f.fp(Json{{"uri", "s3://" + bucket + "/k.txt"}});
  CHECK(o.status == TETHER_E_BACKEND);
  CHECK(o.message.find("s3://" + bucket + "/k.txt") != std::string::npos);
  CHECK(o.message.find("the bucket does not exist") != std::string::npos);
}

TEST_CASE("an endpoint nothing answers on: Unreachable names the endpoint setting") {
  std::string bucket = new_bucket("unreachable");
  Json rule = cluster_options();
  rule["endpoint"] = "http://127.0.0.1:" + std::to_string(closed_port());
  rule["connect_timeout"] = 2;
  Fixture f(bucket, rule);
  const std::string uri = "s3://" + bucket + "/k.txt";
  Result r = f.fp(Json{{"uri", uri}});
  CHECK(r.status == TETHER_E_BACKEND);
  CHECK(r.message.find(uri) != std::string::npos);
  CHECK(r.message.find("cannot reach the store") != std::string::npos);
  CHECK(r.message.find("; check the endpoint: `endpoint` in .tether/secrets.toml [uris.\"s3://" + bucket +
                       "/\"] or AWS_ENDPOINT_URL") != std::string::npos);
  CHECK(r.message.find(cluster().secret_access_key) == std::string::npos);
  // Deep verify of a version cannot tell: unknown, with the same reason.
  Json v = f.verify(uri, Json{{"type", "object"}, {"size", 1}, {"etag", "e"}, {"version_id", "v1"}}, true);
  CHECK(v["status"] == "unknown");
  CHECK(v["message"].get<std::string>().find("cannot reach the store") != std::string::npos);
}

TEST_CASE("an http(s) object: one HEAD, no credentials; allow_http only from the secrets") {
  std::string bucket = new_bucket("http");
  aws({"put-bucket-acl", "--bucket", bucket, "--acl", "public-read"});
  TempDir tmp;
  write_file(tmp.path / "body", "public bytes");
  aws({"put-object", "--bucket", bucket, "--key", "pub/a.txt", "--body", (tmp.path / "body").string(), "--acl",
       "public-read"});
  Json head = aws({"head-object", "--bucket", bucket, "--key", "pub/a.txt"});
  const std::string uri = cluster().endpoint + "/" + bucket + "/pub/a.txt";
  auto backend_with = [&](const Json& rules) {
    auto b = std::make_unique<FileBackend>(Json::object(), Fixture::options());
    Driver(*b).ok(&V::configure,
                  Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", Json::object()}, {"rules", rules}});
    return b;
  };
  Json rules = Json::object();
  rules[cluster().endpoint + "/"] = Json{{"allow_http", true}};
  auto b = backend_with(rules);
  Driver d(*b);
  CHECK(d.state(uri) == Json{{"type", "object"}, {"size", 12}, {"etag", strip_quotes(head["ETag"].get<std::string>())}});
  Result missing = d.call(&V::fingerprint, Json{{"locator", {{"uri", uri + ".gone"}}}, {"working_ref", nullptr}});
  CHECK(missing.message == "object does not exist: " + bucket + "/pub/a.txt.gone");
  // A server is no bucket: it cannot be listed.
  CHECK(d.call(&V::fingerprint, Json{{"locator", {{"uri", cluster().endpoint + "/" + bucket + "/pub/"}}}, {"working_ref", nullptr}})
            .status == TETHER_E_BACKEND);
  // Without allow_http from the secrets, an http:// URL is refused before anything is sent.
  auto strict = backend_with(Json::object());
  Result refused = Driver(*strict).call(&V::fingerprint, Json{{"locator", {{"uri", uri}}}, {"working_ref", nullptr}});
  CHECK(refused.status == TETHER_E_BACKEND);
  CHECK(refused.message.find("allow_http") != std::string::npos);
}

TEST_CASE("options: the environment route, storage_options layering, the region, one cached store") {
  std::string bucket = new_bucket("options");
  put(bucket, "k.txt", "hello");
  const std::string uri = "s3://" + bucket + "/k.txt";
  const testing::S3Cluster& c = cluster();

  SUBCASE("AWS_ENDPOINT_URL and AWS_* keys from the environment, no secrets") {
    FileBackendOptions o;
    std::map<std::string, std::string> vars{{"AWS_ENDPOINT_URL", c.endpoint},
                                            {"AWS_ACCESS_KEY_ID", c.access_key_id},
                                            {"AWS_SECRET_ACCESS_KEY", c.secret_access_key},
                                            {"AWS_REGION", c.region},
                                            {"AWS_ALLOW_HTTP", "true"}};
    o.environment = objstore::Environment{[vars](const std::string& k) {
                                            auto it = vars.find(k);
                                            return it == vars.end() ? std::optional<std::string>() : it->second;
                                          },
                                          "/nonexistent"};
    FileBackend b(Json::object(), o);
    Driver d(b);
    d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", Json::object()}, {"rules", Json::object()}});
    CHECK(d.state(uri)["size"] == 5);
  }

  SUBCASE("kind defaults' storage_options under a rule's own keys; one store until they change") {
    Fixture f(bucket);
    Json defaults{{"storage_options", cluster_options()}};
    Json rules = Json::object();
    // The rule sets only the secret: everything else comes from [backends.file] storage_options.
    rules["s3://" + bucket + "/"] = Json{{"storage_options", {{"aws_secret_access_key", c.secret_access_key}}}};
    defaults["storage_options"]["secret_access_key"] = "WRONGsecretWRONGsecretWRONGsecret00000000";
    f.d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", defaults}, {"rules", rules}});
    CHECK(f.state(uri)["size"] == 5);
    CHECK(f.state("s3://" + bucket + "/")["count"] == 1);
    CHECK(f.backend.stores_open() == 1);
    // A top-level key of the rule wins over its storage_options.
    rules["s3://" + bucket + "/"]["secret_access_key"] = "WRONGsecretWRONGsecretWRONGsecret00000000";
    f.d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", defaults}, {"rules", rules}});
    CHECK(f.fp(Json{{"uri", uri}}).message.find("access denied") != std::string::npos);
    CHECK(f.backend.stores_open() == 2);
    // Keys that are no store option are ignored; an unknown storage_options key is refused.
    rules["s3://" + bucket + "/"] = Json{{"note", "not an option"}, {"secret_access_key", c.secret_access_key}};
    f.d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", defaults}, {"rules", rules}});
    CHECK(f.state(uri)["size"] == 5);
    rules["s3://" + bucket + "/"]["storage_options"] = Json{{"no_such_option", "x"}};
    f.d.ok(&V::configure, Json{{"cache_dir", ""}, {"checkout", ""}, {"defaults", defaults}, {"rules", rules}});
    Result bad = f.fp(Json{{"uri", uri}});
    CHECK(bad.status == TETHER_E_BACKEND);
    CHECK(bad.message.find("no_such_option") != std::string::npos);
    // Options that cannot be used say nothing about the object: verify fails, it does not
    // call the object missing.
    Result v = f.d.call(&V::verify, Json{{"locator", {{"uri", uri}}},
                                         {"state", {{"type", "object"}, {"size", 5}, {"etag", "e"}}},
                                         {"pin", nullptr},
                                         {"deep", false}});
    CHECK(v.status == TETHER_E_BACKEND);
    CHECK(v.message.find("no_such_option") != std::string::npos);
  }

  SUBCASE("the locator's region is checked: it comes from a committed manifest") {
    Fixture f(bucket);
    CHECK(f.fp(Json{{"uri", uri}, {"region", c.region}}).status == TETHER_OK);
    for (Json evil : {Json("evil.example/x"), Json("US-EAST-1"), Json("a b"), Json(42)}) {
      CAPTURE(evil.dump());
      Result r = f.fp(Json{{"uri", uri}, {"region", evil}});
      CHECK(r.status == TETHER_E_BACKEND);
      CHECK(r.message.rfind("file locator 'region' must be a region name", 0) == 0);
      CHECK(f.d.call(&V::validate_locator, Json{{"locator", {{"uri", uri}, {"region", evil}}}}).status == TETHER_E_BACKEND);
      CHECK(f.d.call(&V::verify, Json{{"locator", {{"uri", uri}, {"region", evil}}},
                                      {"state", {{"type", "prefix"}, {"count", 1}, {"size", 5}, {"digest", "d"}}},
                                      {"pin", nullptr},
                                      {"deep", false}})
                .status == TETHER_E_BACKEND);
    }
  }
}

}  // namespace tether::file::test
