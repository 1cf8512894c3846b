// The implementations behind objstore::open, and the HTTP layer they share. Private to the client.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tether/support/objstore.hpp"

namespace tether::support::objstore {

std::unique_ptr<Store> open_http(const Location& location, const Options& options);
std::unique_ptr<Store> open_azure(const Location& location, const Options& options, const Environment& env);
std::unique_ptr<Store> open_s3(const Location& location, const Options& options, const Environment& env);

struct HttpRequest {
  std::string method;
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // sent as given
  std::string_view body;                                      // PUT only
  bool head = false;                                          // no body expected
};

struct HttpAnswer {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lowercase names; the last value of each
};

struct HttpSettings {
  bool allow_http = false;
  bool allow_invalid_certificates = false;
  long connect_timeout_ms = 10'000;
  long timeout_ms = 0;             // the whole request; 0 = none (slow transfers end by low_speed)
  long low_speed_seconds = 60;     // abort when under 1 byte/s for this long
  std::string user_agent = "tether";
  std::string proxy_url;
  std::string root_certificate;
  int attempts = 4;                // retries of 429/5xx/timeouts included
  double backoff_base_s = 0.2;
  double backoff_cap_s = 5.0;
  std::size_t max_body = std::size_t(1) << 31;  // refuse answers larger than this
};

HttpSettings http_settings(const Options& options);

// libcurl with a pool of easy handles (each keeps its connections) so that concurrent calls
// reuse connections without sharing a handle. Retries failed exchanges with exponential
// backoff and full jitter; `sign` is called before every attempt (the signature carries the
// time). A transport failure after the last attempt is StoreError{Unreachable} naming `what`.
class Http {
 public:
  explicit Http(HttpSettings settings);
  ~Http();
  Http(const Http&) = delete;
  Http& operator=(const Http&) = delete;

  // `attempts`, when given, receives how many exchanges were made (1 when the first answered).
  HttpAnswer exchange(const std::function<HttpRequest()>& make, const std::string& what, int* attempts = nullptr);

  const HttpSettings& settings() const { return settings_; }

 private:
  HttpAnswer once(const HttpRequest& r, const std::string& what, bool& transient);
  void* take();
  void give(void* handle);

  HttpSettings settings_;
  std::mutex mu_;
  std::vector<void*> idle_;
};

bool retryable_status(long status);

// What the stores' answers share: an ETag without its quotes, a header's value ("" when
// absent), a decimal size (nullopt unless all digits, at most 19), and a store's text made
// fit for a message (printable ASCII, at most `max` characters).
std::string strip_quotes(std::string s);
std::string header(const HttpAnswer& a, const std::string& name);
std::optional<uint64_t> parse_size(const std::string& s);
std::string tame(const std::string& s, std::size_t max = 160);

// The value of a Range header for `range` ("bytes=<first>-[<last>]"); the caller answers a
// zero-length range itself.
std::string range_header(const Range& range);

// The object's whole size from a ranged answer's Content-Range ("bytes a-b/<total>"), when it
// has one; otherwise `size` unchanged.
uint64_t total_size(const HttpAnswer& a, uint64_t size);

// A conditional PUT that the store refused with `status` (412, or 409 for a conditional
// write): when more than one attempt was made, an earlier one may have been written and its
// answer lost, so the key is read back (`read_back`); our own bytes there are success.
// Otherwise StoreError{PreconditionFailed} naming `where`.
PutResult settle_refused_put(int attempts, long status, const PutCondition& condition, std::string_view body,
                             const std::string& where, const std::function<std::optional<std::string>(ObjectMeta&)>& read_back);

// The XML answers of S3's ListObjectsV2 and ListObjectVersions, and of Azure's List Blobs,
// parsed; StoreError{BadAnswer} naming `where` for anything unreadable.
ListPage parse_s3_list(const std::string& body, const std::string& where);
struct S3VersionPage {
  std::vector<ObjectMeta> versions;
  std::optional<std::pair<std::string, std::string>> next;  // key marker, version-id marker
};
S3VersionPage parse_s3_versions(const std::string& body, const std::string& where);
ListPage parse_azure_list(const std::string& body, const std::string& where, bool versions);

}  // namespace tether::support::objstore
