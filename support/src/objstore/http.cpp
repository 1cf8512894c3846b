// The HTTP layer of the object-store client: libcurl easy handles in a pool, retries with
// backoff and jitter. Redirects are never followed (a redirect could carry a signed request
// to another host), and only http(s) is spoken.
#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include "stores.hpp"

namespace tether::support::objstore {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  std::string* body;
  std::size_t max;
  bool too_big = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  if (s->body->size() + size * n > s->max) {
    s->too_big = true;
    return 0;  // aborts the transfer
  }
  s->body->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();  // a new answer (after 100 Continue)
    return size * n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view v = line.substr(colon + 1);
  auto b = v.find_first_not_of(" \t");
  auto e = v.find_last_not_of(" \t\r\n");
  (*headers)[name] = b == std::string_view::npos ? std::string() : std::string(v.substr(b, e - b + 1));
  return size * n;
}

struct Upload {
  std::string_view data;
  std::size_t at = 0;
};

size_t on_read(char* buf, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  std::size_t k = std::min(size * n, u->data.size() - u->at);
  std::memcpy(buf, u->data.data() + u->at, k);
  u->at += k;
  return k;
}

long millis(const std::string* v, long fallback) {
  if (!v) return fallback;
  return std::stol(v->substr(0, v->size() - 2));  // "<n>ms", made by options_from
}

}  // namespace

std::string strip_quotes(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

std::string header(const HttpAnswer& a, const std::string& name) {
  auto it = a.headers.find(name);
  return it == a.headers.end() ? std::string() : it->second;
}

std::optional<uint64_t> parse_size(const std::string& s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// What a store said, for a message: printable ASCII only, bounded.
std::string tame(const std::string& s, std::size_t max) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

std::string range_header(const Range& range) {
  std::string spec = "bytes=" + std::to_string(range.offset) + "-";
  if (range.length) spec += std::to_string(range.offset + *range.length - 1);
  return spec;
}

uint64_t total_size(const HttpAnswer& a, uint64_t size) {
  std::string cr = header(a, "content-range");
  auto slash = cr.rfind('/');
  if (slash == std::string::npos) return size;
  return parse_size(cr.substr(slash + 1)).value_or(size);
}

PutResult settle_refused_put(int attempts, long status, const PutCondition& condition, std::string_view body,
                             const std::string& where, const std::function<std::optional<std::string>(ObjectMeta&)>& read_back) {
  if (attempts > 1) {
    ObjectMeta now;
    if (auto there = read_back(now); there && *there == body) return PutResult{now.etag, now.version_id};
  }
  throw StoreError(ErrorKind::PreconditionFailed,
                   where + (condition.kind == PutCondition::Kind::IfAbsent ? ": already exists" : ": changed since it was read"),
                   status);
}

bool retryable_status(long status) { return status == 429 || status == 500 || status == 502 || status == 503 || status == 504; }

HttpSettings http_settings(const Options& o) {
  HttpSettings s;
  s.allow_http = o.flag("allow_http");
  s.allow_invalid_certificates = o.flag("allow_invalid_certificates");
  s.connect_timeout_ms = millis(o.find("connect_timeout"), s.connect_timeout_ms);
  s.timeout_ms = millis(o.find("timeout"), s.timeout_ms);
  if (const std::string* v = o.find("read_timeout")) s.low_speed_seconds = std::max(1L, millis(v, 0) / 1000);
  if (const std::string* v = o.find("user_agent")) s.user_agent = *v;
  if (const std::string* v = o.find("proxy_url")) s.proxy_url = *v;
  if (const std::string* v = o.find("root_certificate")) s.root_certificate = *v;
  return s;
}

Http::Http(HttpSettings settings) : settings_(std::move(settings)) { global_init(); }

Http::~Http() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* Http::take() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  CURL* h = curl_easy_init();
  if (!h) throw StoreError(ErrorKind::Other, "cannot start a libcurl session");
  return h;
}

void Http::give(void* h) {
  std::lock_guard lock(mu_);
  if (idle_.size() < 16) idle_.push_back(h);
  else curl_easy_cleanup(static_cast<CURL*>(h));
}

HttpAnswer Http::once(const HttpRequest& r, const std::string& what, bool& transient) {
  CURL* h = static_cast<CURL*>(take());
  struct Return {
    Http* http;
    CURL* h;
    ~Return() { http->give(h); }
  } ret{this, h};
  curl_easy_reset(h);  // keeps the connection cache, drops the last request's options

  HttpAnswer a;
  Sink sink{&a.body, settings_.max_body};
  Upload upload{r.body};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : r.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  // libcurl would add "Expect: 100-continue" to uploads; stores answer without it.
  headers = curl_slist_append(headers, "Expect:");
  struct Free {
    curl_slist* l;
    ~Free() { curl_slist_free_all(l); }
  } free_headers{headers};

  curl_easy_setopt(h, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, settings_.allow_http ? "http,https" : "https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, settings_.connect_timeout_ms);
  if (settings_.timeout_ms > 0) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, settings_.timeout_ms);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, settings_.low_speed_seconds);
  curl_easy_setopt(h, CURLOPT_USERAGENT, settings_.user_agent.c_str());
  if (!settings_.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, settings_.proxy_url.c_str());
  if (!settings_.root_certificate.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, settings_.root_certificate.c_str());
  if (settings_.allow_invalid_certificates) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &a.headers);
  if (r.head) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &upload);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  } else if (r.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  char err[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);

  CURLcode rc = curl_easy_perform(h);
  if (sink.too_big)
    throw StoreError(ErrorKind::BadAnswer, what + ": the answer is larger than " + std::to_string(settings_.max_body) + " bytes");
  if (rc != CURLE_OK) {
    std::string why = err[0] ? err : curl_easy_strerror(rc);
    transient = rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
                rc == CURLE_PARTIAL_FILE || rc == CURLE_SSL_CONNECT_ERROR;
    if (rc == CURLE_UNSUPPORTED_PROTOCOL)
      throw StoreError(ErrorKind::Config, what + ": " + why + " (an http:// endpoint needs allow_http = true)");
    throw StoreError(ErrorKind::Unreachable, what + ": cannot reach the store: " + why);
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &a.status);
  return a;
}

HttpAnswer Http::exchange(const std::function<HttpRequest()>& make, const std::string& what, int* attempts) {
  thread_local std::mt19937 rng{std::random_device{}()};
  for (int attempt = 0;; ++attempt) {
    if (attempts) *attempts = attempt + 1;
    bool transient = false;
    bool last = attempt + 1 >= settings_.attempts;
    try {
      HttpAnswer a = once(make(), what, transient);
      if (!retryable_status(a.status) || last) return a;
    } catch (const StoreError&) {
      if (!transient || last) throw;
    }
    double cap = std::min(settings_.backoff_cap_s, settings_.backoff_base_s * double(1 << attempt));
    std::uniform_real_distribution<double> jitter(0.0, cap);
    std::this_thread::sleep_for(std::chrono::duration<double>(jitter(rng)));
  }
}

}  // namespace tether::support::objstore
