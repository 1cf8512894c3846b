// repository: reading an Icechunk repository (a local directory or an object-store prefix,
// through storage.hpp) in either on-disk format
// (docs/backends.md#icechunk): spec 1 keeps one `refs/<branch|tag>.<name>/ref.json` per ref
// and a parent id in every snapshot file; spec 2 keeps refs, the snapshot list with parents
// and an operations log in the single binary `repo` file. Migrated repositories mix the
// two (a spec-2 `repo` over spec-1 snapshot files), so every file is decoded by its own
// header. Reading never writes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <memory>

#include "metadata_file.hpp"
#include "storage.hpp"

namespace tether::icechunk {

struct SnapshotInfo {
  std::string id;
  std::optional<std::string> parent;  // none for a root
  uint64_t flushed_at_us = 0;         // commit time, microseconds since the epoch
  std::string message;
  std::vector<std::string> pruned_ancestor_tx_logs;  // spec 2.1, oldest first
};

// A commit time as Icechunk prints it: "2026-11-29T22:03:45.074354+00:00".
std::string iso_utc_us(uint64_t us);

struct Node {
  enum class Kind { Group, Array };
  std::string id;    // 8-byte node id, base32
  std::string path;  // "/", "/a", "/a/b"
  Kind kind = Kind::Group;
  std::string user_data;               // the node's zarr.json
  std::vector<std::string> manifests;  // ids of the manifests holding an array's chunk refs
};

struct Snapshot {
  SnapshotInfo info;
  int spec_version = 0;  // of the file
  std::string writer;    // the header's implementation name
  std::vector<Node> nodes;                  // sorted by path
  std::vector<std::string> manifest_files;  // ids, from the spec-1 or spec-2 list
  std::vector<uint64_t> manifest_sizes;     // their file sizes (header included), same order
};

struct Update {
  std::string type;  // "NewCommitUpdate", "TagCreatedUpdate", ...
  uint64_t updated_at_us = 0;
  std::optional<std::string> backup_path;
};

class Repository {
 public:
  // Opens the repository in `storage`: FormatError when there is none (no `repo` file and
  // no `refs/branch.main/ref.json`) or its `repo` file cannot be read (StorageError when the
  // store fails).
  static Repository open(std::shared_ptr<Storage> storage);
  // The local repository at `root`.
  static Repository open(const std::string& root) { return open(local_storage(root)); }

  const std::string& root() const { return storage_->root(); }
  Storage& storage() const { return *storage_; }
  int format() const { return format_; }  // 1 or 2
  const std::map<std::string, std::string>& branches() const { return branches_; }  // name -> snapshot id
  const std::map<std::string, std::string>& tags() const { return tags_; }
  const std::vector<std::string>& deleted_tags() const { return deleted_tags_; }  // sorted
  std::optional<std::string> branch(const std::string& name) const;
  std::optional<std::string> tag(const std::string& name) const;

  // Spec 2: the `repo` file's snapshot list (sorted by id) and operations log (newest
  // first), and who wrote it. Empty for spec 1.
  const std::vector<SnapshotInfo>& repo_snapshots() const { return repo_snapshots_; }
  const std::vector<Update>& ops_log() const { return ops_log_; }
  const std::string& repo_writer() const { return repo_writer_; }

  // The snapshot file `snapshots/<id>`, decoded. The parent comes from the `repo` file in
  // spec 2 and from the file itself in spec 1.
  Snapshot read_snapshot(const std::string& id) const;
  // Id, parent, time and message: from `repo` (spec 2, no file read) or the snapshot file.
  SnapshotInfo snapshot_info(const std::string& id) const;
  bool has_snapshot(const std::string& id) const;
  // The snapshot and its ancestors to the root, newest first; at most `limit` (0: all).
  std::vector<SnapshotInfo> ancestry(const std::string& id, std::size_t limit = 0) const;

  // `<root>/<rel>`: how messages name an object.
  std::string path(const std::string& rel) const { return storage_->name(rel); }

 private:
  void load_refs_v1();
  void load_repo_v2(const Bytes& bytes);

  std::shared_ptr<Storage> storage_;
  int format_ = 0;
  std::map<std::string, std::string> branches_, tags_;
  std::vector<std::string> deleted_tags_;
  std::vector<SnapshotInfo> repo_snapshots_;
  std::map<std::string, std::size_t> repo_index_;  // id -> position in repo_snapshots_
  std::vector<Update> ops_log_;
  std::string repo_writer_;
};

}  // namespace tether::icechunk
