// The S3 API (AWS S3 and compatible stores: Ceph RGW, MinIO, R2; Google Cloud Storage through
// its XML API with HMAC keys), signed with AWS Signature Version 4.
//
// Where the endpoint and the credentials come from (the host-binding rule of docs/security.md):
// the endpoint from the options (secrets.toml) or the user's environment (AWS_ENDPOINT_URL_S3,
// AWS_ENDPOINT_URL), else AWS itself; keys from the options, then the environment
// (AWS_ACCESS_KEY_ID, ...), then the user's AWS profile files; else the requests go unsigned.
// For gs:// only the options' keys are used: AWS credentials never go to Google.
#include <atomic>
#include <ctime>
#include <fstream>
#include <sstream>

#include "crypto.hpp"
#include "stores.hpp"
#include "xml.hpp"

namespace tether::support::objstore {

namespace {

std::optional<std::string> version_of(const std::string& v) {
  if (v.empty() || v == "null") return std::nullopt;
  return v;
}

// S3's encoding-type=url: percent-escapes, and '+' for a space.
std::string url_decode_plus(const std::string& s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    int hi, lo;
    if (s[i] == '+') out += ' ';
    else if (s[i] == '%' && i + 2 < s.size() && (hi = hex(s[i + 1])) >= 0 && (lo = hex(s[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else out += s[i];
  }
  return out;
}

std::string amz_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

bool valid_region(const std::string& r) {
  if (r.empty() || r.size() > 40) return false;
  for (char c : r)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

// ~/.aws/credentials and ~/.aws/config: `[name]` / `[profile name]` sections of key = value.
std::map<std::string, std::string> read_profile(const std::string& path, const std::string& profile, bool config_file) {
  std::map<std::string, std::string> out;
  std::ifstream f(path);
  if (!f) return out;
  std::string line, section;
  bool in = false;
  std::size_t lines = 0;
  while (std::getline(f, line) && ++lines < 100000) {
    auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#' || line[b] == ';') continue;
    auto e = line.find_last_not_of(" \t\r");
    line = line.substr(b, e - b + 1);
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      auto sb = section.find_first_not_of(" \t");
      auto se = section.find_last_not_of(" \t");
      section = sb == std::string::npos ? "" : section.substr(sb, se - sb + 1);
      std::string want = config_file && profile != "default" ? "profile " + profile : profile;
      in = section == want;
      continue;
    }
    if (!in) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    k = k.substr(0, k.find_last_not_of(" \t") + 1);
    auto vb = v.find_first_not_of(" \t");
    v = vb == std::string::npos ? "" : v.substr(vb);
    out[k] = v;
  }
  return out;
}

struct Credentials {
  std::string access_key_id, secret_access_key, session_token;
  std::string source;  // for messages: where they came from (never the values)
};

}  // namespace

// ---- the answers' XML, parsed (fuzz/objstore.cpp feeds these hostile bytes) ----------------

namespace {

XmlElement answer_document(const std::string& body, const std::string& where, const char* root_name) {
  std::string why;
  auto doc = parse_xml(body, &why);
  if (!doc) throw StoreError(ErrorKind::BadAnswer, where + ": the store's answer cannot be read: not XML (" + why + ")");
  if (doc->name != root_name)
    throw StoreError(ErrorKind::BadAnswer,
                     where + ": the store's answer cannot be read: expected " + root_name + ", got " + tame(doc->name, 40));
  return std::move(*doc);
}

[[noreturn]] void unreadable(const std::string& where, const std::string& why) {
  throw StoreError(ErrorKind::BadAnswer, where + ": the store's answer cannot be read: " + why);
}

}  // namespace

ListPage parse_s3_list(const std::string& body, const std::string& where) {
  XmlElement doc = answer_document(body, where, "ListBucketResult");
  bool encoded = doc.child_text("EncodingType") == "url";
  auto decode = [&](const std::string& s) { return encoded ? url_decode_plus(s) : s; };
  ListPage page;
  for (const XmlElement& e : doc.children) {
    if (e.name == "Contents") {
      ObjectMeta m;
      m.key = decode(e.child_text("Key"));
      auto size = parse_size(e.child_text("Size"));
      if (!size) unreadable(where, "an entry has no valid Size");
      m.size = *size;
      m.etag = strip_quotes(e.child_text("ETag"));
      m.last_modified = e.child_text("LastModified");
      page.objects.push_back(std::move(m));
    } else if (e.name == "CommonPrefixes") {
      page.common_prefixes.push_back(decode(e.child_text("Prefix")));
    }
  }
  if (doc.child_text("IsTruncated") == "true") {
    std::string next = doc.child_text("NextContinuationToken");
    if (next.empty()) unreadable(where, "a truncated listing without a continuation token");
    page.next = next;
  }
  return page;
}

S3VersionPage parse_s3_versions(const std::string& body, const std::string& where) {
  XmlElement doc = answer_document(body, where, "ListVersionsResult");
  bool encoded = doc.child_text("EncodingType") == "url";
  auto decode = [&](const std::string& s) { return encoded ? url_decode_plus(s) : s; };
  S3VersionPage page;
  for (const XmlElement& e : doc.children) {
    if (e.name != "Version" && e.name != "DeleteMarker") continue;
    ObjectMeta m;
    m.key = decode(e.child_text("Key"));
    m.version_id = version_of(e.child_text("VersionId"));
    m.is_latest = e.child_text("IsLatest") == "true";
    m.last_modified = e.child_text("LastModified");
    m.delete_marker = e.name == "DeleteMarker";
    if (!m.delete_marker) {
      auto size = parse_size(e.child_text("Size"));
      if (!size) unreadable(where, "a version has no valid Size");
      m.size = *size;
      m.etag = strip_quotes(e.child_text("ETag"));
    }
    page.versions.push_back(std::move(m));
  }
  if (doc.child_text("IsTruncated") == "true") {
    std::pair<std::string, std::string> next{decode(doc.child_text("NextKeyMarker")), doc.child_text("NextVersionIdMarker")};
    if (next.first.empty()) unreadable(where, "a truncated version listing without a key marker");
    page.next = std::move(next);
  }
  return page;
}

namespace {

class S3Store final : public Store {
 public:
  S3Store(const Location& loc, const Options& options, const Environment& env)
      : loc_(loc) {
    HttpSettings settings = http_settings(options);
    bool gcs = loc.service == Service::Gcs;
    auto env_get = [&](const char* name) -> std::string {
      if (!env.getenv) return {};
      auto v = env.getenv(name);
      return v ? *v : std::string();
    };
    auto opt = [&](const char* name) -> std::string {
      const std::string* v = options.find(name);
      return v ? *v : std::string();
    };
    std::string profile = opt("profile");
    if (profile.empty() && !gcs) profile = env_get("AWS_PROFILE");
    if (profile.empty()) profile = "default";
    std::string home = env.home;
    std::string cred_file = env_get("AWS_SHARED_CREDENTIALS_FILE");
    if (cred_file.empty() && !home.empty()) cred_file = home + "/.aws/credentials";
    std::string config_file = env_get("AWS_CONFIG_FILE");
    if (config_file.empty() && !home.empty()) config_file = home + "/.aws/config";
    bool explicit_profile = options.find("profile") != nullptr;

    // Keys.
    if (!opt("access_key_id").empty() || !opt("secret_access_key").empty()) {
      creds_ = {opt("access_key_id"), opt("secret_access_key"), opt("session_token"), "the store options"};
    } else if (!gcs) {
      auto from_profile = [&]() -> bool {
        auto p = read_profile(cred_file, profile, false);
        if (p["aws_access_key_id"].empty()) p = read_profile(config_file, profile, true);
        if (p["aws_access_key_id"].empty()) return false;
        creds_ = {p["aws_access_key_id"], p["aws_secret_access_key"], p["aws_session_token"], "AWS profile '" + profile + "'"};
        return true;
      };
      if (!(explicit_profile && from_profile())) {
        if (!env_get("AWS_ACCESS_KEY_ID").empty())
          creds_ = {env_get("AWS_ACCESS_KEY_ID"), env_get("AWS_SECRET_ACCESS_KEY"), env_get("AWS_SESSION_TOKEN"),
                    "$AWS_ACCESS_KEY_ID"};
        else from_profile();
      }
    }
    if (options.flag("skip_signature")) creds_ = {};
    if (!creds_.access_key_id.empty() && creds_.secret_access_key.empty())
      throw StoreError(ErrorKind::Config, loc_.root() + ": an access key id without a secret access key (from " +
                                              creds_.source + ")");

    // Region.
    region_ = opt("region");
    if (region_.empty() && !gcs) region_ = env_get("AWS_REGION");
    if (region_.empty() && !gcs) region_ = env_get("AWS_DEFAULT_REGION");
    if (region_.empty() && !gcs) region_ = read_profile(config_file, profile, true)["region"];
    if (region_.empty()) region_ = gcs ? "auto" : "us-east-1";
    if (!valid_region(region_)) throw StoreError(ErrorKind::Config, loc_.root() + ": '" + tame(region_) + "' is not a region name");

    // Endpoint.
    std::string endpoint = opt("endpoint");
    bool custom = !endpoint.empty();
    if (!custom && !gcs) {
      endpoint = env_get("AWS_ENDPOINT_URL_S3");
      if (endpoint.empty()) endpoint = env_get("AWS_ENDPOINT_URL");
      custom = !endpoint.empty();
    }
    if (!custom) endpoint = gcs ? "https://storage.googleapis.com" : "https://s3." + region_ + ".amazonaws.com";
    parse_endpoint(endpoint);
    if (!options.find("allow_http") && !gcs && env_get("AWS_ALLOW_HTTP") == "true") settings.allow_http = true;
    if (endpoint_scheme_ == "http" && !settings.allow_http)
      throw StoreError(ErrorKind::Config, loc_.root() + ": the endpoint is http://, which sends requests in the clear; "
                                                        "set allow_http = true in the store options to allow it");
    http_ = std::make_unique<Http>(settings);
    // Path-style for a custom endpoint (Ceph, MinIO) unless asked otherwise; virtual-hosted for
    // AWS, except for bucket names with dots (they break the TLS name check).
    if (options.find("virtual_hosted_style_request")) path_style_ = !options.flag("virtual_hosted_style_request");
    else path_style_ = custom || gcs || loc_.bucket.find('.') != std::string::npos;
    const std::string* cp = options.find("conditional_put");
    conditional_ = !(cp && (*cp == "disabled" || *cp == "none"));
  }

  std::string root() const override { return loc_.root(); }

  std::optional<ObjectMeta> head(const std::string& key, const std::optional<std::string>& version) override {
    std::map<std::string, std::string> q;
    if (version) q["versionId"] = *version;
    HttpAnswer a = send("HEAD", key, q, {}, {}, true);
    if (a.status == 404 || (version && a.status == 400)) {
      check_bucket();
      return std::nullopt;
    }
    if (a.status < 200 || a.status > 299) throw failure(a, "HEAD", key);
    return meta_of(a, key);
  }

  std::optional<std::string> fetch(const std::string& key, const std::optional<Range>& range,
                                   const std::optional<std::string>& version, ObjectMeta* meta) override {
    std::map<std::string, std::string> q;
    if (version) q["versionId"] = *version;
    std::vector<std::pair<std::string, std::string>> h;
    if (range) h.emplace_back("range", range_header(*range));
    HttpAnswer a = send("GET", key, q, h, {}, false);
    if (a.status == 404 || (version && a.status == 400 && error_code(a) == "InvalidArgument")) {
      if (error_code(a) == "NoSuchBucket") throw failure(a, "GET", key);
      return std::nullopt;
    }
    if (a.status == 416) {
      if (meta) *meta = meta_of(a, key);
      return std::string();
    }
    if (a.status < 200 || a.status > 299) throw failure(a, "GET", key);
    if (meta) {
      *meta = meta_of(a, key);
      // A ranged answer's Content-Length is the range's: the object's size follows the '/'.
      meta->size = total_size(a, meta->size);
    }
    return std::move(a.body);
  }

  PutResult put(const std::string& key, std::string_view body, const PutCondition& c) override {
    std::vector<std::pair<std::string, std::string>> h;
    if (c.kind != PutCondition::Kind::Always && !conditional_)
      throw StoreError(ErrorKind::Unsupported, where(key) + ": conditional writes are disabled for this store (conditional_put)");
    if (c.kind == PutCondition::Kind::IfAbsent) h.emplace_back("if-none-match", "*");
    if (c.kind == PutCondition::Kind::IfMatch) h.emplace_back("if-match", strip_quotes(c.etag));
    int attempts = 1;
    HttpAnswer a = send("PUT", key, {}, h, body, false, false, &attempts);
    if (a.status == 412 || (a.status == 409 && c.kind != PutCondition::Kind::Always))
      return settle_refused_put(attempts, a.status, c, body, where(key),
                                [&](ObjectMeta& now) { return get(key, std::nullopt, std::nullopt, &now); });
    if (a.status < 200 || a.status > 299) throw failure(a, "PUT", key);
    return PutResult{strip_quotes(header(a, "etag")), version_of(header(a, "x-amz-version-id"))};
  }

  void remove(const std::string& key, const std::optional<std::string>& version) override {
    std::map<std::string, std::string> q;
    if (version) q["versionId"] = *version;
    HttpAnswer a = send("DELETE", key, q, {}, {}, false);
    if (a.status == 404 && error_code(a) != "NoSuchBucket") return;
    if (a.status < 200 || a.status > 299) throw failure(a, "DELETE", key);
  }

  ListPage list_page(const std::string& prefix, const std::string& delimiter,
                     const std::optional<std::string>& continuation) override {
    std::map<std::string, std::string> q{{"list-type", "2"}, {"encoding-type", "url"}};
    if (!prefix.empty()) q["prefix"] = prefix;
    if (!delimiter.empty()) q["delimiter"] = delimiter;
    if (continuation) q["continuation-token"] = *continuation;
    HttpAnswer a = send("GET", "", q, {}, {}, false, /*bucket_level=*/true);
    if (a.status < 200 || a.status > 299) throw failure(a, "LIST", prefix);
    return parse_s3_list(a.body, where(prefix));
  }

  void create_bucket() override {
    std::string body;
    if (region_ != "us-east-1" && loc_.service == Service::S3)
      body = "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>" +
             region_ + "</LocationConstraint></CreateBucketConfiguration>";
    HttpAnswer a = send("PUT", "", {}, {}, body, false, true);
    if (a.status == 409 && error_code(a) == "BucketAlreadyOwnedByYou") return;
    if (a.status < 200 || a.status > 299) throw failure(a, "CREATE BUCKET", "");
  }

  std::vector<ObjectMeta> list_versions(const std::string& prefix) override {
    std::vector<ObjectMeta> out;
    std::optional<std::pair<std::string, std::string>> marker;
    for (std::size_t pages = 0;; ++pages) {
      std::map<std::string, std::string> q{{"versions", ""}, {"encoding-type", "url"}};
      if (!prefix.empty()) q["prefix"] = prefix;
      if (marker) {
        q["key-marker"] = marker->first;
        if (!marker->second.empty()) q["version-id-marker"] = marker->second;
      }
      HttpAnswer a = send("GET", "", q, {}, {}, false, true);
      if (a.status < 200 || a.status > 299) throw failure(a, "LIST VERSIONS", prefix);
      S3VersionPage page = parse_s3_versions(a.body, where(prefix));
      for (auto& m : page.versions) out.push_back(std::move(m));
      if (!page.next) break;
      if ((marker && *marker == *page.next) || pages > 1'000'000)
        throw bad_answer(prefix, "a truncated version listing that does not move on");
      marker = std::move(page.next);
    }
    return out;
  }

 private:
  void parse_endpoint(const std::string& endpoint) {
    auto sep = endpoint.find("://");
    std::string scheme = sep == std::string::npos ? "" : endpoint.substr(0, sep);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "http" && scheme != "https")
      throw StoreError(ErrorKind::Config, loc_.root() + ": the endpoint must be an http:// or https:// URL");
    std::string rest = endpoint.substr(sep + 3);
    auto slash = rest.find('/');
    std::string host = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (host.empty() || host.find('@') != std::string::npos ||
        host.find_first_of(" \t\r\n?#\\") != std::string::npos || path.find_first_of(" \t\r\n?#\\") != std::string::npos)
      throw StoreError(ErrorKind::Config, loc_.root() + ": the endpoint is not a plain http(s)://host[:port] URL");
    for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    endpoint_scheme_ = scheme;
    endpoint_host_ = host;
    endpoint_path_ = path;
  }

  std::string where(const std::string& key) const { return loc_.root() + "/" + key; }

  HttpAnswer send(const std::string& method, const std::string& key, const std::map<std::string, std::string>& query,
                  const std::vector<std::pair<std::string, std::string>>& extra, std::string_view body, bool head,
                  bool bucket_level = false, int* attempts = nullptr) {
    std::string host = path_style_ ? endpoint_host_ : loc_.bucket + "." + endpoint_host_;
    std::string path = endpoint_path_ + (path_style_ ? "/" + loc_.bucket : std::string()) + "/" +
                       (bucket_level ? std::string() : uri_encode(key, true));
    std::string qs;
    for (const auto& [k, v] : query)
      qs += (qs.empty() ? "?" : "&") + uri_encode(k, false) + (v.empty() ? std::string() : "=" + uri_encode(v, false));
    std::string url = endpoint_scheme_ + "://" + host + path + qs;
    std::string payload_hash = sha256_hex(body);
    auto make = [&]() {
      HttpRequest r;
      r.method = method;
      r.url = url;
      r.head = head;
      r.body = body;
      r.headers.emplace_back("host", host);
      for (const auto& h : extra) r.headers.push_back(h);
      if (!creds_.access_key_id.empty()) {
        SigV4Request s;
        s.method = method;
        s.host = host;
        s.path = path;
        s.query = query;
        for (const auto& [k, v] : extra) s.headers[k] = v;
        s.payload_sha256 = payload_hash;
        std::string auth = sigv4_authorization(s, creds_.access_key_id, creds_.secret_access_key, creds_.session_token,
                                               region_, "s3", amz_now());
        for (const auto& [k, v] : s.headers)
          if (k.rfind("x-amz-", 0) == 0) r.headers.emplace_back(k, v);
        r.headers.emplace_back("authorization", auth);
      }
      return r;
    };
    return http_->exchange(make, method + " " + where(key), attempts);
  }

  static std::string error_code(const HttpAnswer& a) {
    if (a.body.empty()) return {};
    auto doc = parse_xml(a.body);
    if (!doc || doc->name != "Error") return {};
    return doc->child_text("Code");
  }

  // The bucket exists? Asked once, after an object was not found, so that a missing bucket
  // is reported as such rather than as a missing object.
  void check_bucket() {
    if (bucket_checked_) return;
    HttpAnswer a = send("HEAD", "", {}, {}, {}, true, true);
    if (a.status == 404)
      throw StoreError(ErrorKind::NoBucket, loc_.root() + ": the bucket does not exist (or the endpoint is not the one that holds it)", 404);
    if (a.status >= 200 && a.status <= 299) bucket_checked_ = true;
  }

  StoreError bad_answer(const std::string& key, const std::string& why) const {
    return StoreError(ErrorKind::BadAnswer, where(key) + ": the store's answer cannot be read: " + why);
  }

  ObjectMeta meta_of(const HttpAnswer& a, const std::string& key) const {
    ObjectMeta m;
    m.key = key;
    m.etag = strip_quotes(header(a, "etag"));
    m.version_id = version_of(header(a, "x-amz-version-id"));
    m.last_modified = header(a, "last-modified");
    if (auto size = parse_size(header(a, "content-length"))) m.size = *size;
    return m;
  }

  StoreError failure(const HttpAnswer& a, const std::string& op, const std::string& key) const {
    std::string code, message;
    if (auto doc = parse_xml(a.body); doc && doc->name == "Error") {
      code = doc->child_text("Code");
      message = doc->child_text("Message");
    }
    std::string status = "HTTP " + std::to_string(a.status) + (code.empty() ? "" : " " + tame(code, 60));
    std::string what = op + " " + where(key);
    std::string creds = creds_.access_key_id.empty() ? "no credentials (unsigned requests)" : "credentials from " + creds_.source;
    if (code == "NoSuchBucket")
      return StoreError(ErrorKind::NoBucket, what + ": the bucket does not exist (" + status + ")", a.status);
    if (a.status == 401 || a.status == 403 || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch")
      return StoreError(ErrorKind::Auth, what + ": access denied (" + status + "; " + creds + ")", a.status);
    if (a.status == 301 || a.status == 307 || code == "AuthorizationHeaderMalformed" || code == "PermanentRedirect") {
      std::string region = tame(header(a, "x-amz-bucket-region"), 40);
      return StoreError(ErrorKind::Config,
                        what + ": the bucket is in another region" + (region.empty() ? "" : " (" + region + ")") +
                            "; set region in the store options (" + status + ")",
                        a.status);
    }
    if (a.status == 404) return StoreError(ErrorKind::NotFound, what + ": not found (" + status + ")", a.status);
    return StoreError(ErrorKind::Other, what + ": " + status + (message.empty() ? "" : ": " + tame(message)), a.status);
  }

  Location loc_;
  std::unique_ptr<Http> http_;
  Credentials creds_;
  std::string region_;
  std::string endpoint_scheme_, endpoint_host_, endpoint_path_;
  bool path_style_ = true;
  bool conditional_ = true;
  std::atomic<bool> bucket_checked_{false};
};

}  // namespace

std::unique_ptr<Store> open_s3(const Location& location, const Options& options, const Environment& env) {
  return std::make_unique<S3Store>(location, options, env);
}

}  // namespace tether::support::objstore
