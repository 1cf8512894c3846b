#include "http.hpp"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <curl/curl.h>

#include "tether/sdk/error.hpp"
#include "tether/sdk/json_limits.hpp"

namespace tether::neon {

using sdk::BackendError;
using sdk::Json;

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t write_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t read_header(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "retry-after") {
      std::string v = line.substr(colon + 1);
      auto b = v.find_first_not_of(" \t");
      auto e = v.find_last_not_of(" \t\r\n");
      *static_cast<std::optional<std::string>*>(user) = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    }
  }
  return size * n;
}

struct Easy {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  ~Easy() {
    curl_slist_free_all(headers);
    if (h) curl_easy_cleanup(h);
  }
};

}  // namespace

HttpResponse curl_transport(const std::string& method, const std::string& url, const std::string& bearer,
                            const std::string& body) {
  global_init();
  Easy e;
  if (!e.h) throw BackendError("neon: cannot start a libcurl session");
  HttpResponse r;
  e.headers = curl_slist_append(e.headers, ("Authorization: Bearer " + bearer).c_str());
  e.headers = curl_slist_append(e.headers, "Accept: application/json");
  if (!body.empty()) e.headers = curl_slist_append(e.headers, "Content-Type: application/json");
  curl_easy_setopt(e.h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e.h, CURLOPT_HTTPHEADER, e.headers);
  curl_easy_setopt(e.h, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "POST" || method == "PATCH") {
    curl_easy_setopt(e.h, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(e.h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(e.h, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(e.h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(e.h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for timeouts
  curl_easy_setopt(e.h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(e.h, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(e.h, CURLOPT_HEADERDATA, &r.retry_after);
  char err[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(e.h, CURLOPT_ERRORBUFFER, err);
  CURLcode rc = curl_easy_perform(e.h);
  if (rc != CURLE_OK) {
    std::string why = err[0] ? err : curl_easy_strerror(rc);
    if (rc == CURLE_OPERATION_TIMEDOUT) r.status = 504;  // retried like a gateway timeout
    else throw BackendError("Neon API " + method + " " + url + ": cannot reach the server: " + why);
    r.body = Json{{"message", "timed out: " + why}}.dump();
    return r;
  }
  curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

HttpClient::HttpClient(ApiConfig config, Transport transport, RetryPolicy policy, std::function<void(double)> sleep)
    : config_(std::move(config)), transport_(std::move(transport)), policy_(std::move(policy)), sleep_(std::move(sleep)) {
  while (!config_.api_url.empty() && config_.api_url.back() == '/') config_.api_url.pop_back();
  if (!sleep_)
    sleep_ = [](double s) { std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(s * 1000))); };
}

std::string HttpClient::key() const {
  const char* v = std::getenv(config_.api_key_env.c_str());
  if (!v || !*v) throw sdk::Error(TETHER_E_AUTH, "Neon API key not found in $" + config_.api_key_env);
  return v;
}

std::string HttpClient::error_message(const std::string& method, const std::string& path, const HttpResponse& r,
                                      const std::string& key_env) {
  std::string message;
  if (auto j = sdk::parse_json_bounded(r.body, sdk::kMaxJsonRecordBytes))
    if (j->is_object() && j->contains("message") && (*j)["message"].is_string()) message = (*j)["message"].get<std::string>();
  if (message.empty()) message = r.body;
  if (message.size() > 300) message = message.substr(0, 300) + "...";
  std::string text = "Neon API " + method + " " + path + ": " + std::to_string(r.status) + (message.empty() ? "" : " " + message);
  if (r.status == 401 || r.status == 403)
    text += " (the API key in $" + key_env + " was refused; set it to a valid Neon API key)";
  return text;
}

HttpResponse HttpClient::send(const std::string& method, const std::string& path, const std::string& body) {
  std::string bearer = key();
  std::string url = config_.api_url + path;
  for (std::size_t attempt = 0;; ++attempt) {
    HttpResponse r = transport_(method, url, bearer, body);
    auto wait = policy_.delay(r.status, attempt, r.retry_after);
    if (!wait) return r;
    sleep_(*wait);
  }
}

namespace {
Json parse_body(const std::string& method, const std::string& path, const HttpResponse& r) {
  if (r.body.empty()) return Json::object();
  // The API's answer is someone else's text: bounded like every JSON tether reads.
  std::string why;
  if (auto j = sdk::parse_json_bounded(r.body, sdk::kMaxJsonRecordBytes, &why)) return std::move(*j);
  if (why.rfind("not valid JSON", 0) == 0)
    throw BackendError("Neon API " + method + " " + path + ": " + std::to_string(r.status) + " answer is not JSON");
  throw BackendError("Neon API " + method + " " + path + ": " + std::to_string(r.status) + " answer refused: " + why);
}
}  // namespace

sdk::Error HttpClient::failure(const std::string& method, const std::string& path, const HttpResponse& r) const {
  return sdk::Error(r.status == 401 || r.status == 403 ? TETHER_E_AUTH : TETHER_E_BACKEND,
                    error_message(method, path, r, config_.api_key_env));
}

Json HttpClient::get(const std::string& path, const std::map<std::string, std::string>& params) {
  std::string full = path;
  char sep = '?';
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    full += sep + url_encode(k) + "=" + url_encode(v);
    sep = '&';
  }
  HttpResponse r = send("GET", full, "");
  if (r.status < 200 || r.status > 299) throw failure("GET", path, r);
  return parse_body("GET", path, r);
}

Json HttpClient::post(const std::string& path, const Json& body) {
  HttpResponse r = send("POST", path, body.dump());
  if (r.status < 200 || r.status > 299) throw failure("POST", path, r);
  return parse_body("POST", path, r);
}

Json HttpClient::patch(const std::string& path, const Json& body) {
  HttpResponse r = send("PATCH", path, body.dump());
  if (r.status < 200 || r.status > 299) throw failure("PATCH", path, r);
  return parse_body("PATCH", path, r);
}

long HttpClient::del(const std::string& path) {
  HttpResponse r = send("DELETE", path, "");
  if ((r.status < 200 || r.status > 299) && r.status != 404) throw failure("DELETE", path, r);
  return r.status;
}

}  // namespace tether::neon
