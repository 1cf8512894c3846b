// locator: what a `ducklake` locator names (docs/backends.md#ducklake) and the strings
// made from it: the normalised metadata, its catalog flavour, the identity, the password-free
// form for messages, and the ATTACH statement (with its alias) a DuckDB user runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tether/sdk/types.hpp"

namespace tether::ducklake {

enum class Flavour {
  Sqlite,    // ducklake:sqlite:<path>
  Postgres,  // ducklake:postgres:<conninfo>
  Path,      // ducklake:<path>: a SQLite file is read, a DuckDB file refused (decided by its header)
};

struct Target {
  std::string metadata;         // with the `ducklake:` prefix, as ATTACH takes it
  Flavour flavour = Flavour::Sqlite;
  std::string where;            // the SQLite path or the libpq conninfo
  std::string data_path;        // locator override of the catalog's data path; empty: none
  std::string metadata_schema;  // Postgres schema of the catalog tables; empty: the default
  std::string table;            // scopes the handle only
  std::optional<int64_t> at;    // the snapshot the locator is held at
  // Not from the locator: the object's options from .tether/secrets.toml, which alone may
  // give a Postgres catalog credentials (pg_credentials.hpp). The backend fills it.
  sdk::Json secrets = sdk::Json::object();
};

// `metadata` (or `uri`) with `ducklake:` prepended when missing.
std::string normalise_metadata(const std::string& metadata);

// Parses and checks a locator without touching the catalog. Throws sdk::BackendError naming
// the problem: no metadata, an unsupported catalog (DuckDB file, MotherDuck, MySQL, a secret
// name), a relative SQLite path, a non-numeric `at`.
Target parse_locator(const sdk::Locator& locator);

// {metadata[, data_path][, metadata_schema]}: what names the lakehouse (`table`, `at` do not).
sdk::Json identity_of(const Target& t);

// The metadata through support::redact_secrets (a `password=` keyword, the password of a
// postgresql:// URI, ... become `****`), for messages and printed addresses.
std::string redact(const std::string& metadata);

// `tether_` + hex BLAKE2b with a 4-byte output over the metadata string.
std::string alias_of(const std::string& metadata);

struct AttachOptions {
  std::string data_path;               // DATA_PATH, when not empty
  std::string metadata_schema;         // METADATA_SCHEMA, when not empty
  std::optional<int64_t> snapshot_id;  // SNAPSHOT_VERSION
  bool read_only = true;               // READ_ONLY
};
// ATTACH '<metadata>' AS <alias> (DATA_PATH '…', METADATA_SCHEMA '…', SNAPSHOT_VERSION n, READ_ONLY)
// with single quotes doubled, options in that order and only when present, no parentheses
// when there are none.
std::string attach_sql(const std::string& metadata, const std::string& alias, const AttachOptions& options = {});

// A snapshot id from a locator `at`, a history ref or a state field: digits only.
std::optional<int64_t> parse_snapshot_id(const sdk::Json& value);

}  // namespace tether::ducklake
