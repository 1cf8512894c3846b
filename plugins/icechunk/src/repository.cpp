#include "repository.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

#include "icechunk_generated.h"
#include "ids.hpp"

namespace tether::icechunk {
namespace {

std::string id12(const fb::ObjectId12* id) { return id ? encode_id(id->bytes()->data(), 12) : std::string(); }
std::string id8(const fb::ObjectId8* id) { return id ? encode_id(id->bytes()->data(), 8) : std::string(); }
std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// The verifier limits of Icechunk's own reader.
template <class Table>
const Table* verified_root(const MetadataFile& f, const std::string& what, uint32_t depth, uint32_t tables) {
  flatbuffers::Verifier v(f.payload.data(), f.payload.size(), depth, tables);
  if (!v.VerifyBuffer<Table>(nullptr)) throw FormatError(what + ": the flatbuffer does not verify");
  return flatbuffers::GetRoot<Table>(f.payload.data());
}

// A spec-1 ref file's snapshot id; `what` names it.
std::string read_ref_json(const Bytes& bytes, const std::string& what) {
  auto snapshot = ref_snapshot(bytes);
  if (!snapshot) throw FormatError(what + " is not a ref ({\"snapshot\": \"<id>\"})");
  const std::string& id = *snapshot;
  if (!decode_id(id, 12)) throw FormatError(what + " names '" + id + "', which is not a snapshot id");
  return id;
}

const char* update_type_name(fb::UpdateType t) {
  static const char* const names[] = {"NONE",
                                      "RepoInitializedUpdate",
                                      "RepoMigratedUpdate",
                                      "ConfigChangedUpdate",
                                      "MetadataChangedUpdate",
                                      "TagCreatedUpdate",
                                      "TagDeletedUpdate",
                                      "BranchCreatedUpdate",
                                      "BranchDeletedUpdate",
                                      "BranchResetUpdate",
                                      "NewCommitUpdate",
                                      "CommitAmendedUpdate",
                                      "NewDetachedSnapshotUpdate",
                                      "GCRanUpdate",
                                      "ExpirationRanUpdate",
                                      "FeatureFlagChangedUpdate",
                                      "RepoStatusChangedUpdate"};
  auto i = static_cast<std::size_t>(t);
  return i < sizeof names / sizeof names[0] ? names[i] : "UnknownUpdate";
}

}  // namespace

std::string iso_utc_us(uint64_t us) {
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06llu+00:00", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<unsigned long long>(us % 1'000'000));
  return buf;
}

Repository Repository::open(std::shared_ptr<Storage> storage) {
  Repository r;
  r.storage_ = std::move(storage);
  Storage& st = *r.storage_;
  if (auto repo = st.read("repo")) {
    r.format_ = 2;
    r.load_repo_v2(*repo);
  } else if (st.exists("refs/branch.main/ref.json")) {
    r.format_ = 1;
    r.load_refs_v1();
  } else {
    throw FormatError(st.root() + " is not an Icechunk repository (no `repo` file and no refs/branch.main/ref.json)");
  }
  return r;
}

// As Icechunk lists refs: every object under refs/; `<kind>.<name>/ref.json` is a ref, and a
// tag with `ref.json.deleted` next to it is deleted. Staging names are never listed.
void Repository::load_refs_v1() {
  Storage& st = *storage_;
  std::set<std::string> keys;
  for (auto& k : st.list("refs/")) keys.insert(std::move(k));
  for (const auto& k : keys) {
    constexpr std::string_view kRef = "/ref.json";
    if (k.size() <= 5 + kRef.size() || k.compare(k.size() - kRef.size(), kRef.size(), kRef) != 0) continue;
    std::string name = k.substr(5, k.size() - 5 - kRef.size());
    if (name.find('/') != std::string::npos || is_staging_name(name)) continue;
    auto read_ref = [&] {
      auto bytes = st.read(k);
      if (!bytes) throw FormatError(st.name(k) + " disappeared while tether read the refs; try again");
      return read_ref_json(*bytes, st.name(k));
    };
    if (name.rfind("branch.", 0) == 0) {
      branches_[name.substr(7)] = read_ref();
    } else if (name.rfind("tag.", 0) == 0) {
      if (keys.count(k + ".deleted")) deleted_tags_.push_back(name.substr(4));
      else tags_[name.substr(4)] = read_ref();
    }
  }
  std::sort(deleted_tags_.begin(), deleted_tags_.end());
}

void Repository::load_repo_v2(const Bytes& bytes) {
  std::string file = path("repo");
  MetadataFile f = parse_metadata_file(bytes, FileType::RepoInfo, file);
  repo_writer_ = f.writer;
  const fb::Repo* repo = verified_root<fb::Repo>(f, file, 10, 5'000'000);
  const auto* snaps = repo->snapshots();
  repo_snapshots_.reserve(snaps->size());
  for (flatbuffers::uoffset_t i = 0; i < snaps->size(); ++i) {
    const fb::SnapshotInfo* s = snaps->Get(i);
    SnapshotInfo info;
    info.id = id12(s->id());
    int32_t parent = s->parent_offset();  // absent reads as 0, a valid position
    if (parent >= 0) {
      if (static_cast<flatbuffers::uoffset_t>(parent) >= snaps->size())
        throw FormatError(file + ": snapshot " + info.id + " has parent position " + std::to_string(parent) + " of " +
                          std::to_string(snaps->size()));
      info.parent = id12(snaps->Get(static_cast<flatbuffers::uoffset_t>(parent))->id());
    }
    info.flushed_at_us = s->flushed_at();
    info.message = str(s->message());
    if (const auto* pruned = s->pruned_ancestor_tx_logs())
      for (const fb::ObjectId12* p : *pruned) info.pruned_ancestor_tx_logs.push_back(id12(p));
    repo_index_[info.id] = repo_snapshots_.size();
    repo_snapshots_.push_back(std::move(info));
  }
  auto refs = [&](const flatbuffers::Vector<flatbuffers::Offset<fb::Ref>>* list, std::map<std::string, std::string>& out,
                  const char* what) {
    for (const fb::Ref* ref : *list) {
      if (ref->snapshot_index() >= snaps->size())
        throw FormatError(file + ": " + what + " " + str(ref->name()) + " points past the snapshot list");
      out[str(ref->name())] = repo_snapshots_[ref->snapshot_index()].id;
    }
  };
  refs(repo->branches(), branches_, "branch");
  refs(repo->tags(), tags_, "tag");
  for (const flatbuffers::String* name : *repo->deleted_tags()) deleted_tags_.push_back(name->str());
  std::sort(deleted_tags_.begin(), deleted_tags_.end());
  for (const fb::Update* u : *repo->latest_updates()) {
    Update up;
    up.type = update_type_name(u->update_type_type());
    up.updated_at_us = u->updated_at();
    if (u->backup_path()) up.backup_path = u->backup_path()->str();
    ops_log_.push_back(std::move(up));
  }
}

std::optional<std::string> Repository::branch(const std::string& name) const {
  auto it = branches_.find(name);
  if (it == branches_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Repository::tag(const std::string& name) const {
  auto it = tags_.find(name);
  if (it == tags_.end()) return std::nullopt;
  return it->second;
}

bool Repository::has_snapshot(const std::string& id) const {
  if (format_ == 2 && !repo_index_.count(id)) return false;
  return is_id12(id) && storage_->exists("snapshots/" + id);
}

Snapshot Repository::read_snapshot(const std::string& id) const {
  if (!is_id12(id)) throw FormatError("'" + id + "' is not a snapshot id");
  std::string file = path("snapshots/" + id);
  auto bytes = storage_->read_immutable("snapshots/" + id);
  if (!bytes) throw FormatError("snapshot " + id + " is not in " + root() + " (no " + file + ")");
  MetadataFile f = parse_metadata_file(*bytes, FileType::Snapshot, file);
  const fb::Snapshot* s = verified_root<fb::Snapshot>(f, file, 64, 50'000'000);
  Snapshot out;
  out.spec_version = f.spec_version;
  out.writer = f.writer;
  out.info.id = id12(s->id());
  if (out.info.id != id) throw FormatError(file + " holds snapshot " + out.info.id + ", not " + id);
  if (format_ == 2) {
    auto it = repo_index_.find(id);
    if (it != repo_index_.end()) out.info = repo_snapshots_[it->second];
  }
  if (s->parent_id() && !out.info.parent) out.info.parent = id12(s->parent_id());
  out.info.flushed_at_us = s->flushed_at();
  out.info.message = str(s->message());
  out.nodes.reserve(s->nodes()->size());
  for (const fb::NodeSnapshot* n : *s->nodes()) {
    Node node;
    node.id = id8(n->id());
    node.path = str(n->path());
    node.user_data.assign(reinterpret_cast<const char*>(n->user_data()->data()), n->user_data()->size());
    if (const fb::ArrayNodeData* a = n->node_data_as_Array()) {
      node.kind = Node::Kind::Array;
      for (const fb::ManifestRef* m : *a->manifests()) node.manifests.push_back(id12(m->object_id()));
    } else if (n->node_data_as_Group()) {
      node.kind = Node::Kind::Group;
    } else {
      throw FormatError(file + ": node " + node.path + " is neither an array nor a group");
    }
    out.nodes.push_back(std::move(node));
  }
  for (const fb::ManifestFileInfo* m : *s->manifest_files()) {
    out.manifest_files.push_back(id12(&m->id()));
    out.manifest_sizes.push_back(m->size_bytes());
  }
  if (const auto* v2 = s->manifest_files_v2())
    for (const fb::ManifestFileInfoV2* m : *v2) {
      out.manifest_files.push_back(id12(m->id()));
      out.manifest_sizes.push_back(m->size_bytes());
    }
  return out;
}

SnapshotInfo Repository::snapshot_info(const std::string& id) const {
  if (format_ == 2) {
    auto it = repo_index_.find(id);
    if (it == repo_index_.end()) throw FormatError("snapshot " + id + " is not in " + path("repo"));
    return repo_snapshots_[it->second];
  }
  return read_snapshot(id).info;
}

std::vector<SnapshotInfo> Repository::ancestry(const std::string& id, std::size_t limit) const {
  std::vector<SnapshotInfo> out;
  // A cycle would be a corrupt repository; stop after as many steps as there can be.
  std::size_t guard = format_ == 2 ? repo_snapshots_.size() + 1 : 1'000'000;
  std::optional<std::string> at = id;
  while (at && (limit == 0 || out.size() < limit)) {
    if (out.size() >= guard) throw FormatError(root() + ": the history of " + id + " loops");
    out.push_back(snapshot_info(*at));
    at = out.back().parent;
  }
  return out;
}

}  // namespace tether::icechunk
