// What every object store shares: parsing URLs, the option spellings, the ambient
// environment, paging, and choosing the implementation.
#include "tether/support/objstore.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "stores.hpp"

namespace tether::support::objstore {

// ---- where -------------------------------------------------------------------------------

std::string Location::root() const { return scheme + "://" + bucket; }

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi, lo;
    if (i + 2 >= s.size() || (hi = hex_value(s[i + 1])) < 0 || (lo = hex_value(s[i + 2])) < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

[[noreturn]] void bad_url(std::string_view uri, const std::string& why) {
  throw StoreError(ErrorKind::Config, "cannot use object-store URL '" + std::string(uri) + "': " + why);
}

// S3 bucket names: 3-63 of [a-z0-9.-], starting and ending with a letter or digit. GCS allows
// '_' too. The bucket becomes part of a host name (virtual-hosted addressing), so nothing else
// gets through.
bool valid_bucket(const std::string& b, bool allow_underscore) {
  if (b.size() < 3 || b.size() > 222) return false;
  for (char c : b)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
          c == '-' || (allow_underscore && c == '_')))
      return false;
  return std::isalnum(static_cast<unsigned char>(b.front())) && std::isalnum(static_cast<unsigned char>(b.back()));
}

// Azure container names: 3-63 of [a-z0-9-] (and "$root", "$web").
bool valid_container(const std::string& c) {
  if (c == "$root" || c == "$web" || c == "$logs") return true;
  if (c.size() < 3 || c.size() > 63) return false;
  for (char ch : c)
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-'))
      return false;
  return c.front() != '-' && c.back() != '-';
}

bool valid_account(const std::string& a) {
  if (a.empty() || a.size() > 24) return false;
  return std::all_of(a.begin(), a.end(), [](unsigned char c) { return std::islower(c) || std::isdigit(c); });
}

bool valid_http_host(const std::string& h) {
  if (h.empty()) return false;
  return std::all_of(h.begin(), h.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
  });
}

}  // namespace

std::optional<Location> parse_location(std::string_view uri) {
  auto colon = uri.find("://");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string scheme = lower(uri.substr(0, colon));
  Location loc;
  loc.scheme = scheme;
  if (scheme == "s3" || scheme == "s3a") loc.service = Service::S3;
  else if (scheme == "gs" || scheme == "gcs") loc.service = Service::Gcs;
  else if (scheme == "az" || scheme == "azure" || scheme == "abfs" || scheme == "abfss" || scheme == "adl")
    loc.service = Service::Azure;
  else if (scheme == "http" || scheme == "https") loc.service = Service::Http;
  else return std::nullopt;

  std::string_view rest = uri.substr(colon + 3);
  if (loc.service == Service::Http) {
    // http(s) URLs keep their query: it may be a pre-signed request.
    auto slash = rest.find_first_of("/?#");
    loc.bucket = lower(rest.substr(0, slash));
    if (loc.bucket.find('@') != std::string::npos) bad_url(uri, "credentials in the URL are not accepted");
    if (!valid_http_host(loc.bucket)) bad_url(uri, "the host name is not valid");
    std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    if (!path.empty() && path.front() == '/') path.remove_prefix(1);
    auto hash = path.find('#');
    loc.key = std::string(path.substr(0, hash));
    return loc;
  }
  if (rest.find_first_of("?#") != std::string_view::npos)
    bad_url(uri, "a query or fragment is not part of an object-store URL");
  auto slash = rest.find('/');
  std::string netloc(rest.substr(0, slash));
  std::string_view raw_key = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (loc.service == Service::Azure) {
    // abfs(s)://container@account.dfs.core.windows.net/path
    auto at = netloc.find('@');
    if (at != std::string::npos) {
      std::string host = lower(netloc.substr(at + 1));
      loc.account = host.substr(0, host.find('.'));
      netloc = netloc.substr(0, at);
      if (!valid_account(loc.account)) bad_url(uri, "the storage account name is not valid");
    }
    loc.bucket = netloc;
    if (!valid_container(loc.bucket)) bad_url(uri, "'" + loc.bucket + "' is not a valid container name");
  } else {
    loc.bucket = netloc;
    if (!valid_bucket(loc.bucket, loc.service == Service::Gcs))
      bad_url(uri, "'" + loc.bucket + "' is not a valid bucket name (3-63 of a-z, 0-9, '.', '-')");
  }
  auto key = percent_decode(raw_key);
  if (!key) bad_url(uri, "the path has a bad percent-escape");
  // No "." or ".." segments: servers and proxies may resolve them to another key or bucket.
  std::string_view k(*key);
  for (std::size_t b = 0; b <= k.size();) {
    auto e = k.find('/', b);
    std::string_view seg = k.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    if (seg == "." || seg == "..") bad_url(uri, "'.' and '..' path segments are not accepted");
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  if (key->find('\0') != std::string::npos) bad_url(uri, "the path contains a NUL byte");
  loc.key = std::move(*key);
  return loc;
}

// ---- options -----------------------------------------------------------------------------

namespace {

enum class OptionType { String, Bool, Duration, Integer };

struct OptionSpec {
  const char* name;
  OptionType type;
  std::vector<const char*> aliases;  // spellings after the prefix is removed, besides the name
};

const std::vector<OptionSpec>& option_specs() {
  static const std::vector<OptionSpec> specs = {
      // S3 and GCS (HMAC keys through the S3 API)
      {"access_key_id", OptionType::String, {}},
      {"secret_access_key", OptionType::String, {}},
      {"session_token", OptionType::String, {"token"}},
      {"region", OptionType::String, {"default_region"}},
      {"endpoint", OptionType::String, {"endpoint_url"}},
      {"virtual_hosted_style_request", OptionType::Bool, {}},
      {"skip_signature", OptionType::Bool, {}},
      {"conditional_put", OptionType::String, {}},
      {"profile", OptionType::String, {}},
      {"unsigned_payload", OptionType::Bool, {}},
      {"request_payer", OptionType::Bool, {}},
      // Azure
      {"account_name", OptionType::String, {"storage_account_name"}},
      {"account_key", OptionType::String, {"storage_account_key", "access_key", "master_key"}},
      {"sas_token", OptionType::String, {"sas_key", "storage_sas_key", "storage_sas_token"}},
      {"use_emulator", OptionType::Bool, {"storage_use_emulator"}},
      // the HTTP client
      {"allow_http", OptionType::Bool, {}},
      {"allow_invalid_certificates", OptionType::Bool, {}},
      {"http1_only", OptionType::Bool, {}},
      {"http2_only", OptionType::Bool, {}},
      {"http2_keep_alive_while_idle", OptionType::Bool, {}},
      {"randomize_addresses", OptionType::Bool, {}},
      {"connect_timeout", OptionType::Duration, {}},
      {"timeout", OptionType::Duration, {}},
      {"read_timeout", OptionType::Duration, {}},
      {"pool_idle_timeout", OptionType::Duration, {}},
      {"http2_keep_alive_interval", OptionType::Duration, {}},
      {"http2_keep_alive_timeout", OptionType::Duration, {}},
      {"pool_max_idle_per_host", OptionType::Integer, {}},
      {"user_agent", OptionType::String, {}},
      {"proxy_url", OptionType::String, {}},
      {"proxy_ca_certificate", OptionType::String, {}},
      {"proxy_excludes", OptionType::String, {}},
      {"root_certificate", OptionType::String, {}},
      {"default_content_type", OptionType::String, {}},
  };
  return specs;
}

const OptionSpec* find_spec(std::string_view key) {
  std::string k = lower(key);
  std::replace(k.begin(), k.end(), '-', '_');
  for (const char* prefix : {"aws_", "azure_storage_", "azure_", "google_", "gcs_"}) {
    for (const auto& s : option_specs()) {
      auto matches = [&](std::string_view candidate) {
        return candidate == s.name || std::any_of(s.aliases.begin(), s.aliases.end(),
                                                  [&](const char* a) { return candidate == a; });
      };
      if (matches(k)) return &s;
      if (k.rfind(prefix, 0) == 0 && matches(std::string_view(k).substr(std::string_view(prefix).size()))) return &s;
    }
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> canonical_option(std::string_view key) {
  const OptionSpec* s = find_spec(key);
  if (!s) return std::nullopt;
  return std::string(s->name);
}

const std::string* Options::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

bool Options::flag(const std::string& name) const {
  const std::string* v = find(name);
  return v && *v == "true";
}

void Options::merge(const Options& other) {
  for (const auto& [k, v] : other.values) values[k] = v;
}

Options options_from(const nlohmann::json& table, std::string_view where) {
  Options out;
  if (table.is_null()) return out;
  if (!table.is_object())
    throw StoreError(ErrorKind::Config, std::string(where) + " must be a table of store options");
  for (const auto& [key, value] : table.items()) {
    const OptionSpec* spec = find_spec(key);
    std::string name = std::string(where) + "." + key;
    if (!spec) throw StoreError(ErrorKind::Config, "unknown store option " + name);
    std::string v;
    switch (spec->type) {
      case OptionType::String:
        if (!value.is_string()) throw StoreError(ErrorKind::Config, name + " must be a string");
        v = value.get<std::string>();
        break;
      case OptionType::Bool:
        if (value.is_boolean()) v = value.get<bool>() ? "true" : "false";
        else if (value.is_string() && (lower(value.get<std::string>()) == "true" || lower(value.get<std::string>()) == "false"))
          v = lower(value.get<std::string>());
        else throw StoreError(ErrorKind::Config, name + " must be true or false");
        break;
      case OptionType::Duration: {
        // A number is seconds; a string may carry a unit (ms, s, m).
        double seconds = -1;
        if (value.is_number()) seconds = value.get<double>();
        else if (value.is_string()) {
          std::string s = lower(value.get<std::string>());
          char* end = nullptr;
          double n = std::strtod(s.c_str(), &end);
          std::string unit = end ? std::string(end) : std::string();
          if (end != s.c_str() && (unit.empty() || unit == "s")) seconds = n;
          else if (end != s.c_str() && unit == "ms") seconds = n / 1000;
          else if (end != s.c_str() && unit == "m") seconds = n * 60;
        }
        if (!(seconds >= 0) || seconds > 86400)
          throw StoreError(ErrorKind::Config, name + " must be a duration in seconds (a number, or \"500ms\", \"30s\")");
        v = std::to_string(static_cast<long long>(seconds * 1000)) + "ms";
        break;
      }
      case OptionType::Integer:
        if (!value.is_number_integer() || value.get<long long>() < 0)
          throw StoreError(ErrorKind::Config, name + " must be a non-negative integer");
        v = std::to_string(value.get<long long>());
        break;
    }
    out.values[spec->name] = v;
  }
  return out;
}

Options options_from_settings(const nlohmann::json& settings, std::string_view where) {
  Options out;
  if (!settings.is_object()) return out;
  if (auto it = settings.find("storage_options"); it != settings.end())
    out = options_from(*it, std::string(where) + ".storage_options");
  nlohmann::json direct = nlohmann::json::object();
  for (const auto& [key, value] : settings.items())
    if (key != "storage_options" && canonical_option(key)) direct[key] = value;
  out.merge(options_from(direct, where));
  return out;
}

std::string explain(const StoreError& e, const std::string& uri) {
  std::string msg = e.what();
  std::optional<Location> parsed;
  try {
    parsed = parse_location(uri);
  } catch (const StoreError&) {
  }
  // The rule's prefix as secrets rules match it (the URL as written): with an account in the
  // URL (abfs(s)://container@account.host/), the whole host part, which root() leaves out.
  std::string loc = parsed ? parsed->root() : uri;
  if (parsed && !parsed->account.empty()) {
    auto start = uri.find("://") + 3;
    loc = lower(uri.substr(0, start)) + uri.substr(start, uri.find('/', start) - start);
  }
  // Azure's keys and variables are its own; everything else speaks S3.
  const bool azure = parsed && parsed->service == Service::Azure;
  const std::string keys = azure ? "(account_name, account_key or sas_token) or in AZURE_STORAGE_ACCOUNT_NAME / "
                                   "AZURE_STORAGE_ACCOUNT_KEY / AZURE_STORAGE_SAS_TOKEN"
                                 : "(access_key_id, secret_access_key) or in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY";
  const std::string endpoint_env = azure ? "" : " or AWS_ENDPOINT_URL";
  switch (e.kind()) {
    case ErrorKind::Auth:
      return msg + "; give the store's keys in .tether/secrets.toml [uris.\"" + loc + "/\"] " + keys;
    case ErrorKind::Unreachable:
      return msg + "; check the endpoint: `endpoint` in .tether/secrets.toml [uris.\"" + loc + "/\"]" + endpoint_env;
    case ErrorKind::NoBucket:
      return msg + "; create it, or point `endpoint` in .tether/secrets.toml [uris.\"" + loc + "/\"]" +
             (azure ? "" : " (or AWS_ENDPOINT_URL)") + " at the store that holds it";
    default:
      return msg;
  }
}

Environment Environment::process() {
  Environment e;
  e.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
  const char* home = std::getenv("HOME");
  e.home = home ? home : "";
  return e;
}

// ---- paging ------------------------------------------------------------------------------

std::optional<std::string> Store::get(const std::string& key, const std::optional<Range>& range,
                                      const std::optional<std::string>& version, ObjectMeta* meta) {
  if (range && range->length && *range->length == 0) {
    std::optional<ObjectMeta> m = head(key, version);
    if (!m) return std::nullopt;
    if (meta) *meta = *m;
    return std::string();
  }
  return fetch(key, range, version, meta);
}

std::vector<ObjectMeta> Store::list_all(const std::string& prefix, const ListProgress& progress) {
  std::vector<ObjectMeta> out;
  std::optional<std::string> token;
  std::size_t empty_pages = 0;
  for (;;) {
    ListPage page = list_page(prefix, "", token);
    if (page.objects.empty() && ++empty_pages > 64)
      throw StoreError(ErrorKind::BadAnswer, root() + "/" + prefix + ": the listing keeps answering empty pages");
    if (!page.objects.empty()) empty_pages = 0;
    for (auto& o : page.objects) out.push_back(std::move(o));
    if (progress) progress(out.size());
    if (!page.next) break;
    if (token && *page.next == *token)
      throw StoreError(ErrorKind::BadAnswer, root() + "/" + prefix + ": the listing repeats its continuation token");
    token = std::move(page.next);
  }
  return out;
}

// ---- choosing the implementation -----------------------------------------------------------

std::unique_ptr<Store> open(const Location& location, const Options& options, const Environment& env) {
  switch (location.service) {
    case Service::S3:
    case Service::Gcs:
      return open_s3(location, options, env);
    case Service::Azure:
      return open_azure(location, options, env);
    case Service::Http:
      return open_http(location, options);
  }
  throw StoreError(ErrorKind::Config, location.root() + ": unknown store");
}

}  // namespace tether::support::objstore
