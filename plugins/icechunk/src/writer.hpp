// writer: the ref changes tether makes in an Icechunk repository (a local directory or an
// object-store prefix, through storage.hpp), done the way Icechunk does them, and the creation
// of an empty repository (docs/backends.md#icechunk).
//
// Spec 1: one small JSON file per ref. Creating a ref is create-if-absent (locally a temp file
// hard-linked to `ref.json`; on an object store a PUT with `If-None-Match: *`); moving it
// replaces it if it is still the version read (rename; `If-Match: <ETag>`); deleting a tag
// leaves `ref.json` and adds the `ref.json.deleted` tombstone.
// Spec 2: every change rewrites the single `repo` file: the previous version is first kept
// under `overwritten/`, the operations log gains an entry (strictly newer than the last),
// every list is sorted and every index rebuilt, the new file is verified, then it replaces
// `repo` if `repo` is still the version read (rename; `If-Match`), else the change starts over
// from the new version. A `repo` carrying a field or update type this code does not know is
// never rewritten (reading stays possible).
//
// On a local disk all writers of one repository in this process and in other tether
// processes also serialise on flock() of the repository directory. Real Icechunk takes no
// lock on a local disk; one writer at a time is the rule there. On an object store the
// store's conditional writes decide between any writers, real Icechunk included.
#pragma once

#include <optional>
#include <string>

#include "metadata_file.hpp"
#include "storage.hpp"

namespace tether::icechunk {

// A ref operation refused because of the repository's refs (not its files).
class RefError : public FormatError {
 public:
  enum class Kind { Exists, NotFound, PreviouslyDeleted, Conflict };
  RefError(Kind kind, const std::string& message, std::optional<std::string> actual = std::nullopt)
      : FormatError(message), kind_(kind), actual_(std::move(actual)) {}
  Kind kind() const { return kind_; }
  // Conflict: the snapshot the ref is at now (none: it does not exist).
  const std::optional<std::string>& actual() const { return actual_; }

 private:
  Kind kind_;
  std::optional<std::string> actual_;
};

// The functions taking `root` work on the local repository at that path.

// Branch and tag names tether writes: non-empty, no '/', no NUL (portable across formats).
void check_ref_name(const std::string& name);

// Create branch `name` at `snapshot` (RefError Exists when it exists).
void create_branch(Storage& storage, const std::string& name, const std::string& snapshot);
void create_branch(const std::string& root, const std::string& name, const std::string& snapshot);
// Move branch `name` to `snapshot`; with `expected`, only if it is at that snapshot now
// (RefError Conflict otherwise; NotFound when the branch does not exist).
void reset_branch(Storage& storage, const std::string& name, const std::string& snapshot,
                  const std::optional<std::string>& expected);
void reset_branch(const std::string& root, const std::string& name, const std::string& snapshot,
                  const std::optional<std::string>& expected);
// Delete branch `name` (never `main`); with `expected`, only if it is at that snapshot.
void delete_branch(Storage& storage, const std::string& name, const std::optional<std::string>& expected);
void delete_branch(const std::string& root, const std::string& name, const std::optional<std::string>& expected);
// Create tag `name` at `snapshot`: Exists when it exists, PreviouslyDeleted when the name was
// used by a deleted tag (Icechunk never reuses one).
void create_tag(Storage& storage, const std::string& name, const std::string& snapshot);
void create_tag(const std::string& root, const std::string& name, const std::string& snapshot);
// Delete tag `name` (NotFound when it does not resolve).
void delete_tag(Storage& storage, const std::string& name);
void delete_tag(const std::string& root, const std::string& name);

// A new, empty spec-2 repository in `storage` (nothing may be there yet: locally the
// directory must not exist or be empty; on an object store no key under the prefix):
// the initial snapshot `1CECHNKREP0F1RSTCMT0`, its transaction log, then `repo` with branch
// main, and `metadata` {key: value} (string values, FlexBuffers-encoded) for tether's owner
// marker. Returns the initial snapshot id.
std::string create_repository(Storage& storage, const std::string& metadata_key, const std::string& metadata_value);
std::string create_repository(const std::string& root, const std::string& metadata_key, const std::string& metadata_value);

// A string value of the spec-2 repository metadata (nullopt: absent, or a spec-1 repository).
std::optional<std::string> repository_metadata_string(Storage& storage, const std::string& key);
std::optional<std::string> repository_metadata_string(const std::string& root, const std::string& key);

// The bytes of a metadata file: header (spec, type, zstd) + compressed flatbuffer.
std::vector<uint8_t> encode_metadata_file(FileType type, int spec_version, const uint8_t* payload, std::size_t size);

}  // namespace tether::icechunk
