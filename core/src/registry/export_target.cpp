// core/src/registry/export_target.cpp: where `tether export` may write
// (docs/registry.md#export).
//
// An export replaces its target, so a mistyped or hostile PATH (`tether export tether.toml`)
// would destroy whatever was there. Two rules: never inside the dataset's `.tether/` or over
// its `tether.toml`, whatever the flags (symlinks and `..` resolved first); and over an
// existing file or directory only when it is recognisably a tether export, unless --force.
#include <sqlite3.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tether/errors.hpp"
#include "tether/registry/registry.hpp"

namespace tether::registry {

namespace fs = std::filesystem;

namespace {

// Where `p` really is: symlinks and `..` resolved as far as the path exists (the rest kept).
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) return p.lexically_normal();
  fs::path r = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : r;
}

bool inside(const fs::path& p, const fs::path& dir) {
  auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
}

// The first `limit` bytes of a regular file (less if shorter).
std::string head_of(const fs::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string buf(limit, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(limit));
  buf.resize(static_cast<std::size_t>(in.gcount()));
  return buf;
}

// A SQLite database holding a `tether_meta` table with a `schema_version` row. Opened
// read-only; any error (not a database, locked, a hot journal) means "not recognisably ours".
bool is_sqlite_export(const fs::path& p) {
  static const std::string magic("SQLite format 3\0", 16);
  if (head_of(p, 16) != magic) return false;
  sqlite3* db = nullptr;
  bool ours = false;
  if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT value FROM tether_meta WHERE key = 'schema_version'", -1, &st, nullptr) ==
        SQLITE_OK)
      ours = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
  }
  sqlite3_close_v2(db);
  return ours;
}

// A directory holding tether's schema.json: a JSON object with a numeric `schema_version` and
// a `tables` object that describes `tether_meta`.
bool is_directory_export(const fs::path& dir) {
  std::error_code ec;
  const fs::path schema = dir / "schema.json";
  if (!fs::is_regular_file(schema, ec)) return false;
  constexpr std::size_t kLimit = 1 << 20;  // ours is a few KB; a bigger file is someone else's
  std::string text = head_of(schema, kLimit + 1);
  if (text.size() > kLimit) return false;
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  auto v = doc.find("schema_version");
  auto t = doc.find("tables");
  return v != doc.end() && v->is_number_integer() && t != doc.end() && t->is_object() && t->contains("tether_meta");
}

}  // namespace

bool is_tether_export(const fs::path& path, const std::string& fmt) {
  std::error_code ec;
  if (fmt == "sqlite") return fs::is_regular_file(path, ec) && is_sqlite_export(path);
  return fs::is_directory(path, ec) && is_directory_export(path);
}

void check_export_target(const fs::path& path, const std::string& fmt, bool force, const fs::path& dataset_root) {
  const fs::path where = resolved(path);
  const fs::path root = resolved(dataset_root);
  const fs::path tether_dir = root / ".tether";
  const fs::path toml = root / "tether.toml";
  std::error_code ec;
  const bool hard_link_to_toml = fs::exists(path, ec) && fs::exists(toml, ec) && fs::equivalent(path, toml, ec);
  if (where == toml || hard_link_to_toml)
    throw ConfigError("refusing to export to " + path.string() + ": it is the dataset's tether.toml; export somewhere else");
  if (where == tether_dir || inside(where, tether_dir))
    throw ConfigError("refusing to export to " + path.string() + ": it is inside the dataset's .tether/; export somewhere else");
  if (force) return;

  const auto st = fs::symlink_status(path, ec);
  if (st.type() == fs::file_type::not_found) return;
  if (fmt == "sqlite") {
    if (fs::is_directory(path, ec)) return;  // the writer refuses a directory with its own message
    if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) == 0 && !ec) return;  // nothing to lose
    if (is_tether_export(path, fmt)) return;
    throw ConfigError(path.string() + " exists and is not a tether SQLite export; pass --force to replace it, or export "
                      "somewhere else");
  }
  if (!fs::is_directory(path, ec)) return;  // a file where the directory belongs: the writer says so
  if (fs::is_empty(path, ec) && !ec) return;
  if (is_tether_export(path, fmt)) return;
  throw ConfigError(path.string() + " is a directory that holds no tether export (no tether schema.json); pass --force to "
                    "write into it, or export somewhere else");
}

}  // namespace tether::registry
