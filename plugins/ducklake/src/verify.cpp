#include "verify.hpp"

#include <filesystem>

#include "timestamp.hpp"

namespace fs = std::filesystem;

namespace tether::ducklake {
namespace {

bool has_scheme(const std::string& p) {
  auto colon = p.find("://");
  return colon != std::string::npos && colon > 0 && p.find('/') > colon;
}

std::string join(const std::string& base, const std::string& rel) {
  if (base.empty()) return rel;
  return base.back() == '/' ? base + rel : base + "/" + rel;
}

// Files visible at `s` (data files, then delete files) that are missing under `root`: the
// count checked, the count missing and the first missing path.
struct FileCheck {
  int64_t checked = 0, missing = 0;
  std::string example;
};

FileCheck check_files(Lake& lake, int64_t s, const std::string& root) {
  FileCheck out;
  Names names = lake.names();
  auto check = [&](const std::string& table_sql) {
    if (!lake.has_table(table_sql)) return;
    std::string sql = "SELECT table_id, path, path_is_relative FROM " + table_sql +
                      " WHERE begin_snapshot <= ? AND (end_snapshot IS NULL OR ? < end_snapshot)";
    for (const Row& r : lake.catalog().query(sql, {s, s})) {
      auto table = as_int(r[0]);
      if (!table || !r[1]) continue;
      std::string path = *r[1];
      if (truthy(r[2], true)) {
        std::string base = root;
        if (const TableRow* t = names.table_at(*table, s)) {
          if (!t->schema_path.empty()) base = t->schema_path_relative ? join(base, t->schema_path) : t->schema_path;
          if (!t->table_path.empty()) base = t->table_path_relative ? join(base, t->table_path) : t->table_path;
        }
        path = join(base, path);
      }
      if (path.rfind("file://", 0) == 0) path = path.substr(7);
      if (has_scheme(path) || path.empty() || path.front() != '/') continue;  // not a local absolute path
      ++out.checked;
      std::error_code ec;
      if (!fs::exists(path, ec)) {
        if (out.missing++ == 0) out.example = path;
      }
    }
  };
  check("ducklake_data_file");
  check("ducklake_delete_file");
  return out;
}

}  // namespace

std::string missing_snapshot_message(Lake& lake, int64_t id) {
  std::string s = std::to_string(id);
  Snapshot newest = lake.latest();
  if (id > newest.id)
    return "snapshot " + s + " is not in the catalog " + lake.display() + ", whose newest snapshot is " +
           std::to_string(newest.id) + ": the catalog was recreated or restored from an older copy";
  return "snapshot " + s + " is not in the catalog " + lake.display() +
         " (expired?): retention removed it (ducklake_expire_snapshots deletes old snapshots), so this state can no "
         "longer be opened";
}

sdk::VerifyReport verify_snapshot(Lake& lake, int64_t id, std::optional<int64_t> recorded, bool deep,
                                  const std::string& data_path) {
  auto snap = lake.snapshot(id);
  if (!snap) return {sdk::VerifyStatus::Missing, missing_snapshot_message(lake, id)};
  if (recorded && *recorded != snap->time_us)
    return {sdk::VerifyStatus::Drifted, "snapshot " + std::to_string(id) +
                                            " has a different commit time (catalog recreated?): recorded " +
                                            iso_utc_seconds(*recorded) + ", the catalog says " +
                                            iso_utc_seconds(snap->time_us)};
  if (!deep) return {sdk::VerifyStatus::Ok, ""};
  std::string root = data_path.empty() ? lake.data_path() : data_path;
  if (root.rfind("file://", 0) == 0) root = root.substr(7);
  if (root.empty()) return {sdk::VerifyStatus::Ok, "data files not checked: the catalog names no data path"};
  if (has_scheme(root)) return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root + " is not local"};
  if (root.front() != '/')
    return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root +
                                       " is relative; give the locator an absolute data_path to check them"};
  std::error_code ec;
  if (!fs::is_directory(root, ec))  // elsewhere (another machine, a mount not here): nothing to say
    return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root + " is not a directory here"};
  FileCheck c = check_files(lake, id, root);
  if (c.missing)
    return {sdk::VerifyStatus::Missing, std::to_string(c.missing) + " of " + std::to_string(c.checked) +
                                            " files visible at snapshot " + std::to_string(id) + " are gone, e.g. " +
                                            c.example};
  return {sdk::VerifyStatus::Ok, ""};
}

}  // namespace tether::ducklake
