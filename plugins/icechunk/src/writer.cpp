#include "writer.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include <flatbuffers/flexbuffers.h>

#include "icechunk_generated.h"
#include "ids.hpp"

namespace fs = std::filesystem;

namespace tether::icechunk {
namespace {

constexpr const char kImplName[] = "tethercpp-0.1.0";

[[noreturn]] void sys_fail(const std::string& what) { throw FormatError(what + ": " + std::strerror(errno)); }

uint64_t now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::mt19937_64& rng() {
  thread_local std::mt19937_64 r{std::random_device{}()};
  return r;
}

bool exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// flock() on the repository directory, held for the whole read-check-write.
class RepoLock {
 public:
  explicit RepoLock(const std::string& root) {
    fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) sys_fail("cannot open " + root);
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) sys_fail("cannot lock " + root);
  }
  ~RepoLock() { ::close(fd_); }
  RepoLock(const RepoLock&) = delete;
  RepoLock& operator=(const RepoLock&) = delete;

 private:
  int fd_ = -1;
};

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// `<target>#<digits>`: the staging name Icechunk's own local backend uses and its listing skips.
std::string staging_name(const std::string& target) { return target + "#" + std::to_string(rng()() % 1'000'000'000); }

std::string write_staging(const std::string& target, const std::vector<uint8_t>& bytes) {
  std::string tmp = staging_name(target);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) sys_fail("cannot write " + tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = e;
      sys_fail("cannot write " + tmp);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    sys_fail("cannot write " + tmp);
  }
  return tmp;
}

// Replace `target` atomically (readers see the old or the new file, never a part).
void write_replace(const std::string& target, const std::vector<uint8_t>& bytes) {
  std::string tmp = write_staging(target, bytes);
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    ::unlink(tmp.c_str());
    sys_fail("cannot replace " + target);
  }
  fsync_dir(fs::path(target).parent_path().string());
}

// Create `target` only if it does not exist: false when it does.
bool write_create(const std::string& target, const std::vector<uint8_t>& bytes) {
  std::string tmp = write_staging(target, bytes);
  int rc = ::link(tmp.c_str(), target.c_str());
  int e = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (e == EEXIST) return false;
    errno = e;
    sys_fail("cannot create " + target);
  }
  fsync_dir(fs::path(target).parent_path().string());
  return true;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string snap_missing(const std::string& root, const std::string& id) {
  return "snapshot " + id + " is not in " + root;
}

// ---- spec 1 -------------------------------------------------------------------------------------

std::string v1_ref_dir(const std::string& root, const char* kind, const std::string& name) {
  return root + "/refs/" + kind + "." + name;
}

std::optional<std::string> v1_read(const std::string& file) {
  if (!exists(file)) return std::nullopt;
  auto snapshot = ref_snapshot(read_file(file));
  if (!snapshot) throw FormatError(file + " is not a ref ({\"snapshot\": \"<id>\"})");
  return *snapshot;
}

std::vector<uint8_t> v1_ref_bytes(const std::string& snapshot) {
  return bytes_of("{\"snapshot\":\"" + snapshot + "\"}");
}

void v1_need_snapshot(const std::string& root, const std::string& id) {
  if (!is_id12(id) || !exists(root + "/snapshots/" + id)) throw RefError(RefError::Kind::NotFound, snap_missing(root, id));
}

// ---- spec 2 -------------------------------------------------------------------------------------

// Whether a table carries a field beyond the first `known` (a newer Icechunk wrote it).
bool has_unknown_fields(const void* table, int known) {
  const auto* t = reinterpret_cast<const flatbuffers::Table*>(table);
  const uint8_t* vt = t->GetVTable();
  auto vsize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vt);
  int fields = (vsize - 4) / 2;
  for (int i = known; i < fields; ++i)
    if (flatbuffers::ReadScalar<flatbuffers::voffset_t>(vt + 4 + 2 * i) != 0) return true;
  return false;
}

int known_update_fields(fb::UpdateType t) {
  switch (t) {
    case fb::UpdateType::RepoInitializedUpdate:
    case fb::UpdateType::ConfigChangedUpdate:
    case fb::UpdateType::MetadataChangedUpdate:
    case fb::UpdateType::GCRanUpdate:
    case fb::UpdateType::ExpirationRanUpdate: return 0;
    case fb::UpdateType::TagCreatedUpdate:
    case fb::UpdateType::BranchCreatedUpdate:
    case fb::UpdateType::NewDetachedSnapshotUpdate:
    case fb::UpdateType::RepoStatusChangedUpdate: return 1;
    case fb::UpdateType::RepoMigratedUpdate:
    case fb::UpdateType::TagDeletedUpdate:
    case fb::UpdateType::BranchDeletedUpdate:
    case fb::UpdateType::BranchResetUpdate:
    case fb::UpdateType::NewCommitUpdate: return 2;
    case fb::UpdateType::CommitAmendedUpdate:
    case fb::UpdateType::FeatureFlagChangedUpdate: return 3;
    default: return -1;
  }
}

// Refuses to rewrite a repo file with anything this schema would drop.
void refuse_unknown(const fb::Repo* repo, const std::string& file) {
  auto refuse = [&](const std::string& where) {
    throw FormatError(file + " has " + where +
                      " this tether does not know (written by a newer Icechunk); it reads the repository but will "
                      "not rewrite it");
  };
  if (repo->spec_version() > 2) refuse("spec version " + std::to_string(repo->spec_version()));
  if (has_unknown_fields(repo, 13)) refuse("repository fields");
  if (has_unknown_fields(repo->status(), 3)) refuse("status fields");
  for (const auto* r : *repo->tags())
    if (has_unknown_fields(r, 2)) refuse("tag fields");
  for (const auto* r : *repo->branches())
    if (has_unknown_fields(r, 2)) refuse("branch fields");
  auto items = [&](const flatbuffers::Vector<flatbuffers::Offset<fb::MetadataItem>>* v) {
    if (v)
      for (const auto* m : *v)
        if (has_unknown_fields(m, 2)) refuse("metadata fields");
  };
  items(repo->metadata());
  for (const auto* s : *repo->snapshots()) {
    if (has_unknown_fields(s, 6)) refuse("snapshot fields");
    items(s->metadata());
  }
  for (const auto* u : *repo->latest_updates()) {
    if (has_unknown_fields(u, 4)) refuse("update fields");
    int known = known_update_fields(u->update_type_type());
    if (known < 0) refuse("an update of type " + std::to_string(static_cast<int>(u->update_type_type())));
    if (has_unknown_fields(u->update_type(), known)) refuse("update fields");
    if (const auto* st = u->update_type_as_RepoStatusChangedUpdate())
      if (st->status() && has_unknown_fields(st->status(), 3)) refuse("status fields");
  }
}

std::unique_ptr<fb::ObjectId12> oid12(const std::string& id) {
  auto bytes = decode_id(id, 12);
  if (!bytes) throw FormatError("'" + id + "' is not a snapshot id");
  return std::make_unique<fb::ObjectId12>(flatbuffers::span<const uint8_t, 12>(bytes->data(), 12));
}

std::string id_of(const fb::ObjectId12& id) { return encode_id(id.bytes()->data(), 12); }

// The `repo` file as an editable model: names -> snapshot ids instead of indices.
struct RepoModel {
  fb::RepoT t;
  std::map<std::string, std::string> branches, tags;
  std::map<std::string, std::size_t> index;  // snapshot id -> position
};

uint32_t max_updates(const fb::RepoT& t) {
  if (t.config.empty()) return 1000;
  auto root = flexbuffers::GetRoot(t.config.data(), t.config.size());
  if (!root.IsMap()) return 1000;
  auto v = root.AsMap()["num_updates_per_repo_info_file"];
  if (v.IsNull() || !(v.IsInt() || v.IsUInt())) return 1000;
  auto n = v.AsUInt64();
  return n == 0 ? 1000 : static_cast<uint32_t>(std::min<uint64_t>(n, 1'000'000));
}

// "repo." + 14 digits (3000-01-01 minus now, in ms: newest first) + "." + 20 base32 chars.
std::string backup_name() {
  uint64_t ms = now_us() / 1000;
  char digits[32];
  std::snprintf(digits, sizeof digits, "%014llu", static_cast<unsigned long long>(32503680000000ULL - ms));
  uint8_t random[12];
  for (auto& b : random) b = static_cast<uint8_t>(rng()());
  return std::string("repo.") + digits + "." + encode_id(random, 12);
}

std::vector<uint8_t> finish_repo(const fb::RepoT& t) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::Repo::Pack(fbb, &t), "Ichk");
  flatbuffers::Verifier v(fbb.GetBufferPointer(), fbb.GetSize(), 10, 5'000'000);
  if (!v.VerifyBuffer<fb::Repo>(nullptr)) throw FormatError("internal error: the new repo file does not verify");
  return encode_metadata_file(FileType::RepoInfo, 2, fbb.GetBufferPointer(), fbb.GetSize());
}

// The identity of a file version: inode, size and modification time (what Icechunk's own
// local backend uses as its ETag).
struct Version {
  ino_t ino = 0;
  off_t size = 0;
  struct timespec mtime {};
  bool operator==(const Version& o) const {
    return ino == o.ino && size == o.size && mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

std::optional<Version> version_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Version{st.st_ino, st.st_size, st.st_mtim};
}

// Reads `repo` and the version it had while being read (re-read if it changed meanwhile).
std::pair<std::vector<uint8_t>, Version> read_versioned(const std::string& file) {
  for (int i = 0; i < 100; ++i) {
    auto before = version_of(file);
    if (!before) sys_fail("cannot read " + file);
    std::vector<uint8_t> bytes = read_file(file);
    auto after = version_of(file);
    if (after && *after == *before) return {std::move(bytes), *before};
  }
  throw FormatError(file + " keeps changing while tether reads it");
}

// Another writer (real Icechunk, which takes no lock on a local disk) replaced `repo` after
// we read it: start over from the new version.
struct RepoChanged {};

template <class Change>
void update_repo_once(const std::string& root, Change& change) {
  std::string file = root + "/repo";
  auto [current, version] = read_versioned(file);
  MetadataFile f = parse_metadata_file(current, FileType::RepoInfo, file);
  flatbuffers::Verifier v(f.payload.data(), f.payload.size(), 10, 5'000'000);
  if (!v.VerifyBuffer<fb::Repo>(nullptr)) throw FormatError(file + ": the flatbuffer does not verify");
  const fb::Repo* repo = flatbuffers::GetRoot<fb::Repo>(f.payload.data());
  refuse_unknown(repo, file);
  if (repo->status()->availability() != 0)
    throw FormatError(root + " is not online (its status is " + std::to_string(repo->status()->availability()) +
                      "); Icechunk refuses every write to it, and so does tether");
  RepoModel m;
  repo->UnPackTo(&m.t);
  for (std::size_t i = 0; i < m.t.snapshots.size(); ++i) m.index[id_of(*m.t.snapshots[i]->id)] = i;
  auto names = [&](const std::vector<std::unique_ptr<fb::RefT>>& refs, std::map<std::string, std::string>& out) {
    for (const auto& r : refs) out[r->name] = id_of(*m.t.snapshots.at(r->snapshot_index)->id);
  };
  names(m.t.branches, m.branches);
  names(m.t.tags, m.tags);

  fb::UpdateTypeUnion entry = change(m);

  // Refs back to sorted lists of indices (map order is byte order of the names).
  auto rebuild = [&](const std::map<std::string, std::string>& in, std::vector<std::unique_ptr<fb::RefT>>& out) {
    out.clear();
    for (const auto& [name, id] : in) {
      auto r = std::make_unique<fb::RefT>();
      r->name = name;
      r->snapshot_index = static_cast<uint32_t>(m.index.at(id));
      out.push_back(std::move(r));
    }
  };
  rebuild(m.branches, m.t.branches);
  rebuild(m.tags, m.t.tags);
  std::sort(m.t.deleted_tags.begin(), m.t.deleted_tags.end());
  if (!m.branches.count("main")) throw FormatError("internal error: a repository must keep branch main");

  // The operations log: the new entry first, strictly newer than the previous first entry,
  // which now names the backup of the file it was newest in.
  std::string backup = backup_name();
  auto u = std::make_unique<fb::UpdateT>();
  u->update_type = std::move(entry);
  u->updated_at = now_us();
  if (!m.t.latest_updates.empty()) {
    u->updated_at = std::max(u->updated_at, m.t.latest_updates.front()->updated_at + 1);
    m.t.latest_updates.front()->backup_path = backup;
  }
  m.t.latest_updates.insert(m.t.latest_updates.begin(), std::move(u));
  uint32_t keep = max_updates(m.t);
  if (m.t.latest_updates.size() > keep) {
    for (std::size_t i = keep; i < m.t.latest_updates.size(); ++i)
      if (!m.t.latest_updates[i]->backup_path.empty()) {
        m.t.repo_before_updates = m.t.latest_updates[i]->backup_path;
        m.t.latest_updates.resize(i);
        break;
      }
  }
  std::vector<uint8_t> next = finish_repo(m.t);
  std::string tmp = write_staging(file, next);

  std::string dir = root + "/overwritten";
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) sys_fail("cannot create " + dir);
  std::string kept = dir + "/" + backup;
  // The backup is a hard link to the version read: if `repo` is another file by now, start over.
  if (::link(file.c_str(), kept.c_str()) != 0) {
    ::unlink(tmp.c_str());
    sys_fail("cannot keep a copy of " + file + " in " + dir);
  }
  if (version_of(kept) != std::optional<Version>(version) || version_of(file) != std::optional<Version>(version) ||
      read_file(file) != current) {
    ::unlink(kept.c_str());
    ::unlink(tmp.c_str());
    throw RepoChanged{};
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    sys_fail("cannot replace " + file);
  }
  fsync_dir(dir);
  fsync_dir(root);
}

// Applies `change` (which returns the update to log) to the current `repo` and writes the
// result: backup first, then the new file by rename, conditionally on `repo` still being
// the version read. tether's own writers serialise on the lock; a change by anyone else
// since the read makes the whole update start again from the new version, so neither
// side's change is lost. (The check and the rename are two system calls: a foreign rename
// landing exactly between them is the one window a local filesystem leaves open.)
template <class Change>
void update_repo(const std::string& root, Change&& change) {
  RepoLock lock(root);
  for (int attempt = 0;; ++attempt) {
    try {
      update_repo_once(root, change);
      return;
    } catch (const RepoChanged&) {
      if (attempt >= 50) throw FormatError(root + "/repo keeps changing under tether (another writer is busy); try again");
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt));
    }
  }
}

template <class T>
fb::UpdateTypeUnion update_of(T&& value) {
  fb::UpdateTypeUnion u;
  u.Set(std::forward<T>(value));
  return u;
}

void need_snapshot(const RepoModel& m, const std::string& root, const std::string& id) {
  if (!m.index.count(id)) throw RefError(RefError::Kind::NotFound, snap_missing(root, id));
}

bool is_v2(const std::string& root) { return exists(root + "/repo"); }

void need_repository(const std::string& root) {
  if (!is_v2(root) && !exists(root + "/refs/branch.main/ref.json"))
    throw FormatError(root + " is not an Icechunk repository");
}

// The branch must exist and, with `expected`, be at that snapshot.
void check_branch_at(const std::string& root, const std::string& name, const std::optional<std::string>& now,
                     const std::optional<std::string>& expected) {
  if (!now) throw RefError(RefError::Kind::NotFound, "branch " + name + " does not exist in " + root);
  if (expected && *now != *expected)
    throw RefError(RefError::Kind::Conflict, "branch " + name + " is at " + *now + ", expected " + *expected, now);
}

}  // namespace

std::vector<uint8_t> encode_metadata_file(FileType type, int spec_version, const uint8_t* payload, std::size_t size) {
  std::vector<uint8_t> out{0x49, 0x43, 0x45, 0xF0, 0x9F, 0xA7, 0x8A, 0x43, 0x48, 0x55, 0x4E, 0x4B};
  std::string name = kImplName;
  name.resize(24, ' ');
  out.insert(out.end(), name.begin(), name.end());
  out.push_back(static_cast<uint8_t>(spec_version));
  out.push_back(static_cast<uint8_t>(type));
  out.push_back(1);  // zstd
  std::size_t bound = ZSTD_compressBound(size);
  std::size_t at = out.size();
  out.resize(at + bound);
  std::size_t n = ZSTD_compress(out.data() + at, bound, payload, size, 3);
  if (ZSTD_isError(n)) throw FormatError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(at + n);
  return out;
}

void check_ref_name(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
    throw FormatError("'" + name + "' cannot name an Icechunk branch or tag (empty, or with '/')");
}

void create_branch(const std::string& root, const std::string& name, const std::string& snapshot) {
  check_ref_name(name);
  need_repository(root);
  if (is_v2(root)) {
    update_repo(root, [&](RepoModel& m) {
      if (m.branches.count(name)) throw RefError(RefError::Kind::Exists, "branch " + name + " already exists in " + root, m.branches[name]);
      need_snapshot(m, root, snapshot);
      m.branches[name] = snapshot;
      fb::BranchCreatedUpdateT u;
      u.name = name;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(root, snapshot);
  std::string dir = v1_ref_dir(root, "branch", name);
  fs::create_directories(dir);
  if (!write_create(dir + "/ref.json", v1_ref_bytes(snapshot)))
    throw RefError(RefError::Kind::Exists, "branch " + name + " already exists in " + root, v1_read(dir + "/ref.json"));
}

void reset_branch(const std::string& root, const std::string& name, const std::string& snapshot,
                  const std::optional<std::string>& expected) {
  check_ref_name(name);
  need_repository(root);
  if (is_v2(root)) {
    update_repo(root, [&](RepoModel& m) {
      auto it = m.branches.find(name);
      check_branch_at(root, name, it == m.branches.end() ? std::nullopt : std::optional<std::string>(it->second), expected);
      need_snapshot(m, root, snapshot);
      fb::BranchResetUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      it->second = snapshot;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(root, snapshot);
  RepoLock lock(root);
  std::string file = v1_ref_dir(root, "branch", name) + "/ref.json";
  check_branch_at(root, name, v1_read(file), expected);
  write_replace(file, v1_ref_bytes(snapshot));
}

void delete_branch(const std::string& root, const std::string& name, const std::optional<std::string>& expected) {
  check_ref_name(name);
  if (name == "main") throw FormatError("branch main of " + root + " cannot be deleted");
  need_repository(root);
  if (is_v2(root)) {
    update_repo(root, [&](RepoModel& m) {
      auto it = m.branches.find(name);
      check_branch_at(root, name, it == m.branches.end() ? std::nullopt : std::optional<std::string>(it->second), expected);
      fb::BranchDeletedUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      m.branches.erase(it);
      return update_of(std::move(u));
    });
    return;
  }
  RepoLock lock(root);
  std::string dir = v1_ref_dir(root, "branch", name);
  check_branch_at(root, name, v1_read(dir + "/ref.json"), expected);
  if (::unlink((dir + "/ref.json").c_str()) != 0) sys_fail("cannot delete branch " + name + " of " + root);
  ::rmdir(dir.c_str());  // Icechunk leaves the empty folder; removing it is tidier and harmless
  fsync_dir(root + "/refs");
}

void create_tag(const std::string& root, const std::string& name, const std::string& snapshot) {
  check_ref_name(name);
  need_repository(root);
  if (is_v2(root)) {
    update_repo(root, [&](RepoModel& m) {
      if (m.tags.count(name)) throw RefError(RefError::Kind::Exists, "tag " + name + " already exists in " + root, m.tags[name]);
      if (std::find(m.t.deleted_tags.begin(), m.t.deleted_tags.end(), name) != m.t.deleted_tags.end())
        throw RefError(RefError::Kind::PreviouslyDeleted, "tag " + name + " was deleted in " + root + "; Icechunk never reuses a tag name");
      if (std::find(m.t.disabled_feature_flags.begin(), m.t.disabled_feature_flags.end(), 4) != m.t.disabled_feature_flags.end())
        throw FormatError(root + " has tag creation switched off (feature flag create_tag)");
      need_snapshot(m, root, snapshot);
      m.tags[name] = snapshot;
      fb::TagCreatedUpdateT u;
      u.name = name;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(root, snapshot);
  std::string dir = v1_ref_dir(root, "tag", name);
  fs::create_directories(dir);
  if (!write_create(dir + "/ref.json", v1_ref_bytes(snapshot))) {
    if (exists(dir + "/ref.json.deleted"))
      throw RefError(RefError::Kind::PreviouslyDeleted, "tag " + name + " was deleted in " + root + "; Icechunk never reuses a tag name");
    throw RefError(RefError::Kind::Exists, "tag " + name + " already exists in " + root, v1_read(dir + "/ref.json"));
  }
}

void delete_tag(const std::string& root, const std::string& name) {
  check_ref_name(name);
  need_repository(root);
  if (is_v2(root)) {
    update_repo(root, [&](RepoModel& m) {
      auto it = m.tags.find(name);
      if (it == m.tags.end()) throw RefError(RefError::Kind::NotFound, "tag " + name + " does not exist in " + root);
      if (std::find(m.t.disabled_feature_flags.begin(), m.t.disabled_feature_flags.end(), 5) != m.t.disabled_feature_flags.end())
        throw FormatError(root + " has tag deletion switched off (feature flag delete_tag)");
      fb::TagDeletedUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      m.tags.erase(it);
      m.t.deleted_tags.push_back(name);
      return update_of(std::move(u));
    });
    return;
  }
  std::string dir = v1_ref_dir(root, "tag", name);
  if (!exists(dir + "/ref.json") || exists(dir + "/ref.json.deleted"))
    throw RefError(RefError::Kind::NotFound, "tag " + name + " does not exist in " + root);
  write_create(dir + "/ref.json.deleted", {});
}

std::string create_repository(const std::string& root, const std::string& metadata_key, const std::string& metadata_value) {
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_empty(root, ec))
    throw FormatError(root + " already exists and is not empty; an Icechunk repository is only created in an empty place");
  for (const char* sub : {"", "/snapshots", "/transactions", "/manifests", "/chunks"}) fs::create_directories(root + sub);
  uint64_t at = now_us();
  // __icechunk = {is_root: true}, as FlexBuffers: what Icechunk writes on its initial snapshot.
  flexbuffers::Builder fx;
  fx.Map([&] { fx.Bool("is_root", true); });
  fx.Finish();
  auto root_meta = std::make_unique<fb::MetadataItemT>();
  root_meta->name = "__icechunk";
  root_meta->value = fx.GetBuffer();

  auto initial = oid12(kInitialSnapshotId);
  const std::string message = "Repository initialized";
  {
    // Written by hand rather than packed: spec 2 wants the (empty) manifest_files_v2 list
    // present, and the object API leaves empty vectors out.
    flatbuffers::FlatBufferBuilder fbb;
    auto nodes = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::NodeSnapshot>>{});
    auto msg = fbb.CreateString(message);
    auto meta_name = fbb.CreateString(root_meta->name);
    auto meta_value = fbb.CreateVector(root_meta->value);
    auto meta = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::MetadataItem>>{fb::CreateMetadataItem(fbb, meta_name, meta_value)});
    auto files_v1 = fbb.CreateVectorOfStructs(std::vector<fb::ManifestFileInfo>{});
    auto files_v2 = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::ManifestFileInfoV2>>{});
    fbb.Finish(fb::CreateSnapshot(fbb, initial.get(), nullptr, nodes, at, msg, meta, files_v1, files_v2), "Ichk");
    if (!write_create(root + "/snapshots/" + kInitialSnapshotId,
                      encode_metadata_file(FileType::Snapshot, 2, fbb.GetBufferPointer(), fbb.GetSize())))
      throw FormatError(root + " already has an initial snapshot");
  }
  {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<fb::ObjectId8> none;
    auto e = [&] { return fbb.CreateVectorOfStructs(none); };
    auto ng = e(), na = e(), dg = e(), da = e(), ua = e(), ug = e();
    auto chunks = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::ArrayUpdatedChunks>>{});
    auto moved = fbb.CreateVector(std::vector<flatbuffers::Offset<fb::MoveOperation>>{});
    auto log = fb::CreateTransactionLog(fbb, initial.get(), ng, na, dg, da, ua, ug, chunks, moved);
    fbb.Finish(log, "Ichk");
    write_create(root + "/transactions/" + kInitialSnapshotId,
                 encode_metadata_file(FileType::TransactionLog, 2, fbb.GetBufferPointer(), fbb.GetSize()));
  }
  fb::RepoT repo;
  repo.spec_version = 2;
  auto info = std::make_unique<fb::SnapshotInfoT>();
  info->id = oid12(kInitialSnapshotId);
  info->parent_offset = -1;
  info->flushed_at = at;
  info->message = message;
  info->metadata.push_back(std::move(root_meta));
  repo.snapshots.push_back(std::move(info));
  auto main = std::make_unique<fb::RefT>();
  main->name = "main";
  main->snapshot_index = 0;
  repo.branches.push_back(std::move(main));
  repo.status = std::make_unique<fb::RepoStatusT>();
  repo.status->availability = 0;
  repo.status->set_at = at;
  flexbuffers::Builder vx;
  vx.String(metadata_value);
  vx.Finish();
  auto owner = std::make_unique<fb::MetadataItemT>();
  owner->name = metadata_key;
  owner->value = vx.GetBuffer();
  repo.metadata.push_back(std::move(owner));
  auto init = std::make_unique<fb::UpdateT>();
  init->update_type = update_of(fb::RepoInitializedUpdateT{});
  init->updated_at = at;
  repo.latest_updates.push_back(std::move(init));
  if (!write_create(root + "/repo", finish_repo(repo))) throw FormatError(root + " was created by someone else meanwhile");
  return kInitialSnapshotId;
}

std::optional<std::string> repository_metadata_string(const std::string& root, const std::string& key) {
  std::string file = root + "/repo";
  if (!exists(file)) return std::nullopt;
  MetadataFile f = read_metadata_file(file, FileType::RepoInfo);
  flatbuffers::Verifier v(f.payload.data(), f.payload.size(), 10, 5'000'000);
  if (!v.VerifyBuffer<fb::Repo>(nullptr)) throw FormatError(file + ": the flatbuffer does not verify");
  const fb::Repo* repo = flatbuffers::GetRoot<fb::Repo>(f.payload.data());
  if (!repo->metadata()) return std::nullopt;
  for (const auto* m : *repo->metadata()) {
    if (m->name()->str() != key) continue;
    auto value = flexbuffers::GetRoot(m->value()->data(), m->value()->size());
    if (!value.IsString()) return std::nullopt;
    return value.AsString().str();
  }
  return std::nullopt;
}

}  // namespace tether::icechunk
