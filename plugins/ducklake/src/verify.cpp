#include "verify.hpp"

#include <filesystem>
#include <map>
#include <memory>

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

// A file visible at a snapshot: where the catalog says it is, and, for a data file, its recorded
// size. DuckDB reads a data file's footer at the recorded size, so another size on disk is a
// broken file; a delete file is read whole, and DuckDB's own tests keep delete files whose
// size differs from the catalog's, so only its presence is checked.
struct VisibleFile {
  std::string path;
  std::optional<int64_t> size;
};

// Files visible at `s` (data files, then delete files), their paths resolved against `root`.
std::vector<VisibleFile> visible_files(Lake& lake, int64_t s, const std::string& root) {
  std::vector<VisibleFile> out;
  Names names = lake.names();
  auto collect = [&](const std::string& table_sql, bool sized) {
    if (!lake.has_table(table_sql)) return;
    std::string sql = "SELECT table_id, path, path_is_relative, file_size_bytes FROM " + table_sql +
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
      out.push_back({path, sized ? as_int(r[3]) : std::nullopt});
    }
  };
  collect("ducklake_data_file", true);
  collect("ducklake_delete_file", false);
  return out;
}

// What the check found: the count checked, missing and of another size, with an example each.
struct FileCheck {
  int64_t checked = 0, missing = 0, resized = 0;
  std::string missing_example, resized_example;
  void gone(const std::string& p) {
    if (missing++ == 0) missing_example = p;
  }
  void size_differs(const std::string& p, int64_t recorded, uint64_t now) {
    if (resized++ == 0)
      resized_example = p + " (" + std::to_string(recorded) + " bytes recorded, " + std::to_string(now) + " there)";
  }
};

void check_local(const std::vector<VisibleFile>& files, FileCheck& out) {
  for (const VisibleFile& f : files) {
    if (has_scheme(f.path) || f.path.empty() || f.path.front() != '/') continue;  // not a local absolute path
    ++out.checked;
    std::error_code ec;
    if (!fs::exists(f.path, ec)) out.gone(f.path);
  }
}

// Files under an object-store data root: one paged listing of the root's prefix (no HEAD per
// file), then a HEAD for each file the catalog places elsewhere in a store.
void check_remote(const std::vector<VisibleFile>& files, const std::string& root, const StoreOpener& open_store,
                  FileCheck& out) {
  namespace os = support::objstore;
  std::string prefix_uri = root.back() == '/' ? root : root + "/";
  std::map<std::string, std::unique_ptr<os::Store>> stores;  // by root
  auto store_for = [&](const os::Location& l) -> os::Store& {
    auto& s = stores[l.root()];
    if (!s) s = open_store(l);
    return *s;
  };
  std::optional<std::map<std::string, uint64_t>> listed;  // full URI -> size
  for (const VisibleFile& f : files) {
    std::optional<os::Location> l;
    try {
      l = os::parse_location(f.path);
    } catch (const os::StoreError&) {
      ++out.checked;
      out.gone(f.path);  // a path no store can hold
      continue;
    }
    if (!l) continue;
    ++out.checked;
    std::optional<uint64_t> size;
    if (f.path.rfind(prefix_uri, 0) == 0) {
      if (!listed) {
        auto root_loc = os::parse_location(prefix_uri);
        listed.emplace();
        for (const os::ObjectMeta& m : store_for(*root_loc).list_all(root_loc->key))
          (*listed)[root_loc->root() + "/" + m.key] = m.size;
      }
      auto it = listed->find(l->root() + "/" + l->key);
      if (it != listed->end()) size = it->second;
    } else if (auto m = store_for(*l).head(l->key)) {
      size = m->size;
    }
    if (!size) out.gone(f.path);
    else if (f.size && *f.size >= 0 && static_cast<uint64_t>(*f.size) != *size) out.size_differs(f.path, *f.size, *size);
  }
}

sdk::VerifyReport report(const FileCheck& c, int64_t id) {
  std::string at = " files visible at snapshot " + std::to_string(id);
  if (c.missing)
    return {sdk::VerifyStatus::Missing,
            std::to_string(c.missing) + " of " + std::to_string(c.checked) + at + " are gone, e.g. " + c.missing_example};
  if (c.resized)
    return {sdk::VerifyStatus::Drifted, std::to_string(c.resized) + " of " + std::to_string(c.checked) + at +
                                            " have another size than the catalog records, e.g. " + c.resized_example};
  return {sdk::VerifyStatus::Ok, ""};
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
                                  const std::string& data_path, const StoreOpener& open_store) {
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
  if (has_scheme(root)) {
    std::optional<support::objstore::Location> loc;
    try {
      loc = support::objstore::parse_location(root);
    } catch (const support::objstore::StoreError& e) {
      return {sdk::VerifyStatus::Unknown, "data files not checked: " + std::string(e.what())};
    }
    if (!loc || loc->service == support::objstore::Service::Http || !open_store)
      return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root + " is not local"};
    FileCheck c;
    try {
      check_remote(visible_files(lake, id, root), root, open_store, c);
    } catch (const support::objstore::StoreError& e) {
      // The store did not answer: that says nothing about the files.
      return {sdk::VerifyStatus::Unknown, "data files not checked: " + support::objstore::explain(e, root)};
    }
    return report(c, id);
  }
  if (root.front() != '/')
    return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root +
                                       " is relative; give the locator an absolute data_path to check them"};
  std::error_code ec;
  if (!fs::is_directory(root, ec))  // elsewhere (another machine, a mount not here): nothing to say
    return {sdk::VerifyStatus::Ok, "data files not checked: the data path " + root + " is not a directory here"};
  FileCheck c;
  check_local(visible_files(lake, id, root), c);
  return report(c, id);
}

}  // namespace tether::ducklake
