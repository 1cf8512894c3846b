// Azure Blob storage through its REST API (az://container/path, abfs(s)://container@account...),
// signed with SharedKey (HMAC-SHA256 of the canonical request) or carrying a SAS token.
//
// Where the account, endpoint and key come from: the account from the options, else the URL
// (abfs), else AZURE_STORAGE_ACCOUNT_NAME / AZURE_STORAGE_ACCOUNT; the endpoint from the
// options (`endpoint`, or `use_emulator` for Azurite on 127.0.0.1:10000), else
// https://<account>.blob.core.windows.net; the key or SAS token from the options, else the
// environment -- and the environment's only for the account the environment names, so a URL
// cannot choose an account that receives the user's ambient key.
#include <sodium.h>

#include <atomic>
#include <ctime>

#include "crypto.hpp"
#include "stores.hpp"
#include "xml.hpp"

namespace tether::support::objstore {

namespace {

constexpr const char* kApiVersion = "2021-12-02";
constexpr const char* kEmulatorAccount = "devstoreaccount1";

std::string rfc1123_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::optional<std::string> base64_decode(const std::string& s) {
  std::string out(s.size(), '\0');
  std::size_t n = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), s.c_str(), s.size(), " \n", &n,
                        nullptr, sodium_base64_VARIANT_ORIGINAL) != 0)
    return std::nullopt;
  out.resize(n);
  return out;
}

std::string base64_encode(const std::string& s) {
  std::string out(sodium_base64_encoded_len(s.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(s.data()), s.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

}  // namespace

ListPage parse_azure_list(const std::string& body, const std::string& where, bool versions) {
  std::string why;
  auto doc = parse_xml(body, &why);
  if (!doc || doc->name != "EnumerationResults")
    throw StoreError(ErrorKind::BadAnswer,
                     where + ": the store's answer cannot be read: " + (doc ? "expected EnumerationResults" : why));
  ListPage page;
  if (const XmlElement* blobs = doc->child("Blobs")) {
    for (const XmlElement& b : blobs->children) {
      if (b.name == "BlobPrefix") {
        page.common_prefixes.push_back(b.child_text("Name"));
        continue;
      }
      if (b.name != "Blob") continue;
      ObjectMeta m;
      m.key = b.child_text("Name");
      const XmlElement* p = b.child("Properties");
      auto size = p ? parse_size(p->child_text("Content-Length")) : std::nullopt;
      if (!size)
        throw StoreError(ErrorKind::BadAnswer, where + ": the store's answer cannot be read: a blob has no valid size");
      m.size = *size;
      m.etag = strip_quotes(p->child_text("Etag"));
      m.last_modified = p->child_text("Last-Modified");
      std::string v = b.child_text("VersionId");
      if (!v.empty()) m.version_id = v;
      if (versions) m.is_latest = b.child_text("IsCurrentVersion") == "true";
      page.objects.push_back(std::move(m));
    }
  }
  std::string next = doc->child_text("NextMarker");
  if (!next.empty()) page.next = next;
  return page;
}

namespace {

class AzureStore final : public Store {
 public:
  AzureStore(const Location& loc, const Options& options, const Environment& env) : loc_(loc) {
    HttpSettings settings = http_settings(options);
    auto env_get = [&](const char* name) -> std::string {
      if (!env.getenv) return {};
      auto v = env.getenv(name);
      return v ? *v : std::string();
    };
    auto opt = [&](const char* name) -> std::string {
      const std::string* v = options.find(name);
      return v ? *v : std::string();
    };
    bool emulator = options.flag("use_emulator");
    std::string env_account = env_get("AZURE_STORAGE_ACCOUNT_NAME");
    if (env_account.empty()) env_account = env_get("AZURE_STORAGE_ACCOUNT");
    account_ = opt("account_name");
    if (account_.empty()) account_ = loc.account;
    if (account_.empty()) account_ = emulator ? kEmulatorAccount : env_account;
    if (account_.empty())
      throw StoreError(ErrorKind::Config, loc.root() + ": no storage account: set account_name in the store options "
                                                       "or AZURE_STORAGE_ACCOUNT_NAME");
    for (char c : account_)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
        throw StoreError(ErrorKind::Config, loc.root() + ": '" + tame(account_, 40) + "' is not a storage account name");

    std::string key = opt("account_key");
    sas_ = opt("sas_token");
    source_ = "the store options";
    if (key.empty() && sas_.empty() && account_ == env_account) {
      key = env_get("AZURE_STORAGE_ACCOUNT_KEY");
      if (key.empty()) key = env_get("AZURE_STORAGE_KEY");
      sas_ = env_get("AZURE_STORAGE_SAS_TOKEN");
      source_ = "the AZURE_STORAGE_* variables";
    }
    if (!key.empty()) {
      auto raw = base64_decode(key);
      if (!raw) throw StoreError(ErrorKind::Config, loc.root() + ": the account key (from " + source_ + ") is not base64");
      key_ = *raw;
    }
    if (!sas_.empty() && sas_.front() == '?') sas_.erase(0, 1);
    if (sas_.find_first_of("#\r\n ") != std::string::npos)
      throw StoreError(ErrorKind::Config, loc.root() + ": the SAS token is not a query string");

    std::string endpoint = opt("endpoint");
    if (endpoint.empty() && emulator) endpoint = "http://127.0.0.1:10000/" + account_;
    if (endpoint.empty()) endpoint = "https://" + account_ + ".blob.core.windows.net";
    auto sep = endpoint.find("://");
    std::string scheme = sep == std::string::npos ? "" : endpoint.substr(0, sep);
    if (scheme != "http" && scheme != "https")
      throw StoreError(ErrorKind::Config, loc.root() + ": the endpoint must be an http:// or https:// URL");
    if (endpoint.find('@') != std::string::npos || endpoint.find_first_of(" \t\r\n?#\\") != std::string::npos)
      throw StoreError(ErrorKind::Config, loc.root() + ": the endpoint is not a plain http(s)://host[:port][/path] URL");
    while (endpoint.back() == '/') endpoint.pop_back();
    if (scheme == "http" && !settings.allow_http && !emulator)
      throw StoreError(ErrorKind::Config, loc.root() + ": the endpoint is http://, which sends requests in the clear; "
                                                       "set allow_http = true in the store options to allow it");
    if (scheme == "http") settings.allow_http = true;
    auto path_at = endpoint.find('/', sep + 3);
    base_ = endpoint;
    base_path_ = path_at == std::string::npos ? "" : endpoint.substr(path_at);
    http_ = std::make_unique<Http>(settings);
  }

  std::string root() const override { return loc_.root(); }

  std::optional<ObjectMeta> head(const std::string& key, const std::optional<std::string>& version) override {
    Query q;
    if (version) q.emplace_back("versionid", *version);
    HttpAnswer a = send("HEAD", key, q, {}, {}, true);
    if (a.status == 404) {
      check_container();
      return std::nullopt;
    }
    if (a.status < 200 || a.status > 299) throw failure(a, "HEAD", key);
    return meta_of(a, key);
  }

  std::optional<std::string> fetch(const std::string& key, const std::optional<Range>& range,
                                   const std::optional<std::string>& version, ObjectMeta* meta) override {
    Query q;
    if (version) q.emplace_back("versionid", *version);
    Headers h;
    if (range) h.emplace_back("x-ms-range", range_header(*range));
    HttpAnswer a = send("GET", key, q, h, {}, false);
    if (a.status == 404) {
      if (error_code(a) == "ContainerNotFound") throw failure(a, "GET", key);
      return std::nullopt;
    }
    if (a.status == 416) return std::string();
    if (a.status < 200 || a.status > 299) throw failure(a, "GET", key);
    if (meta) {
      *meta = meta_of(a, key);
      meta->size = total_size(a, meta->size);
    }
    return std::move(a.body);
  }

  PutResult put(const std::string& key, std::string_view body, const PutCondition& c) override {
    Headers h{{"x-ms-blob-type", "BlockBlob"}, {"content-type", "application/octet-stream"}};
    if (c.kind == PutCondition::Kind::IfAbsent) h.emplace_back("if-none-match", "*");
    if (c.kind == PutCondition::Kind::IfMatch) h.emplace_back("if-match", "\"" + strip_quotes(c.etag) + "\"");
    int attempts = 1;
    HttpAnswer a = send("PUT", key, {}, h, body, false, false, &attempts);
    if (a.status == 412 || (a.status == 409 && c.kind != PutCondition::Kind::Always))
      return settle_refused_put(attempts, a.status, c, body, where(key),
                                [&](ObjectMeta& now) { return get(key, std::nullopt, std::nullopt, &now); });
    if (a.status < 200 || a.status > 299) throw failure(a, "PUT", key);
    std::string v = header(a, "x-ms-version-id");
    return PutResult{strip_quotes(header(a, "etag")), v.empty() ? std::nullopt : std::optional<std::string>(v)};
  }

  void remove(const std::string& key, const std::optional<std::string>& version) override {
    Query q;
    if (version) q.emplace_back("versionid", *version);
    HttpAnswer a = send("DELETE", key, q, {}, {}, false);
    if (a.status == 404 && error_code(a) != "ContainerNotFound") return;
    if (a.status < 200 || a.status > 299) throw failure(a, "DELETE", key);
  }

  ListPage list_page(const std::string& prefix, const std::string& delimiter,
                     const std::optional<std::string>& continuation) override {
    Query q{{"comp", "list"}, {"restype", "container"}};
    if (!prefix.empty()) q.emplace_back("prefix", prefix);
    if (!delimiter.empty()) q.emplace_back("delimiter", delimiter);
    if (continuation) q.emplace_back("marker", *continuation);
    return list(prefix, q, false).first;
  }

  void create_bucket() override {
    HttpAnswer a = send("PUT", "", {{"restype", "container"}}, {}, {}, false, true);
    if (a.status == 409 && error_code(a) == "ContainerAlreadyExists") return;
    if (a.status < 200 || a.status > 299) throw failure(a, "CREATE CONTAINER", "");
  }

  std::vector<ObjectMeta> list_versions(const std::string& prefix) override {
    std::vector<ObjectMeta> out;
    std::optional<std::string> marker;
    for (;;) {
      Query q{{"comp", "list"}, {"include", "versions"}, {"restype", "container"}};
      if (!prefix.empty()) q.emplace_back("prefix", prefix);
      if (marker) q.emplace_back("marker", *marker);
      auto [page, _] = list(prefix, q, true);
      for (auto& o : page.objects) out.push_back(std::move(o));
      if (!page.next || page.next == marker) break;
      marker = page.next;
    }
    return out;
  }

 private:
  using Query = std::vector<std::pair<std::string, std::string>>;
  using Headers = std::vector<std::pair<std::string, std::string>>;

  std::string where(const std::string& key) const { return loc_.root() + "/" + key; }

  std::pair<ListPage, bool> list(const std::string& prefix, const Query& q, bool versions) {
    HttpAnswer a = send("GET", "", q, {}, {}, false, true);
    if (a.status < 200 || a.status > 299) throw failure(a, "LIST", prefix);
    ListPage page = parse_azure_list(a.body, where(prefix), versions);
    return {std::move(page), true};
  }

  HttpAnswer send(const std::string& method, const std::string& key, const Query& query, const Headers& extra,
                  std::string_view body, bool head, bool container_level = false, int* attempts = nullptr) {
    std::string path = base_path_ + "/" + loc_.bucket + (container_level ? "" : "/" + uri_encode(key, true));
    std::string qs;
    for (const auto& [k, v] : query) qs += (qs.empty() ? "?" : "&") + uri_encode(k, false) + "=" + uri_encode(v, false);
    if (!sas_.empty()) qs += (qs.empty() ? "?" : "&") + sas_;
    std::string url = base_ + "/" + loc_.bucket + (container_level ? "" : "/" + uri_encode(key, true)) + qs;
    auto make = [&]() {
      HttpRequest r;
      r.method = method;
      r.url = url;
      r.head = head;
      r.body = body;
      std::map<std::string, std::string> ms{{"x-ms-date", rfc1123_now()}, {"x-ms-version", kApiVersion}};
      std::map<std::string, std::string> std_headers;
      for (const auto& [k, v] : extra) {
        if (k.rfind("x-ms-", 0) == 0) ms[k] = v;
        else std_headers[k] = v;
      }
      for (const auto& [k, v] : ms) r.headers.emplace_back(k, v);
      for (const auto& [k, v] : std_headers) r.headers.emplace_back(k, v);
      if (!key_.empty() && sas_.empty()) {
        auto h = [&](const char* n) {
          auto it = std_headers.find(n);
          return it == std_headers.end() ? std::string() : it->second;
        };
        std::string length = method == "PUT" && !body.empty() ? std::to_string(body.size()) : "";
        std::string to_sign = method + "\n" + h("content-encoding") + "\n" + h("content-language") + "\n" + length +
                              "\n" + h("content-md5") + "\n" + h("content-type") + "\n\n" + h("if-modified-since") +
                              "\n" + h("if-match") + "\n" + h("if-none-match") + "\n" + h("if-unmodified-since") +
                              "\n" + h("range") + "\n";
        for (const auto& [k, v] : ms) to_sign += k + ":" + v + "\n";
        to_sign += "/" + account_ + path;
        std::map<std::string, std::string> sorted;
        for (const auto& [k, v] : query) {
          std::string lk = k;
          for (char& c : lk) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          sorted[lk] = sorted.count(lk) ? sorted[lk] + "," + v : v;
        }
        for (const auto& [k, v] : sorted) to_sign += "\n" + k + ":" + v;
        r.headers.emplace_back("authorization", "SharedKey " + account_ + ":" + base64_encode(hmac_sha256(key_, to_sign)));
      }
      return r;
    };
    return http_->exchange(make, method + " " + where(key), attempts);
  }

  static std::string error_code(const HttpAnswer& a) {
    std::string code = header(a, "x-ms-error-code");
    if (!code.empty()) return code;
    if (auto doc = parse_xml(a.body); doc && doc->name == "Error") return doc->child_text("Code");
    return {};
  }

  void check_container() {
    if (container_checked_) return;
    HttpAnswer a = send("HEAD", "", {{"restype", "container"}}, {}, {}, true, true);
    if (a.status == 404)
      throw StoreError(ErrorKind::NoBucket, loc_.root() + ": the container does not exist (or the account is not the one that holds it)", 404);
    if (a.status >= 200 && a.status <= 299) container_checked_ = true;
  }

  ObjectMeta meta_of(const HttpAnswer& a, const std::string& key) const {
    ObjectMeta m;
    m.key = key;
    m.etag = strip_quotes(header(a, "etag"));
    std::string v = header(a, "x-ms-version-id");
    if (!v.empty()) m.version_id = v;
    m.last_modified = header(a, "last-modified");
    if (auto size = parse_size(header(a, "content-length"))) m.size = *size;
    return m;
  }

  StoreError failure(const HttpAnswer& a, const std::string& op, const std::string& key) const {
    std::string code = error_code(a);
    std::string status = "HTTP " + std::to_string(a.status) + (code.empty() ? "" : " " + tame(code, 60));
    std::string what = op + " " + where(key);
    std::string creds = key_.empty() && sas_.empty() ? "no credentials (anonymous requests)" : "credentials from " + source_;
    if (code == "ContainerNotFound")
      return StoreError(ErrorKind::NoBucket, what + ": the container does not exist (" + status + ")", a.status);
    if (a.status == 401 || a.status == 403)
      return StoreError(ErrorKind::Auth, what + ": access denied (" + status + "; account " + account_ + ", " + creds + ")",
                        a.status);
    if (a.status == 404) return StoreError(ErrorKind::NotFound, what + ": not found (" + status + ")", a.status);
    return StoreError(ErrorKind::Other, what + ": " + status, a.status);
  }

  Location loc_;
  std::unique_ptr<Http> http_;
  std::string account_, key_, sas_, source_;
  std::string base_, base_path_;
  std::atomic<bool> container_checked_{false};
};

}  // namespace

std::unique_ptr<Store> open_azure(const Location& location, const Options& options, const Environment& env) {
  return std::make_unique<AzureStore>(location, options, env);
}

}  // namespace tether::support::objstore
