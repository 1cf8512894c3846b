#include "locator.hpp"

#include <sodium.h>

#include <charconv>

#include "tether/sdk/error.hpp"
#include "tether/support/redact.hpp"

namespace tether::ducklake {
namespace {

using sdk::BackendError;

constexpr std::string_view kPrefix = "ducklake:";
constexpr const char* kWayOut = "give the catalog as ducklake:sqlite:<path> or ducklake:postgres:<conninfo>";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string string_field(const sdk::Locator& loc, const char* key) {
  auto it = loc.find(key);
  if (it == loc.end() || it->is_null()) return {};
  if (!it->is_string()) throw BackendError(std::string("ducklake locator field '") + key + "' must be a string");
  return it->get<std::string>();
}

// A DuckDB secret name (`ducklake:my_lake`): no character a path would have.
bool looks_like_name(std::string_view rest) {
  return rest.find_first_of("/\\.~") == std::string_view::npos;
}

}  // namespace

std::string normalise_metadata(const std::string& metadata) {
  return starts_with(metadata, kPrefix) ? metadata : std::string(kPrefix) + metadata;
}

std::optional<int64_t> parse_snapshot_id(const sdk::Json& value) {
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    return v >= 0 ? std::optional<int64_t>(v) : std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  const std::string s = value.get<std::string>();
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

Target parse_locator(const sdk::Locator& loc) {
  if (!loc.is_object()) throw BackendError("ducklake locator must be an object");
  std::string metadata = string_field(loc, "metadata");
  if (metadata.empty()) metadata = string_field(loc, "uri");
  if (metadata.empty()) throw BackendError("ducklake locator needs 'metadata' (ducklake:sqlite:<path> or ducklake:postgres:<conninfo>)");
  Target t;
  t.metadata = normalise_metadata(metadata);
  std::string_view rest = std::string_view(t.metadata).substr(kPrefix.size());
  if (starts_with(rest, "sqlite:")) {
    t.flavour = Flavour::Sqlite;
    t.where = rest.substr(7);
  } else if (starts_with(rest, "postgres:")) {
    t.flavour = Flavour::Postgres;
    t.where = rest.substr(9);
  } else if (starts_with(rest, "duckdb:")) {
    throw BackendError("DuckDB-file DuckLake catalogs (" + redact(t.metadata) +
                       ") are not supported: tether reads catalogs without DuckDB; keep the catalog in SQLite or "
                       "Postgres and " + kWayOut);
  } else if (starts_with(rest, "md:") || starts_with(rest, "motherduck:")) {
    throw BackendError("MotherDuck DuckLake catalogs (" + t.metadata + ") are not supported; " + kWayOut);
  } else if (starts_with(rest, "mysql:")) {
    throw BackendError("MySQL DuckLake catalogs are not supported yet; " + std::string(kWayOut));
  } else if (rest.empty()) {
    throw BackendError("ducklake locator 'metadata' names no catalog after 'ducklake:'; " + std::string(kWayOut));
  } else if (looks_like_name(rest)) {
    throw BackendError("ducklake:" + std::string(rest) +
                       " names a DuckDB secret, which tether cannot read (it reads catalogs without DuckDB); " + kWayOut);
  } else {
    t.flavour = Flavour::Path;
    t.where = rest;
  }
  if (t.where.empty() && t.flavour != Flavour::Postgres)  // an empty conninfo means libpq's defaults
    throw BackendError("ducklake locator 'metadata' (" + redact(t.metadata) + ") names no catalog; " + kWayOut);
  if (t.flavour != Flavour::Postgres) {
    std::string p = t.where;
    if (starts_with(p, "file:")) throw BackendError("SQLite URI filenames (" + t.metadata + ") are not supported; write the path");
    if (p.front() != '/')
      throw BackendError("DuckLake catalog path '" + p + "' is relative; write it absolute" +
                         (t.flavour == Flavour::Path ? ", or as ducklake:sqlite:" + p + " (which `tether add` makes absolute)"
                                                     : std::string(" (`tether add` makes ducklake:sqlite: paths absolute; "
                                                                   "this one was written by hand)")));
  }
  t.data_path = string_field(loc, "data_path");
  t.metadata_schema = string_field(loc, "metadata_schema");
  if (!t.metadata_schema.empty() && t.flavour != Flavour::Postgres)
    throw BackendError("ducklake locator 'metadata_schema' applies to Postgres catalogs only");
  t.table = string_field(loc, "table");
  if (auto it = loc.find("at"); it != loc.end() && !it->is_null() && !(it->is_string() && it->get<std::string>().empty())) {
    t.at = parse_snapshot_id(*it);
    if (!t.at) throw BackendError("ducklake locator 'at' must be a snapshot id (digits), not " + it->dump());
  }
  return t;
}

sdk::Json identity_of(const Target& t) {
  sdk::Json id{{"metadata", t.metadata}};
  if (!t.data_path.empty()) id["data_path"] = t.data_path;
  if (!t.metadata_schema.empty()) id["metadata_schema"] = t.metadata_schema;
  return id;
}

std::string redact(const std::string& metadata) { return support::redact_secrets(metadata); }

std::string alias_of(const std::string& metadata) {
  static const int sodium_ready = sodium_init();  // idempotent and thread-safe
  (void)sodium_ready;
  unsigned char out[4];
  // crypto_generichash with a 4-byte output is BLAKE2b with digest_size 4 (the output length
  // is in the parameter block), matching Python's hashlib.blake2b(digest_size=4).
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(metadata.data()), metadata.size(), nullptr,
                     0);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string a = "tether_";
  for (unsigned char b : out) a += kHex[b >> 4], a += kHex[b & 15];
  return a;
}

std::string attach_sql(const std::string& metadata, const std::string& alias, const AttachOptions& o) {
  auto quoted = [](const std::string& v) {
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
  };
  std::string opts;
  auto add = [&](const std::string& o) { opts += (opts.empty() ? "" : ", ") + o; };
  if (!o.data_path.empty()) add("DATA_PATH " + quoted(o.data_path));
  if (!o.metadata_schema.empty()) add("METADATA_SCHEMA " + quoted(o.metadata_schema));
  if (o.snapshot_id) add("SNAPSHOT_VERSION " + std::to_string(*o.snapshot_id));
  if (o.read_only) add("READ_ONLY");
  std::string sql = "ATTACH " + quoted(metadata) + " AS " + alias;
  if (!opts.empty()) sql += " (" + opts + ")";
  return sql;
}

}  // namespace tether::ducklake
