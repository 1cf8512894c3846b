// http: the Neon API client (docs/backends.md#neon) on libcurl. Every call carries the
// bearer key, asks for JSON, times out after 30 s and retries 423/429/5xx answers on the
// RetryPolicy schedule. A non-2xx answer becomes BackendError
// `Neon API <METHOD> <path>: <status> <message>`; 401/403 name the key's variable.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "model.hpp"
#include "tether/sdk/error.hpp"
#include "tether/sdk/types.hpp"

namespace tether::neon {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::optional<std::string> retry_after;
};

// One request on the wire; the seam the unit tests replace.
using Transport = std::function<HttpResponse(const std::string& method, const std::string& url,
                                             const std::string& bearer, const std::string& body)>;
// libcurl, 30 s timeout. Throws BackendError when the server cannot be reached.
HttpResponse curl_transport(const std::string& method, const std::string& url, const std::string& bearer,
                            const std::string& body);

struct ApiConfig {
  std::string api_url = "https://console.neon.tech/api/v2";
  std::string api_key_env = "NEON_API_KEY";
};

class HttpClient {
 public:
  HttpClient(ApiConfig config, Transport transport = curl_transport, RetryPolicy policy = {},
             std::function<void(double)> sleep = {});

  // `path` is relative to api_url; GET parameters with empty values are dropped. A 404 on
  // DELETE is an answer, not an error. Returns the parsed JSON body ({} when empty).
  sdk::Json get(const std::string& path, const std::map<std::string, std::string>& params = {});
  sdk::Json post(const std::string& path, const sdk::Json& body);
  sdk::Json patch(const std::string& path, const sdk::Json& body);
  // Returns the status (404 included).
  long del(const std::string& path);

  // Exposed for tests: the message for a failed answer.
  static std::string error_message(const std::string& method, const std::string& path, const HttpResponse& r,
                                   const std::string& key_env);

 private:
  HttpResponse send(const std::string& method, const std::string& path, const std::string& body);
  std::string key() const;
  sdk::Error failure(const std::string& method, const std::string& path, const HttpResponse& r) const;

  ApiConfig config_;
  Transport transport_;
  RetryPolicy policy_;
  std::function<void(double)> sleep_;
};

}  // namespace tether::neon
