// conformance/memory/store.cpp: the memory store, its JSON form and its locking.
#include "store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>

namespace tether::memory {

System& Store::system(const std::string& name) {
  if (deleted(name)) throw StoreError("memory: system " + name + " was deleted");
  auto it = systems_.find(name);
  if (it == systems_.end()) {
    materialize(name);
    it = systems_.find(name);
  }
  return it->second;
}

System* Store::find(const std::string& name) {
  if (deleted(name)) return nullptr;
  auto it = systems_.find(name);
  return it == systems_.end() ? nullptr : &it->second;
}

void Store::materialize(const std::string& name) {
  deleted_.erase(name);
  System sys;
  std::string s0 = name + ":s0";
  sys.snapshots[s0] = Json::object();
  sys.parents[s0] = {};
  sys.branches["main"] = s0;
  systems_[name] = std::move(sys);
}

void Store::remove(const std::string& name) {
  systems_.erase(name);
  deleted_.insert(name);
}

std::string Store::resolve(const System& sys, const std::string& name, const std::string& ref) {
  if (auto b = sys.branches.find(ref); b != sys.branches.end()) return b->second;
  if (auto t = sys.tags.find(ref); t != sys.tags.end()) return t->second;
  if (sys.snapshots.count(ref)) return ref;
  throw StoreError("memory: unknown ref " + ref + " in system " + name);
}

std::string Store::write(System& sys, const std::string& name, const std::string& branch, Json payload,
                         const std::vector<std::string>& extra_parents) {
  std::string id = name + ":s" + std::to_string(++sys.counter);
  std::vector<std::string> parents;
  if (auto b = sys.branches.find(branch); b != sys.branches.end()) parents.push_back(b->second);
  parents.insert(parents.end(), extra_parents.begin(), extra_parents.end());
  sys.snapshots[id] = std::move(payload);
  sys.parents[id] = std::move(parents);
  sys.branches[branch] = id;
  return id;
}

std::vector<std::string> Store::ancestors(const System& sys, const std::string& snapshot) {
  std::vector<std::string> out;
  std::set<std::string> seen{snapshot};
  std::deque<std::string> queue{snapshot};
  while (!queue.empty()) {
    std::string id = queue.front();
    queue.pop_front();
    out.push_back(id);
    auto p = sys.parents.find(id);
    if (p == sys.parents.end()) continue;
    for (const auto& parent : p->second)
      if (seen.insert(parent).second) queue.push_back(parent);
  }
  return out;
}

Json Store::to_json() const {
  Json systems = Json::object();
  for (const auto& [name, s] : systems_) {
    systems[name] = Json{{"snapshots", s.snapshots}, {"branches", s.branches}, {"tags", s.tags},
                         {"parents", s.parents},     {"counter", s.counter},   {"owner", s.owner ? Json(*s.owner) : Json()}};
  }
  return Json{{"format", "tether-memory-store/1"}, {"systems", systems}, {"deleted", deleted_}};
}

Store Store::from_json(const Json& j) {
  Store st;
  for (const auto& [name, s] : j.at("systems").items()) {
    System sys;
    sys.snapshots = s.at("snapshots").get<std::map<std::string, Json>>();
    sys.branches = s.at("branches").get<std::map<std::string, std::string>>();
    sys.tags = s.at("tags").get<std::map<std::string, std::string>>();
    sys.parents = s.at("parents").get<std::map<std::string, std::vector<std::string>>>();
    sys.counter = s.at("counter").get<int64_t>();
    if (s.contains("owner") && s["owner"].is_string()) sys.owner = s["owner"].get<std::string>();
    st.systems_[name] = std::move(sys);
  }
  st.deleted_ = j.at("deleted").get<std::set<std::string>>();
  return st;
}

namespace {

std::mutex& store_mutex() {
  static std::mutex m;
  return m;
}

Store& process_store() {
  static Store s;
  return s;
}

// flock on `<path>.lock` (a separate file, since the store file itself is replaced by rename).
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw StoreError("memory: cannot open " + path + ".lock: " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd_);
      throw StoreError("memory: cannot lock " + path + ".lock: " + std::strerror(e));
    }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

Store load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Store{};  // no file yet: an empty store
  std::stringstream buf;
  buf << in.rdbuf();
  if (buf.str().empty()) return Store{};
  try {
    return Store::from_json(Json::parse(buf.str()));
  } catch (const std::exception& e) {
    throw StoreError("memory: store file " + path + " is corrupt: " + e.what());
  }
}

void save(const std::string& path, const Store& st) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << st.to_json().dump();
    out.flush();
    if (!out) throw StoreError("memory: cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw StoreError("memory: cannot replace " + path + ": " + std::strerror(errno));
}

}  // namespace

void with_store(const std::string& path, bool write, const std::function<void(Store&)>& fn) {
  std::lock_guard<std::mutex> guard(store_mutex());
  if (path.empty()) {
    // Process-local: work on a copy so a failed operation leaves nothing half-done.
    Store copy = process_store();
    fn(copy);
    if (write) process_store() = std::move(copy);
    return;
  }
  FileLock lock(path);
  Store st = load(path);
  fn(st);
  if (write) save(path, st);
}

}  // namespace tether::memory
