// tether/registry/import_source.hpp: the rows `tether import` reads (docs/registry.md#import).
// Experimental, like the rest of the registry layer.
//
// A source is one of:
//   - a PostgreSQL DSN (`postgresql://...` / `postgres://...`): the query runs in a read-only
//     transaction, sent as one prepared statement (so a text with two statements fails);
//   - a `.csv` file (RFC 4180, a header row; every value a string, empty cells "");
//   - a `.jsonl` / `.ndjson` file (one JSON object per non-blank line, types kept);
//   - any other existing file: a SQLite database, opened read-only, one statement.
// A SQL source needs exactly one of `table` (runs `SELECT * FROM table`) or `query`.
//
// Errors are ConfigError with fixed texts (`import source not found: <source>`, `give
// exactly one of --table or --query for a SQL source`, `invalid table name: 'T'`, `the import
// query failed: <why>`); a PostgreSQL connection failure names host and port, never the DSN
// or its password.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tether::registry {

// True for a PostgreSQL DSN or any path not ending in .csv, .jsonl or .ndjson.
bool is_sql_source(const std::string& source);
// postgresql:// and postgres:// URIs, and key=value DSNs libpq reads that name no file.
bool is_postgres_dsn(const std::string& source);

// One JSON object per row: column name -> string, number, bool or null; a PostgreSQL json or
// jsonb column comes back parsed.
std::vector<nlohmann::json> read_source(const std::string& source, const std::optional<std::string>& table,
                                        const std::optional<std::string>& query);

// Parses CSV text (RFC 4180: quoted fields, doubled quotes, embedded newlines, CRLF) into rows
// of a header. `source` names the text in errors. Exposed for tests.
std::vector<nlohmann::json> parse_csv(const std::string& text, const std::string& source);

}  // namespace tether::registry
