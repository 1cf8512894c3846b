#include "diff.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

#include "icechunk_generated.h"
#include "ids.hpp"

namespace tether::icechunk {
namespace {

std::string id8(const fb::ObjectId8* id) { return encode_id(id->bytes()->data(), 8); }
std::string id12(const fb::ObjectId12* id) { return encode_id(id->bytes()->data(), 12); }

template <class Table>
const Table* verified(const MetadataFile& f, const std::string& what) {
  flatbuffers::Verifier v(f.payload.data(), f.payload.size(), 64, 500'000'000);
  if (!v.VerifyBuffer<Table>(nullptr)) throw FormatError(what + ": the flatbuffer does not verify");
  return flatbuffers::GetRoot<Table>(f.payload.data());
}

// Node-id level changes, before paths are known.
struct IdChanges {
  std::set<std::string> new_groups, new_arrays, deleted_groups, deleted_arrays, updated_groups, updated_arrays;
  std::map<std::string, std::set<std::vector<uint32_t>>> chunks;
  std::vector<std::pair<std::string, std::string>> moved;
};

// Transaction logs fetched this many at a time from an object store, by up to kFetchThreads
// requests in flight (the connections a Store keeps idle): one log after another pays the
// store's latency per log (a diff across 300 commits waited 13 s on a Ceph gateway whose
// answers take 40 ms). The window bounds the logs held in memory at once.
constexpr std::size_t kFetchWindow = 128;
constexpr std::size_t kFetchThreads = 16;

// The logs ids[from, to) from the store, each nullopt when it does not exist; the first
// failure, in order, is rethrown.
std::vector<std::optional<Bytes>> fetch_logs(const Repository& repo, const std::vector<std::string>& ids, std::size_t from,
                                             std::size_t to) {
  std::vector<std::optional<Bytes>> out(to - from);
  std::vector<std::exception_ptr> errors(to - from);
  std::atomic<std::size_t> next{from};
  auto worker = [&] {
    for (std::size_t i = next++; i < to; i = next++) {
      try {
        out[i - from] = repo.storage().read_immutable("transactions/" + ids[i]);
      } catch (...) {
        errors[i - from] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < std::min(kFetchThreads, to - from); ++i) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

void add_log(const Repository& repo, const std::string& id, const std::optional<Bytes>& bytes, IdChanges& c,
             std::vector<std::string>& missing) {
  std::string file = repo.path("transactions/" + id);
  if (!bytes) {
    missing.push_back(id);
    return;
  }
  MetadataFile f = parse_metadata_file(*bytes, FileType::TransactionLog, file);
  const fb::TransactionLog* log = verified<fb::TransactionLog>(f, file);
  auto ids = [](const flatbuffers::Vector<const fb::ObjectId8*>* v, std::set<std::string>& out) {
    for (const fb::ObjectId8* n : *v) out.insert(id8(n));
  };
  ids(log->new_groups(), c.new_groups);
  ids(log->new_arrays(), c.new_arrays);
  ids(log->deleted_groups(), c.deleted_groups);
  ids(log->deleted_arrays(), c.deleted_arrays);
  ids(log->updated_groups(), c.updated_groups);
  ids(log->updated_arrays(), c.updated_arrays);
  for (const fb::ArrayUpdatedChunks* a : *log->updated_chunks()) {
    auto& set = c.chunks[id8(a->node_id())];
    for (const fb::ChunkIndices* ci : *a->chunks()) set.insert(std::vector<uint32_t>(ci->coords()->begin(), ci->coords()->end()));
  }
  if (const auto* moves = log->moved_nodes())
    for (const fb::MoveOperation* m : *moves)
      c.moved.emplace_back(m->from() ? m->from()->str() : "", m->to() ? m->to()->str() : "");
}

}  // namespace

SnapshotDiff diff_snapshots(const Repository& repo, const std::string& from, const std::string& to,
                            const LogProgress& progress) {
  // The snapshots after `from` up to `to`, newest first.
  std::vector<SnapshotInfo> between;
  bool met = false;
  for (auto& s : repo.ancestry(to)) {
    if (s.id == from) {
      met = true;
      break;
    }
    between.push_back(std::move(s));
  }
  if (!met || from == to)
    throw BadSnapshotChain("cannot diff " + from + " to " + to + " in " + repo.root() + ": " + from +
                           " is not an earlier snapshot of " + to);
  std::vector<std::string> logs;
  for (const auto& s : between) {
    logs.insert(logs.end(), s.pruned_ancestor_tx_logs.begin(), s.pruned_ancestor_tx_logs.end());
    logs.push_back(s.id);
  }
  IdChanges c;
  SnapshotDiff d;
  if (repo.storage().is_local()) {
    for (std::size_t i = 0; i < logs.size(); ++i) {
      add_log(repo, logs[i], repo.storage().read_immutable("transactions/" + logs[i]), c, d.missing_logs);
      if (progress) progress(i + 1, logs.size());
    }
  } else {
    for (std::size_t at = 0; at < logs.size(); at += kFetchWindow) {
      std::size_t end = std::min(logs.size(), at + kFetchWindow);
      auto window = fetch_logs(repo, logs, at, end);
      for (std::size_t i = at; i < end; ++i) add_log(repo, logs[i], window[i - at], c, d.missing_logs);
      if (progress) progress(end, logs.size());
    }
  }
  // Node ids to paths: the `to` snapshot's path wins; ids in neither end are dropped.
  std::map<std::string, std::string> paths;
  for (const auto& n : repo.read_snapshot(from).nodes) paths[n.id] = n.path;
  for (const auto& n : repo.read_snapshot(to).nodes) paths[n.id] = n.path;
  auto translate = [&](const std::set<std::string>& ids, std::set<std::string>& out) {
    for (const auto& id : ids)
      if (auto it = paths.find(id); it != paths.end()) out.insert(it->second);
  };
  translate(c.new_groups, d.new_groups);
  translate(c.new_arrays, d.new_arrays);
  translate(c.deleted_groups, d.deleted_groups);
  translate(c.deleted_arrays, d.deleted_arrays);
  translate(c.updated_groups, d.updated_groups);
  translate(c.updated_arrays, d.updated_arrays);
  for (auto& [id, coords] : c.chunks)
    if (auto it = paths.find(id); it != paths.end()) d.updated_chunks[it->second].insert(coords.begin(), coords.end());
  d.moved = std::move(c.moved);
  return d;
}

SnapshotCheck check_snapshot(const Repository& repo, const std::string& id, bool deep) {
  Snapshot s;
  try {
    if (repo.format() == 2 && !repo.has_snapshot(id)) return {false, "snapshot " + id + " is not in " + repo.path("repo")};
    // The file itself, not a cached copy: it may have been collected since.
    if (is_id12(id) && !repo.storage().exists("snapshots/" + id))
      return {false, "snapshot " + id + " is not in " + repo.root() + " (no " + repo.path("snapshots/" + id) + ")"};
    s = repo.read_snapshot(id);
  } catch (const StorageError&) {
    throw;
  } catch (const FormatError& e) {
    return {false, e.what()};
  }
  std::set<std::string> listed(s.manifest_files.begin(), s.manifest_files.end());
  for (std::size_t i = 0; i < s.manifest_files.size(); ++i) {
    std::string rel = "manifests/" + s.manifest_files[i];
    std::string file = repo.path(rel);
    std::optional<uint64_t> size = repo.storage().size(rel);  // a store failure is an error, not "missing"
    if (!size) return {false, "snapshot " + id + " needs manifest " + s.manifest_files[i] + ", which is gone (" + file + ")"};
    if (*size != s.manifest_sizes[i])
      return {false, "manifest " + file + " is " + std::to_string(*size) + " bytes, the snapshot recorded " +
                         std::to_string(s.manifest_sizes[i])};
    if (deep) {
      try {
        auto bytes = repo.storage().read_immutable(rel);  // in parts when large; not cached
        if (!bytes) return {false, "snapshot " + id + " needs manifest " + s.manifest_files[i] + ", which is gone (" + file + ")"};
        MetadataFile f = parse_metadata_file(*bytes, FileType::Manifest, file);
        const fb::Manifest* m = verified<fb::Manifest>(f, file);
        if (id12(m->id()) != s.manifest_files[i]) return {false, file + " holds manifest " + id12(m->id())};
      } catch (const StorageError&) {
        throw;
      } catch (const FormatError& e) {
        return {false, e.what()};
      }
    }
  }
  for (const auto& n : s.nodes)
    for (const auto& m : n.manifests)
      if (!listed.count(m))
        return {false, "array " + n.path + " of snapshot " + id + " uses manifest " + m + ", which the snapshot does not list"};
  return {};
}

}  // namespace tether::icechunk
