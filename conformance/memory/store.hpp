// conformance/memory/store.hpp: the data of the in-memory reference backend
// (docs/backends.md#memory) and how it is shared. A store holds named systems; each system has
// snapshots (flat key/value payloads), branches, tags, parent links, a counter and an optional
// owner marker.
//
// Sharing: every `tether` run is a new process, so a store may live in a JSON file. Access
// then takes the process mutex plus an flock on `<file>.lock`, reads the file, applies the
// change and renames a new file into place: a check and the move it guards are one atomic
// step across threads and processes. Without a file the store is process-local.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tether::memory {

using Json = nlohmann::json;

struct System {
  std::map<std::string, Json> snapshots;  // id -> payload (a JSON object)
  std::map<std::string, std::string> branches;
  std::map<std::string, std::string> tags;
  std::map<std::string, std::vector<std::string>> parents;
  int64_t counter = 0;
  std::optional<std::string> owner;
};

// A store failure the backend reports as BackendError (the message is for people).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Store {
 public:
  // The system, materialized on first use; a deleted one is an error.
  System& system(const std::string& name);
  // The system if it is materialized, else nullptr (never materializes).
  System* find(const std::string& name);
  bool deleted(const std::string& name) const { return deleted_.count(name) != 0; }
  void materialize(const std::string& name);
  void remove(const std::string& name);

  // Branch name, tag name, then raw snapshot id.
  static std::string resolve(const System& sys, const std::string& name, const std::string& ref);
  // A new snapshot on `branch` (parents: the branch's previous head plus `extra_parents`).
  static std::string write(System& sys, const std::string& name, const std::string& branch, Json payload,
                           const std::vector<std::string>& extra_parents = {});
  // Breadth-first over parent links, nearest first, the snapshot itself included.
  static std::vector<std::string> ancestors(const System& sys, const std::string& snapshot);

  Json to_json() const;
  static Store from_json(const Json& j);

 private:
  std::map<std::string, System> systems_;
  std::set<std::string> deleted_;
};

// Runs `fn` on the store at `path` ("" = the process-local store) under the locks described
// above; the store is written back only when `write` is true and `fn` returned normally.
void with_store(const std::string& path, bool write, const std::function<void(Store&)>& fn);

}  // namespace tether::memory
