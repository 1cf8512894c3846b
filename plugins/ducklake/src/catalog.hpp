// catalog: the narrow interface to the SQL database holding a DuckLake catalog. Every
// operation of the backend opens one Catalog, reads inside one read-only transaction (so
// the snapshot list and the file rows agree) and closes it; tether never writes a catalog.
// Two implementations: SQLite (read-only, never created) and Postgres (libpq).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locator.hpp"

namespace tether::ducklake {

using Value = std::optional<std::string>;  // one column as text; nullopt for SQL NULL
using Row = std::vector<Value>;
using Rows = std::vector<Row>;

class Catalog {
 public:
  virtual ~Catalog() = default;
  // Runs one SELECT; each `?` binds the next integer of `params`. Columns come back as text
  // (integers in decimal, Postgres booleans as t/f). Throws sdk::BackendError.
  virtual Rows query(std::string_view sql, const std::vector<int64_t>& params = {}) = 0;
  // Probing (docs/backends.md#ducklake): the tables of the catalog's schema, and one table's
  // columns.
  virtual std::vector<std::string> tables() = 0;
  virtual std::vector<std::string> columns(const std::string& table) = 0;
  // The catalog for messages, passwords removed (`ducklake:sqlite:/data/cat.db`).
  virtual const std::string& display() const = 0;
};

// A double-quoted SQL identifier (`"ducklake_inlined_data_1_1"`), valid in SQLite and Postgres.
std::string quote_ident(const std::string& name);
// A boolean column as either database returns it (SQLite 0/1, Postgres t/f); NULL is `null_as`.
bool truthy(const Value& v, bool null_as);

// What the first bytes of a file say it is.
enum class FileKind { Missing, Unreadable, Empty, Sqlite, DuckDb, Other };
FileKind sniff_file(const std::string& path);

// Opens the catalog a parsed locator names; a DuckDB file, a missing file or an unreachable
// server is an sdk::BackendError that says so.
std::unique_ptr<Catalog> open_catalog(const Target& target);

std::unique_ptr<Catalog> open_sqlite(const std::string& path, const std::string& display);
// `secrets`: the object's options from .tether/secrets.toml (pg_credentials.hpp).
std::unique_ptr<Catalog> open_postgres(const std::string& conninfo, const sdk::Json& secrets, const std::string& schema,
                                       const std::string& display);

}  // namespace tether::ducklake
