// storage: where the objects of one Icechunk repository live (docs/backends.md#icechunk): a
// local directory or a prefix in an object store. The reader and the writer see a repository
// only through this seam: whole reads, existence and size, a listing, create-if-absent, a
// replace conditional on the version read, and delete.
//
// Local: the files under the repository's directory, written the way Icechunk's own local
// backend writes them (a `<target>#<digits>` staging file, then link() for create-if-absent
// and rename() for replace), with tether's own writers serialised by flock() on the directory.
// Object stores: one objstore::Store and a key prefix; create-if-absent is a PUT with
// `If-None-Match: *`, a replace is a PUT with `If-Match: <ETag read>` (the store is the
// arbiter: no lock), and immutable metadata files (transaction logs, spec-2 snapshots) are
// cached by name for the life of the storage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metadata_file.hpp"

namespace tether::support::objstore {
class Store;
}

namespace tether::icechunk {

using Bytes = std::vector<uint8_t>;

// An object as read, with what identifies that version of it for a conditional replace
// (local: inode, size and modification time; object stores: the ETag).
struct Versioned {
  Bytes bytes;
  std::string token;
};

// The store failed (unreachable, access denied, no bucket, an answer it cannot read). The
// message names the object and the way out.
class StorageError : public FormatError {
 public:
  using FormatError::FormatError;
};

class Storage {
 public:
  virtual ~Storage() = default;

  // "/abs/path/repo.icechunk" or "s3://bucket/prefix/repo.icechunk": how messages name it.
  const std::string& root() const { return root_; }
  // `<root>/<rel>`: how messages name one object.
  std::string name(const std::string& rel) const { return root_ + "/" + rel; }
  virtual bool is_local() const = 0;

  // The whole object, or nullopt when it does not exist.
  virtual std::optional<Bytes> read(const std::string& rel) = 0;
  // A snapshot, manifest or transaction log: as read(), through a cache where the storage
  // keeps one (of the files that never change, manifests excepted), and on an object store
  // in parallel ranged parts when it is large (kReadPartBytes).
  virtual std::optional<Bytes> read_immutable(const std::string& rel) { return read(rel); }
  // Its size, or nullopt when it does not exist.
  virtual std::optional<uint64_t> size(const std::string& rel) = 0;
  bool exists(const std::string& rel) { return size(rel).has_value(); }
  // The keys (relative to the root) of every object under `prefix` (a folder: "refs/"),
  // sorted; staging names (`<name>#<digits>`) left out.
  virtual std::vector<std::string> list(const std::string& prefix) = 0;
  // Whether there is nothing at the root at all (a new repository may go there).
  virtual bool vacant() = 0;

  // The object and its version, or nullopt when it does not exist.
  virtual std::optional<Versioned> read_versioned(const std::string& rel) = 0;
  // Creates the object only if it does not exist: false when it does.
  virtual bool create(const std::string& rel, const Bytes& bytes) = 0;
  // Replaces the object, read as `current`, with `bytes` only if it is still that version;
  // with a `backup` name, first keeps the version read as that object. false when the object
  // changed meanwhile (then nothing is replaced and the backup is gone again).
  virtual bool replace(const std::string& rel, const Versioned& current, const Bytes& bytes,
                       const std::string& backup = {}) = 0;
  // Removes the object; absent is not an error.
  virtual void remove(const std::string& rel) = 0;

  // Held by tether's writers across a read-check-write: flock() of the directory locally;
  // nothing on object stores, whose conditional writes decide.
  class Guard {
   public:
    virtual ~Guard() = default;
  };
  virtual std::unique_ptr<Guard> serialise() = 0;

  // Before creating a repository: the local folders Icechunk's own local backend makes.
  virtual void prepare_new() {}
  // Removes every object of the repository.
  virtual void remove_all() = 0;

  // For tests: how many ranged GETs read_immutable has made (0 locally).
  virtual uint64_t ranged_reads() const { return 0; }

 protected:
  explicit Storage(std::string root) : root_(std::move(root)) {}

 private:
  std::string root_;
};

// A local repository at `root` (an absolute or relative directory path; trailing '/' dropped).
std::shared_ptr<Storage> local_storage(const std::string& root);

// Snapshots, manifests and transaction logs on an object store are read in parts of this
// size, several at a time, when they are larger (one ranged GET for a smaller one).
constexpr uint64_t kReadPartBytes = uint64_t{8} << 20;

// The repository under `prefix` (keys `<prefix>/<rel>`; "" = the bucket's root) of `store`,
// named `uri` in messages. Store failures are StorageErrors worded by objstore::explain (the
// way out: where keys and the endpoint are configured). `read_part_bytes` (0: kReadPartBytes)
// lets tests read in parts without writing huge objects.
std::shared_ptr<Storage> object_storage(std::shared_ptr<support::objstore::Store> store, const std::string& prefix,
                                        const std::string& uri, uint64_t read_part_bytes = 0);

// Names Rust's object_store leaves behind while writing (`<name>#<digits>`).
bool is_staging_name(const std::string& name);

}  // namespace tether::icechunk
