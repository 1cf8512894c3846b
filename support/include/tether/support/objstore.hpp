// tether/support/objstore.hpp: one small client for object stores, used by every plugin that
// reads or writes one (file, icechunk, ducklake). A Store is a bucket (S3 and S3-compatible
// stores: Ceph RGW, MinIO, R2, Google Cloud Storage's XML API) or a container (Azure Blob), or,
// read-only, one HTTP(S) server; keys are relative to it and never start with '/'.
//
// Every call is synchronous and safe from several threads at once; a Store keeps its
// connections between calls. Failures are StoreError with a kind the caller maps to its own
// layer's error; messages name the store and key, never a credential.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tether::support::objstore {

// ---- where -------------------------------------------------------------------------------

enum class Service { S3, Gcs, Azure, Http };

// A parsed object-store URL: s3://bucket/key, s3a://, gs:// and gcs:// (GCS's S3-compatible
// API), az://container/key, azure://, abfs(s)://container@account.dfs.core.windows.net/key,
// adl://, http(s)://host/path (read-only).
struct Location {
  Service service = Service::S3;
  std::string scheme;  // as written, lowercase
  std::string bucket;  // bucket / container; for http(s) the host[:port]
  std::string account; // abfs(s)://container@account...: the account the URL names; else ""
  std::string key;     // the URL path without its leading '/' (percent-decoded); "" = the root

  // scheme://bucket: how messages name the store.
  std::string root() const;
};

// Parses an object-store URL. nullopt for anything that is not one (a local path, file://);
// throws StoreError{Config} for an object-store URL that cannot be used: an empty or invalid
// bucket name, a key with "." or ".." segments, a query or fragment on s3/az URLs.
std::optional<Location> parse_location(std::string_view uri);

// ---- options -----------------------------------------------------------------------------

// Store options with canonical names. The spellings accepted (any case, with or without an
// `aws_`, `azure_`, `azure_storage_` or `google_` prefix) are those of the reference
// (obstore): access_key_id, secret_access_key, session_token (token), region
// (default_region), endpoint (endpoint_url), virtual_hosted_style_request, skip_signature,
// conditional_put, profile, account_name, account_key (access_key, master_key), sas_token
// (sas_key), use_emulator, allow_http, allow_invalid_certificates, connect_timeout, timeout,
// user_agent, ... (objstore.cpp lists them all).
struct Options {
  std::map<std::string, std::string> values;  // canonical name -> value (booleans "true"/"false")

  const std::string* find(const std::string& name) const;
  bool flag(const std::string& name) const;  // a boolean option, false when unset
  // Overlays `other` (its values win).
  void merge(const Options& other);
};

// The canonical name of a key spelling; nullopt when it is not a store option.
std::optional<std::string> canonical_option(std::string_view key);

// Reads a table of options (strings, booleans, numbers). Throws StoreError{Config} naming
// `where` and the key for an unknown key or a value of the wrong type.
Options options_from(const nlohmann::json& table, std::string_view where);

// The options of one object from a plugin's merged settings (the SDK's secrets_for: the kind's
// committed safe keys and secrets, then the matched URI rule): the `storage_options` table,
// then the settings' own top-level keys that are store options (a secrets rule may write
// `access_key_id = ...` directly); other keys are the plugin's and are skipped.
Options options_from_settings(const nlohmann::json& settings, std::string_view where);

// Where the ambient configuration comes from: the process environment and the user's home
// (~/.aws/credentials, ~/.aws/config). Tests substitute their own.
struct Environment {
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::string home;
  static Environment process();
};

// ---- what the store says -----------------------------------------------------------------

struct ObjectMeta {
  std::string key;
  uint64_t size = 0;
  std::string etag;                       // surrounding double quotes stripped; "" when the store gave none
  std::optional<std::string> version_id;  // absent, or a version other than the literal "null"
  std::string last_modified;              // as the store wrote it
  bool is_latest = true;                  // list_versions only
  bool delete_marker = false;             // list_versions only
};

struct Range {
  uint64_t offset = 0;
  std::optional<uint64_t> length;  // nullopt = to the end
};

enum class ErrorKind {
  NotFound,            // no such key or version (only from calls that do not return nullopt for it)
  NoBucket,            // the bucket or container does not exist
  PreconditionFailed,  // a conditional put lost: the key exists, or its ETag moved
  Auth,                // credentials missing, refused, or without permission
  Unreachable,         // no answer: DNS, connection refused, TLS, timeouts after the retries
  Config,              // a bad URL or option; nothing was sent
  BadAnswer,           // the store answered something this client cannot read
  Unsupported,         // the operation does not exist for this service (e.g. a put over HTTP)
  Other,               // any other error status
};

class StoreError : public std::runtime_error {
 public:
  StoreError(ErrorKind kind, const std::string& message, long status = 0)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  ErrorKind kind() const { return kind_; }
  long status() const { return status_; }  // the HTTP status, 0 when there was none

 private:
  ErrorKind kind_;
  long status_;
};

// A conditional put: create only (If-None-Match: *), or replace the version whose ETag is
// given (If-Match: <etag>, sent unquoted as Icechunk sends it).
struct PutCondition {
  enum class Kind { Always, IfAbsent, IfMatch } kind = Kind::Always;
  std::string etag;
  static PutCondition always() { return {}; }
  static PutCondition if_absent() { return {Kind::IfAbsent, {}}; }
  static PutCondition if_match(std::string etag) { return {Kind::IfMatch, std::move(etag)}; }
};

struct PutResult {
  std::string etag;
  std::optional<std::string> version_id;
};

struct ListPage {
  std::vector<ObjectMeta> objects;
  std::vector<std::string> common_prefixes;  // with a delimiter: the "directories"
  std::optional<std::string> next;           // the continuation token, when there is more
};

// Called while a long listing runs, with the number of entries read so far.
using ListProgress = std::function<void(uint64_t)>;

// ---- the store -----------------------------------------------------------------------------

class Store {
 public:
  virtual ~Store() = default;

  // "s3://bucket" (no credential, no endpoint): how messages name this store.
  virtual std::string root() const = 0;

  // The object's metadata, or nullopt when the key (or that version) does not exist.
  virtual std::optional<ObjectMeta> head(const std::string& key, const std::optional<std::string>& version = {}) = 0;

  // The object's bytes (a range of them), or nullopt when the key (or version) does not
  // exist. `meta`, when given, receives what the answer said about the object. A range of
  // length 0 is a HEAD (no store answers an empty Range header); the rest is fetch().
  std::optional<std::string> get(const std::string& key, const std::optional<Range>& range = {},
                                 const std::optional<std::string>& version = {}, ObjectMeta* meta = nullptr);

  // Writes the object. Throws StoreError{PreconditionFailed} when the condition fails.
  virtual PutResult put(const std::string& key, std::string_view body, const PutCondition& condition = {}) = 0;

  // Removes the object (or that version of it); absent is not an error.
  virtual void remove(const std::string& key, const std::optional<std::string>& version = {}) = 0;

  // One page of the objects whose keys start with `prefix`, in key order. With a delimiter,
  // keys with it after the prefix are folded into common_prefixes.
  virtual ListPage list_page(const std::string& prefix, const std::string& delimiter,
                             const std::optional<std::string>& continuation) = 0;

  // Every version of every object under `prefix`, delete markers included, newest first per key.
  virtual std::vector<ObjectMeta> list_versions(const std::string& prefix) = 0;

  // Makes the bucket (container) itself; one that exists already and is ours is fine. Used by
  // tests and conformance harnesses: tether never creates buckets on a user's behalf.
  virtual void create_bucket() = 0;

  // Every object under `prefix` (no delimiter), paging through the whole listing.
  std::vector<ObjectMeta> list_all(const std::string& prefix, const ListProgress& progress = {});

 protected:
  // get() of a whole object, or of a range of at least one byte.
  virtual std::optional<std::string> fetch(const std::string& key, const std::optional<Range>& range,
                                           const std::optional<std::string>& version, ObjectMeta* meta) = 0;
};

// Opens the store `location` names with `options` (from secrets and the committed safe
// keys), filling what they leave out from `env` (AWS_* / AZURE_STORAGE_* variables, the
// AWS profile files), then anonymous. The endpoint comes only from `options` or `env`:
// never from the URL beyond the bucket. Throws StoreError{Config} for a bad option value.
// Sends nothing.
std::unique_ptr<Store> open(const Location& location, const Options& options,
                            const Environment& env = Environment::process());

// A one-line message for `e` about the object at `uri`, with the way out: for Auth where keys
// go (.tether/secrets.toml [uris."<root>/"] or the AWS_* variables), for Unreachable and
// NoBucket the endpoint settings. Never a credential (StoreError messages carry none).
std::string explain(const StoreError& e, const std::string& uri);

// ---- signing, exposed for tests ------------------------------------------------------------

// AWS Signature Version 4 of one request: returns the Authorization header value and sets
// the x-amz-date / x-amz-content-sha256 / x-amz-security-token headers in `headers`.
struct SigV4Request {
  std::string method;
  std::string host;           // the Host header value
  std::string path;           // already URI-encoded (each segment), starting with '/'
  std::map<std::string, std::string> query;  // raw names and values; encoded when signing
  std::map<std::string, std::string> headers;  // lowercase names; host is added
  std::string payload_sha256 = "UNSIGNED-PAYLOAD";
};
std::string sigv4_authorization(SigV4Request& request, const std::string& access_key_id,
                                const std::string& secret_access_key, const std::string& session_token,
                                const std::string& region, const std::string& service, const std::string& amz_date);

// RFC 3986 percent-encoding of everything but unreserved characters (and '/' when keep_slash).
std::string uri_encode(std::string_view s, bool keep_slash);

}  // namespace tether::support::objstore
