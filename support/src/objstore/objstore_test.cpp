// The object-store client's offline parts: URLs (hostile ones included), option spellings,
// SigV4 against AWS's published example, the bounded XML reader. The exchanges with a real
// store are in objstore_s3_test.cpp.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tether/support/objstore.hpp"
#include "tether/testing/objstore.hpp"
#include "xml.hpp"

using namespace tether::support::objstore;

using tether::testing::kind_of;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const StoreError& e) {
    return e.what();
  }
  FAIL("no StoreError");
  return {};
}

Environment empty_env() {
  Environment e;
  e.getenv = [](const std::string&) { return std::optional<std::string>(); };
  return e;
}

}  // namespace

TEST_CASE("object-store URLs: bucket, key, and the root messages name") {
  auto l = parse_location("s3://my-bucket/raw/2024/a b.csv");
  REQUIRE(l);
  CHECK(l->service == Service::S3);
  CHECK(l->bucket == "my-bucket");
  CHECK(l->key == "raw/2024/a b.csv");
  CHECK(l->root() == "s3://my-bucket");
  CHECK(parse_location("s3://bkt")->key == "");
  CHECK(parse_location("s3://bkt/")->key == "");
  CHECK(parse_location("S3A://bkt/p/")->key == "p/");
  CHECK(parse_location("s3://bkt/x%20y")->key == "x y");
  CHECK(parse_location("gs://my_bucket/k")->service == Service::Gcs);
  auto az = parse_location("abfss://data@myaccount.dfs.core.windows.net/dir/f");
  REQUIRE(az);
  CHECK(az->service == Service::Azure);
  CHECK(az->bucket == "data");
  CHECK(az->account == "myaccount");
  CHECK(az->key == "dir/f");
  auto h = parse_location("https://example.org/files/a.csv?sig=1");
  REQUIRE(h);
  CHECK(h->service == Service::Http);
  CHECK(h->key == "files/a.csv?sig=1");
  CHECK_FALSE(parse_location("/local/path"));
  CHECK_FALSE(parse_location("file:///local/path"));
  CHECK_FALSE(parse_location("ftp://host/x"));
}

TEST_CASE("object-store URLs a manifest could use to reach another host or key are refused") {
  // The bucket becomes part of a host name (virtual-hosted requests): nothing but a-z0-9.-
  for (const char* uri : {"s3://evil.com#/x", "s3://evil.com:80/x", "s3://user@bucket/x", "s3://BUCKET/x",
                          "s3://b/x", "s3://-bucket/x", "s3://bu%63ket/x", "s3://bucket?x=1/k", "s3://bucket/k?versionId=1",
                          "s3://bucket/../other/k", "s3://bucket/a/./b", "s3://bucket/a/%2e%2e/b", "s3://bucket/a%00b",
                          "s3://bucket/%zz", "s3:///key", "az://UPPER/x", "abfs://c@evil.com:1@x/y",
                          "https://user:pw@host/x", "https://ho st/x"}) {
    CAPTURE(uri);
    CHECK(kind_of([&] { parse_location(uri); }) == ErrorKind::Config);
  }
  CHECK(message_of([] { parse_location("s3://bucket/../x"); }).find("s3://bucket/../x") != std::string::npos);
}

TEST_CASE("store options: the reference's spellings, any case, with their prefixes") {
  CHECK(canonical_option("AWS_ACCESS_KEY_ID") == "access_key_id");
  CHECK(canonical_option("aws_endpoint_url") == "endpoint");
  CHECK(canonical_option("Endpoint") == "endpoint");
  CHECK(canonical_option("aws_session_token") == "session_token");
  CHECK(canonical_option("token") == "session_token");
  CHECK(canonical_option("azure_storage_account_key") == "account_key");
  CHECK(canonical_option("azure_storage_sas_key") == "sas_token");
  CHECK(canonical_option("google_allow_http") == "allow_http");
  CHECK_FALSE(canonical_option("bucket_policy"));
  Options o = options_from(nlohmann::json{{"AWS_REGION", "eu-west-1"},
                                          {"allow_http", true},
                                          {"connect_timeout", 2},
                                          {"timeout", "500ms"},
                                          {"virtual_hosted_style_request", "TRUE"}},
                           "storage_options");
  CHECK(*o.find("region") == "eu-west-1");
  CHECK(o.flag("allow_http"));
  CHECK(o.flag("virtual_hosted_style_request"));
  CHECK(*o.find("connect_timeout") == "2000ms");
  CHECK(*o.find("timeout") == "500ms");
  CHECK(message_of([] { options_from(nlohmann::json{{"endpoint_host", "x"}}, "storage_options"); }) ==
        "unknown store option storage_options.endpoint_host");
  CHECK(kind_of([] { options_from(nlohmann::json{{"allow_http", "yes"}}, "o"); }) == ErrorKind::Config);
  CHECK(kind_of([] { options_from(nlohmann::json{{"region", 3}}, "o"); }) == ErrorKind::Config);
  CHECK(kind_of([] { options_from(nlohmann::json{{"timeout", "soon"}}, "o"); }) == ErrorKind::Config);
  CHECK(kind_of([] { options_from(nlohmann::json::array(), "o"); }) == ErrorKind::Config);
}

TEST_CASE("SigV4: AWS's published GET Object example signs to AWS's signature") {
  // docs.aws.amazon.com, "Signature Calculations for the Authorization Header: Transferring
  // Payload in a Single Chunk", Example: GET Object.
  SigV4Request r;
  r.method = "GET";
  r.host = "examplebucket.s3.amazonaws.com";
  r.path = "/test.txt";
  r.headers["range"] = "bytes=0-9";
  r.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  std::string auth = sigv4_authorization(r, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "",
                                         "us-east-1", "s3", "20130524T000000Z");
  CHECK(auth ==
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  CHECK(r.headers["x-amz-date"] == "20130524T000000Z");
}

TEST_CASE("SigV4: AWS's published GET Bucket lifecycle and list examples (query strings)") {
  SigV4Request r;
  r.method = "GET";
  r.host = "examplebucket.s3.amazonaws.com";
  r.path = "/";
  r.query = {{"max-keys", "2"}, {"prefix", "J"}};
  r.payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  std::string auth = sigv4_authorization(r, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "",
                                         "us-east-1", "s3", "20130524T000000Z");
  CHECK(auth.substr(auth.find("Signature=")) ==
        "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  SigV4Request lc;
  lc.method = "GET";
  lc.host = "examplebucket.s3.amazonaws.com";
  lc.path = "/";
  lc.query = {{"lifecycle", ""}};
  lc.payload_sha256 = r.payload_sha256;
  auth = sigv4_authorization(lc, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", "us-east-1",
                             "s3", "20130524T000000Z");
  CHECK(auth.substr(auth.find("Signature=")) ==
        "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST_CASE("uri_encode keeps unreserved characters and, on request, slashes") {
  CHECK(uri_encode("a b/c~d_e.f-g", true) == "a%20b/c~d_e.f-g");
  CHECK(uri_encode("a b/c", false) == "a%20b%2Fc");
  CHECK(uri_encode("é+=&?#", false) == "%C3%A9%2B%3D%26%3F%23");
}

TEST_CASE("opening an S3 store: the endpoint and keys come from options or the environment, never the URL") {
  Location l = *parse_location("s3://bucket/k");
  // An http endpoint needs allow_http.
  Options o;
  o.values["endpoint"] = "http://127.0.0.1:9";
  CHECK(message_of([&] { open(l, o, empty_env()); }).find("allow_http") != std::string::npos);
  o.values["endpoint"] = "ftp://127.0.0.1:9";
  CHECK(kind_of([&] { open(l, o, empty_env()); }) == ErrorKind::Config);
  o.values["endpoint"] = "https://user:pw@127.0.0.1:9";
  CHECK(kind_of([&] { open(l, o, empty_env()); }) == ErrorKind::Config);
  Options bad_region;
  bad_region.values["region"] = "evil.com/x#";
  CHECK(kind_of([&] { open(l, bad_region, empty_env()); }) == ErrorKind::Config);
  Options half;
  half.values["access_key_id"] = "AKIA";
  std::string m = message_of([&] { open(l, half, empty_env()); });
  CHECK(m.find("without a secret access key") != std::string::npos);
}

TEST_CASE("the XML reader: well-formed answers only, bounded, no entities") {
  auto doc = parse_xml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Contents><Key>a&amp;b</Key><Size>3</Size></Contents><IsTruncated>false</IsTruncated>"
      "</ListBucketResult>");
  REQUIRE(doc);
  CHECK(doc->name == "ListBucketResult");
  CHECK(doc->child("Contents")->child_text("Key") == "a&b");
  CHECK(doc->child_text("Missing") == "");
  std::string why;
  CHECK_FALSE(parse_xml("<a><b></a>", &why));
  CHECK_FALSE(why.empty());
  CHECK_FALSE(parse_xml("", &why));
  CHECK_FALSE(parse_xml("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", &why));
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  CHECK_FALSE(parse_xml(deep, &why));
  CHECK(why == "nested too deeply");
  std::string laughs = "<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><l>&b;</l>";
  CHECK_FALSE(parse_xml(laughs, &why));
}

TEST_CASE("options from a plugin's settings: storage_options, then the rule's own option keys") {
  nlohmann::json settings{{"storage_options", {{"region", "eu-west-1"}, {"allow_http", true}}},
                          {"endpoint", "http://127.0.0.1:7480"},
                          {"AWS_ACCESS_KEY_ID", "AK"},
                          {"hosts", nlohmann::json::array({"db"})}};
  Options o = options_from_settings(settings, "secrets");
  CHECK(*o.find("region") == "eu-west-1");
  CHECK(*o.find("endpoint") == "http://127.0.0.1:7480");
  CHECK(*o.find("access_key_id") == "AK");
  CHECK_FALSE(o.find("hosts"));
  CHECK(message_of([] { options_from_settings(nlohmann::json{{"storage_options", {{"colour", "red"}}}}, "secrets"); }) ==
        "unknown store option secrets.storage_options.colour");
  CHECK(options_from_settings(nlohmann::json(), "x").values.empty());
}

TEST_CASE("explain: the way out for refused keys, no endpoint, no bucket") {
  std::string auth = explain(StoreError(ErrorKind::Auth, "HEAD s3://b/k: access denied (HTTP 403)"), "s3://bkt/p/k");
  CHECK(auth ==
        "HEAD s3://b/k: access denied (HTTP 403); give the store's keys in .tether/secrets.toml [uris.\"s3://bkt/\"] "
        "(access_key_id, secret_access_key) or in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY");
  CHECK(explain(StoreError(ErrorKind::Unreachable, "m"), "s3://bkt/k").find("AWS_ENDPOINT_URL") != std::string::npos);
  CHECK(explain(StoreError(ErrorKind::NoBucket, "m"), "s3://bkt/k").find("create it") != std::string::npos);
  CHECK(explain(StoreError(ErrorKind::Other, "m"), "s3://bkt/k") == "m");
  // Azure's own keys and variables, no AWS_* ones.
  CHECK(explain(StoreError(ErrorKind::Auth, "m"), "az://ctr/k") ==
        "m; give the store's keys in .tether/secrets.toml [uris.\"az://ctr/\"] (account_name, account_key or "
        "sas_token) or in AZURE_STORAGE_ACCOUNT_NAME / AZURE_STORAGE_ACCOUNT_KEY / AZURE_STORAGE_SAS_TOKEN");
  CHECK(explain(StoreError(ErrorKind::Unreachable, "m"), "az://ctr/k") ==
        "m; check the endpoint: `endpoint` in .tether/secrets.toml [uris.\"az://ctr/\"]");
  CHECK(explain(StoreError(ErrorKind::NoBucket, "m"), "az://ctr/k").find("AWS") == std::string::npos);
  // An account in the URL is part of the rule that matches it.
  CHECK(explain(StoreError(ErrorKind::Unreachable, "m"), "abfss://ctr@acct.dfs.core.windows.net/k") ==
        "m; check the endpoint: `endpoint` in .tether/secrets.toml [uris.\"abfss://ctr@acct.dfs.core.windows.net/\"]");
}
