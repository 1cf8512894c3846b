#include "writer.hpp"

#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include <flatbuffers/flexbuffers.h>

#include "icechunk_generated.h"
#include "ids.hpp"

namespace tether::icechunk {
namespace {

constexpr const char kImplName[] = "tethercpp-0.1.0";

uint64_t now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::mt19937_64& rng() {
  thread_local std::mt19937_64 r{std::random_device{}()};
  return r;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string snap_missing(const Storage& st, const std::string& id) { return "snapshot " + id + " is not in " + st.root(); }

// ---- spec 1 -------------------------------------------------------------------------------------

// `refs/<kind>.<name>`, relative to the root.
std::string v1_ref_dir(const char* kind, const std::string& name) { return std::string("refs/") + kind + "." + name; }

std::optional<std::string> v1_snapshot_of(const Storage& st, const std::string& rel, const Bytes& bytes) {
  auto snapshot = ref_snapshot(bytes);
  if (!snapshot) throw FormatError(st.name(rel) + " is not a ref ({\"snapshot\": \"<id>\"})");
  return *snapshot;
}

std::optional<std::string> v1_read(Storage& st, const std::string& rel) {
  auto bytes = st.read(rel);
  if (!bytes) return std::nullopt;
  return v1_snapshot_of(st, rel, *bytes);
}

Bytes v1_ref_bytes(const std::string& snapshot) { return bytes_of("{\"snapshot\":\"" + snapshot + "\"}"); }

void v1_need_snapshot(Storage& st, const std::string& id) {
  if (!is_id12(id) || !st.exists("snapshots/" + id)) throw RefError(RefError::Kind::NotFound, snap_missing(st, id));
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

// Another writer (real Icechunk, or another tether) replaced `repo` after we read it: start
// over from the new version.
struct RepoChanged {};

template <class Change>
void update_repo_once(Storage& st, Change& change) {
  std::string file = st.name("repo");
  auto current = st.read_versioned("repo");
  if (!current) throw FormatError(file + " is gone; " + st.root() + " is no longer an Icechunk repository");
  MetadataFile f = parse_metadata_file(current->bytes, FileType::RepoInfo, file);
  flatbuffers::Verifier v(f.payload.data(), f.payload.size(), 10, 5'000'000);
  if (!v.VerifyBuffer<fb::Repo>(nullptr)) throw FormatError(file + ": the flatbuffer does not verify");
  const fb::Repo* repo = flatbuffers::GetRoot<fb::Repo>(f.payload.data());
  refuse_unknown(repo, file);
  if (repo->status()->availability() != 0)
    throw FormatError(st.root() + " is not online (its status is " + std::to_string(repo->status()->availability()) +
                      "); Icechunk refuses every write to it, and so does tether");
  RepoModel m;
  repo->UnPackTo(&m.t);
  for (std::size_t i = 0; i < m.t.snapshots.size(); ++i) m.index[id_of(*m.t.snapshots[i]->id)] = i;
  auto names = [&](const std::vector<std::unique_ptr<fb::RefT>>& refs, std::map<std::string, std::string>& out) {
    for (const auto& r : refs) {
      if (r->snapshot_index >= m.t.snapshots.size())
        throw FormatError(file + ": ref " + r->name + " points past the snapshot list");
      out[r->name] = id_of(*m.t.snapshots[r->snapshot_index]->id);
    }
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
  // The version read goes to overwritten/ first, then the new `repo` replaces it only if it
  // is still that version.
  if (!st.replace("repo", *current, finish_repo(m.t), "overwritten/" + backup)) throw RepoChanged{};
}

// Applies `change` (which returns the update to log) to the current `repo` and writes the
// result conditionally on `repo` still being the version read. tether's own writers on a
// local disk serialise on the lock; on an object store the conditional write decides. A
// change by anyone else since the read makes the whole update start again from the new
// version, so neither side's change is lost.
template <class Change>
void update_repo(Storage& st, Change&& change) {
  auto lock = st.serialise();
  for (int attempt = 0;; ++attempt) {
    try {
      update_repo_once(st, change);
      return;
    } catch (const RepoChanged&) {
      if (attempt >= 50) throw FormatError(st.name("repo") + " keeps changing under tether (another writer is busy); try again");
      // Locally a short pause; on an object store (where another writer's commit takes a
      // round trip or more) an exponential one with jitter, at most about a second.
      int ms = 1 + attempt;
      if (!st.is_local()) ms = static_cast<int>(std::min<uint64_t>(1000, (uint64_t{5} << std::min(attempt, 8)) / 2 + rng()() % (uint64_t{5} << std::min(attempt, 8))));
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  }
}

template <class T>
fb::UpdateTypeUnion update_of(T&& value) {
  fb::UpdateTypeUnion u;
  u.Set(std::forward<T>(value));
  return u;
}

void need_snapshot(const RepoModel& m, const Storage& st, const std::string& id) {
  if (!m.index.count(id)) throw RefError(RefError::Kind::NotFound, snap_missing(st, id));
}

// Spec 2 (a `repo` file) or spec 1; FormatError when neither.
bool is_v2(Storage& st) {
  if (st.exists("repo")) return true;
  if (!st.exists("refs/branch.main/ref.json")) throw FormatError(st.root() + " is not an Icechunk repository");
  return false;
}

// The branch must exist and, with `expected`, be at that snapshot.
void check_branch_at(const Storage& st, const std::string& name, const std::optional<std::string>& now,
                     const std::optional<std::string>& expected) {
  if (!now) throw RefError(RefError::Kind::NotFound, "branch " + name + " does not exist in " + st.root());
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

void create_branch(Storage& st, const std::string& name, const std::string& snapshot) {
  check_ref_name(name);
  if (is_v2(st)) {
    update_repo(st, [&](RepoModel& m) {
      if (m.branches.count(name)) throw RefError(RefError::Kind::Exists, "branch " + name + " already exists in " + st.root(), m.branches[name]);
      need_snapshot(m, st, snapshot);
      m.branches[name] = snapshot;
      fb::BranchCreatedUpdateT u;
      u.name = name;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(st, snapshot);
  std::string file = v1_ref_dir("branch", name) + "/ref.json";
  if (!st.create(file, v1_ref_bytes(snapshot)))
    throw RefError(RefError::Kind::Exists, "branch " + name + " already exists in " + st.root(), v1_read(st, file));
}

void reset_branch(Storage& st, const std::string& name, const std::string& snapshot,
                  const std::optional<std::string>& expected) {
  check_ref_name(name);
  if (is_v2(st)) {
    update_repo(st, [&](RepoModel& m) {
      auto it = m.branches.find(name);
      check_branch_at(st, name, it == m.branches.end() ? std::nullopt : std::optional<std::string>(it->second), expected);
      need_snapshot(m, st, snapshot);
      fb::BranchResetUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      it->second = snapshot;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(st, snapshot);
  auto lock = st.serialise();
  std::string file = v1_ref_dir("branch", name) + "/ref.json";
  // Read the ref with its version, check it, replace it only if it is still that version
  // (If-Match on an object store). A lost race reads again: the expectation decides.
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto current = st.read_versioned(file);
    std::optional<std::string> now;
    if (current) now = v1_snapshot_of(st, file, current->bytes);
    check_branch_at(st, name, now, expected);
    if (st.replace(file, *current, v1_ref_bytes(snapshot))) return;
  }
  throw FormatError(st.name(file) + " keeps changing under tether (another writer is busy); try again");
}

void delete_branch(Storage& st, const std::string& name, const std::optional<std::string>& expected) {
  check_ref_name(name);
  if (name == "main") throw FormatError("branch main of " + st.root() + " cannot be deleted");
  if (is_v2(st)) {
    update_repo(st, [&](RepoModel& m) {
      auto it = m.branches.find(name);
      check_branch_at(st, name, it == m.branches.end() ? std::nullopt : std::optional<std::string>(it->second), expected);
      fb::BranchDeletedUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      m.branches.erase(it);
      return update_of(std::move(u));
    });
    return;
  }
  // Spec 1 has no conditional delete on object stores (S3 DELETE takes no If-Match): the
  // check and the delete are two steps there, as in Icechunk itself.
  auto lock = st.serialise();
  std::string file = v1_ref_dir("branch", name) + "/ref.json";
  check_branch_at(st, name, v1_read(st, file), expected);
  st.remove(file);
}

void create_tag(Storage& st, const std::string& name, const std::string& snapshot) {
  check_ref_name(name);
  if (is_v2(st)) {
    update_repo(st, [&](RepoModel& m) {
      if (m.tags.count(name)) throw RefError(RefError::Kind::Exists, "tag " + name + " already exists in " + st.root(), m.tags[name]);
      if (std::find(m.t.deleted_tags.begin(), m.t.deleted_tags.end(), name) != m.t.deleted_tags.end())
        throw RefError(RefError::Kind::PreviouslyDeleted, "tag " + name + " was deleted in " + st.root() + "; Icechunk never reuses a tag name");
      if (std::find(m.t.disabled_feature_flags.begin(), m.t.disabled_feature_flags.end(), 4) != m.t.disabled_feature_flags.end())
        throw FormatError(st.root() + " has tag creation switched off (feature flag create_tag)");
      need_snapshot(m, st, snapshot);
      m.tags[name] = snapshot;
      fb::TagCreatedUpdateT u;
      u.name = name;
      return update_of(std::move(u));
    });
    return;
  }
  v1_need_snapshot(st, snapshot);
  std::string file = v1_ref_dir("tag", name) + "/ref.json";
  if (!st.create(file, v1_ref_bytes(snapshot))) {
    if (st.exists(file + ".deleted"))
      throw RefError(RefError::Kind::PreviouslyDeleted, "tag " + name + " was deleted in " + st.root() + "; Icechunk never reuses a tag name");
    throw RefError(RefError::Kind::Exists, "tag " + name + " already exists in " + st.root(), v1_read(st, file));
  }
}

void delete_tag(Storage& st, const std::string& name) {
  check_ref_name(name);
  if (is_v2(st)) {
    update_repo(st, [&](RepoModel& m) {
      auto it = m.tags.find(name);
      if (it == m.tags.end()) throw RefError(RefError::Kind::NotFound, "tag " + name + " does not exist in " + st.root());
      if (std::find(m.t.disabled_feature_flags.begin(), m.t.disabled_feature_flags.end(), 5) != m.t.disabled_feature_flags.end())
        throw FormatError(st.root() + " has tag deletion switched off (feature flag delete_tag)");
      fb::TagDeletedUpdateT u;
      u.name = name;
      u.previous_snap_id = oid12(it->second);
      m.tags.erase(it);
      m.t.deleted_tags.push_back(name);
      return update_of(std::move(u));
    });
    return;
  }
  std::string file = v1_ref_dir("tag", name) + "/ref.json";
  if (!st.exists(file) || st.exists(file + ".deleted"))
    throw RefError(RefError::Kind::NotFound, "tag " + name + " does not exist in " + st.root());
  st.create(file + ".deleted", {});
}

std::string create_repository(Storage& st, const std::string& metadata_key, const std::string& metadata_value) {
  if (!st.vacant())
    throw FormatError(st.root() + " already exists and is not empty; an Icechunk repository is only created in an empty place");
  st.prepare_new();
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
    if (!st.create(std::string("snapshots/") + kInitialSnapshotId,
                   encode_metadata_file(FileType::Snapshot, 2, fbb.GetBufferPointer(), fbb.GetSize())))
      throw FormatError(st.root() + " already has an initial snapshot");
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
    st.create(std::string("transactions/") + kInitialSnapshotId,
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
  if (!st.create("repo", finish_repo(repo))) throw FormatError(st.root() + " was created by someone else meanwhile");
  return kInitialSnapshotId;
}

std::optional<std::string> repository_metadata_string(Storage& st, const std::string& key) {
  std::string file = st.name("repo");
  auto bytes = st.read("repo");
  if (!bytes) return std::nullopt;
  MetadataFile f = parse_metadata_file(*bytes, FileType::RepoInfo, file);
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

// ---- local repositories by path ------------------------------------------------------------

void create_branch(const std::string& root, const std::string& name, const std::string& snapshot) {
  create_branch(*local_storage(root), name, snapshot);
}
void reset_branch(const std::string& root, const std::string& name, const std::string& snapshot,
                  const std::optional<std::string>& expected) {
  reset_branch(*local_storage(root), name, snapshot, expected);
}
void delete_branch(const std::string& root, const std::string& name, const std::optional<std::string>& expected) {
  delete_branch(*local_storage(root), name, expected);
}
void create_tag(const std::string& root, const std::string& name, const std::string& snapshot) {
  create_tag(*local_storage(root), name, snapshot);
}
void delete_tag(const std::string& root, const std::string& name) { delete_tag(*local_storage(root), name); }
std::string create_repository(const std::string& root, const std::string& metadata_key, const std::string& metadata_value) {
  return create_repository(*local_storage(root), metadata_key, metadata_value);
}
std::optional<std::string> repository_metadata_string(const std::string& root, const std::string& key) {
  return repository_metadata_string(*local_storage(root), key);
}

}  // namespace tether::icechunk
