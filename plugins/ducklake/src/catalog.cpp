#include "catalog.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "tether/sdk/error.hpp"

namespace fs = std::filesystem;

namespace tether::ducklake {

std::string quote_ident(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

bool truthy(const Value& v, bool null_as) {
  if (!v) return null_as;
  return *v != "0" && *v != "f" && *v != "false" && *v != "FALSE";
}

FileKind sniff_file(const std::string& path) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return FileKind::Missing;
  if (ec) return FileKind::Unreadable;
  if (st.type() != fs::file_type::regular) return FileKind::Other;
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileKind::Unreadable;
  char head[16] = {};
  in.read(head, sizeof head);
  std::streamsize n = in.gcount();
  if (n == 0) return FileKind::Empty;
  if (n == 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0) return FileKind::Sqlite;
  if (n >= 12 && std::memcmp(head + 8, "DUCK", 4) == 0) return FileKind::DuckDb;
  return FileKind::Other;
}

std::unique_ptr<Catalog> open_catalog(const Target& t) {
  std::string shown = redact(t.metadata);
  if (t.flavour == Flavour::Postgres) return open_postgres(t.where, t.secrets, t.metadata_schema, shown);
  switch (sniff_file(t.where)) {
    case FileKind::Sqlite:
      return open_sqlite(t.where, shown);
    case FileKind::Missing:
      throw sdk::BackendError("DuckLake catalog " + t.where + " does not exist");
    case FileKind::Unreadable:
      throw sdk::BackendError("cannot read the DuckLake catalog " + t.where + ": " + std::strerror(errno));
    case FileKind::Empty:
      throw sdk::BackendError(t.where + " is an empty file, not a DuckLake catalog");
    case FileKind::DuckDb:
      throw sdk::BackendError(t.where + " is a DuckDB database file: tether reads DuckLake catalogs kept in SQLite "
                              "(ducklake:sqlite:<path>) or Postgres (ducklake:postgres:<conninfo>) without DuckDB, and "
                              "cannot read a DuckDB-file catalog; keep the catalog in SQLite or Postgres to track it");
    case FileKind::Other:
      break;
  }
  throw sdk::BackendError(t.where + " is not a SQLite database, so not a DuckLake catalog tether can read");
}

}  // namespace tether::ducklake
