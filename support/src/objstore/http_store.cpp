// Single objects over plain HTTP(S), read-only: HEAD for size, ETag and Last-Modified, GET with
// a range. No credentials are ever sent (a pre-signed URL carries its own in its query).
#include "stores.hpp"

namespace tether::support::objstore {

namespace {

class HttpStore final : public Store {
 public:
  HttpStore(const Location& loc, const Options& options) : loc_(loc) {
    HttpSettings s = http_settings(options);
    if (loc.scheme == "http" && !s.allow_http)
      throw StoreError(ErrorKind::Config, loc.root() + ": an http:// URL is read in the clear; "
                                                       "set allow_http = true in the store options to allow it");
    http_ = std::make_unique<Http>(s);
  }

  std::string root() const override { return loc_.root(); }

  std::optional<ObjectMeta> head(const std::string& key, const std::optional<std::string>& version) override {
    refuse_version(version);
    HttpAnswer a = send("HEAD", key, {});
    if (a.status == 404 || a.status == 410) return std::nullopt;
    if (a.status < 200 || a.status > 299) throw failure(a, "HEAD", key);
    return meta_of(a, key);
  }

  std::optional<std::string> fetch(const std::string& key, const std::optional<Range>& range,
                                   const std::optional<std::string>& version, ObjectMeta* meta) override {
    refuse_version(version);
    std::vector<std::pair<std::string, std::string>> h;
    if (range) h.emplace_back("range", range_header(*range));
    HttpAnswer a = send("GET", key, h);
    if (a.status == 404 || a.status == 410) return std::nullopt;
    if (a.status == 416) return std::string();
    if (a.status < 200 || a.status > 299) throw failure(a, "GET", key);
    if (range && a.status == 200) {
      // The server ignored the range: cut it here.
      std::string body = a.body.size() > range->offset ? a.body.substr(range->offset) : std::string();
      if (range->length && body.size() > *range->length) body.resize(*range->length);
      a.body = std::move(body);
    }
    if (meta) *meta = meta_of(a, key);
    return std::move(a.body);
  }

  PutResult put(const std::string& key, std::string_view, const PutCondition&) override { throw read_only(key); }
  void remove(const std::string& key, const std::optional<std::string>&) override { throw read_only(key); }
  void create_bucket() override { throw read_only(""); }
  ListPage list_page(const std::string& prefix, const std::string&, const std::optional<std::string>&) override {
    throw StoreError(ErrorKind::Unsupported, loc_.root() + "/" + prefix + ": an HTTP server cannot be listed; name one object");
  }
  std::vector<ObjectMeta> list_versions(const std::string& prefix) override {
    throw StoreError(ErrorKind::Unsupported, loc_.root() + "/" + prefix + ": an HTTP server keeps no versions");
  }

 private:
  StoreError read_only(const std::string& key) const {
    return StoreError(ErrorKind::Unsupported, loc_.root() + "/" + key + ": objects over HTTP are read-only");
  }
  void refuse_version(const std::optional<std::string>& version) const {
    if (version) throw StoreError(ErrorKind::Unsupported, loc_.root() + ": an HTTP server keeps no versions");
  }

  HttpAnswer send(const std::string& method, const std::string& key,
                  const std::vector<std::pair<std::string, std::string>>& headers) {
    std::string url = loc_.root() + "/" + key;  // key keeps its query (a pre-signed URL)
    return http_->exchange(
        [&] {
          HttpRequest r;
          r.method = method;
          r.url = url;
          r.head = method == "HEAD";
          r.headers = headers;
          return r;
        },
        method + " " + loc_.root() + "/" + key.substr(0, key.find('?')));
  }

  ObjectMeta meta_of(const HttpAnswer& a, const std::string& key) const {
    ObjectMeta m;
    m.key = key;
    std::string etag = header(a, "etag");
    if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
    m.etag = etag;
    m.last_modified = header(a, "last-modified");
    std::string cr = header(a, "content-range");
    auto slash = cr.rfind('/');
    std::string len = slash != std::string::npos ? cr.substr(slash + 1) : header(a, "content-length");
    if (!len.empty() && len.size() < 20 && len.find_first_not_of("0123456789") == std::string::npos)
      m.size = std::stoull(len);
    return m;
  }

  StoreError failure(const HttpAnswer& a, const std::string& op, const std::string& key) const {
    std::string what = op + " " + loc_.root() + "/" + key.substr(0, key.find('?'));
    if (a.status == 401 || a.status == 403)
      return StoreError(ErrorKind::Auth, what + ": access denied (HTTP " + std::to_string(a.status) + ")", a.status);
    return StoreError(ErrorKind::Other, what + ": HTTP " + std::to_string(a.status), a.status);
  }

  Location loc_;
  std::unique_ptr<Http> http_;
};

}  // namespace

std::unique_ptr<Store> open_http(const Location& location, const Options& options) {
  return std::make_unique<HttpStore>(location, options);
}

}  // namespace tether::support::objstore
