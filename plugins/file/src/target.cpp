#include "target.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "tether/sdk/error.hpp"

namespace tether::file {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 11> kRemoteSchemes = {"s3",   "s3a",   "gs",  "gcs",  "az",   "azure",
                                                        "abfs", "abfss", "adl", "http", "https"};

// Python's truthiness of a locator value.
bool truthy(const sdk::Json& v) {
  if (v.is_null()) return false;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>() != 0;
  if (v.is_number_float()) return v.get<double>() != 0.0;
  return !v.empty();
}

// urlsplit's scheme rule: a letter, then letters, digits, '+', '-', '.', up to the first ':'.
std::string scheme_of(const std::string& uri) {
  auto colon = uri.find(':');
  if (colon == std::string::npos || colon == 0) return {};
  if (!std::isalpha(static_cast<unsigned char>(uri[0]))) return {};
  for (std::size_t i = 0; i < colon; ++i) {
    char c = uri[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return {};
  }
  std::string s = uri.substr(0, colon);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < s.size() && (hi = hex_value(s[i + 1])) >= 0 &&
        (lo = hex_value(s[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string strip_trailing_slashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

}  // namespace

std::string resolve_local_path(const std::string& path) {
  if (path.empty()) return path;
  fs::path p(strip_trailing_slashes(path));
  if (p.is_absolute()) {
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(p, ec);
    if (!ec) return strip_trailing_slashes(resolved.lexically_normal().string());
  }
  std::string out = strip_trailing_slashes(p.lexically_normal().string());
  return out.empty() ? "." : out;
}

Target parse_target(const sdk::Locator& locator) {
  Target t;
  for (const char* key : {"uri", "path"}) {
    auto it = locator.find(key);
    if (it != locator.end() && truthy(*it)) {
      if (!it->is_string()) throw sdk::BackendError(std::string("file locator '") + key + "' must be a string");
      t.raw = it->get<std::string>();
      break;
    }
  }
  if (t.raw.empty()) throw sdk::BackendError("file locator needs 'uri'");
  // A bare absolute path never goes through the URL parser: '#', '?' and ':' are ordinary
  // path characters.
  t.scheme = t.raw[0] == '/' ? std::string() : scheme_of(t.raw);
  if (t.scheme.empty()) {
    t.path = resolve_local_path(t.raw);
    return t;
  }
  std::string rest = t.raw.substr(t.scheme.size() + 1);
  if (t.scheme == "file") {
    rest = rest.substr(0, rest.find_first_of("?#"));
    if (rest.rfind("//", 0) == 0) {
      auto slash = rest.find('/', 2);
      std::string host = rest.substr(2, slash == std::string::npos ? std::string::npos : slash - 2);
      if (!host.empty() && host != "localhost")
        throw sdk::BackendError("file URI names host '" + host + "', which is not this machine: " + t.raw +
                                "; use a local path");
      rest = slash == std::string::npos ? std::string("/") : rest.substr(slash);
    }
    if (rest.empty()) throw sdk::BackendError("file URI has no path: " + t.raw);
    t.scheme.clear();
    t.file_uri = true;
    t.path = resolve_local_path(percent_decode(rest));
    return t;
  }
  if (std::find_if(kRemoteSchemes.begin(), kRemoteSchemes.end(), [&](const char* s) { return t.scheme == s; }) ==
      kRemoteSchemes.end())
    throw sdk::BackendError("unsupported file URI scheme: '" + t.scheme + "'");
  t.remote = true;
  // scheme://netloc/key: the key is the URL path without its leading slash.
  std::string after = rest.rfind("//", 0) == 0 ? rest.substr(2) : rest;
  after = after.substr(0, after.find_first_of("?#"));
  auto slash = after.find('/');
  t.path = slash == std::string::npos ? std::string() : after.substr(slash + 1);
  return t;
}

Target local_target(const sdk::Locator& locator, const char* op) {
  Target t = parse_target(locator);
  if (t.remote)
    throw sdk::BackendError(std::string("file ") + op +
                            ": only a local directory can be created or removed by tether; a remote prefix is "
                            "managed by its bucket");
  return t;
}

void refuse_at(const sdk::Locator& locator) {
  auto it = locator.find("at");
  if (it != locator.end() && truthy(*it))
    throw sdk::BackendError(
        "file objects have no history to detach from (`at`); use `--file versioned` on a versioned bucket instead");
}

}  // namespace tether::file
