#include "engine/testing/dataset.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/testing/faulty_vcs.hpp"
#include "store.hpp"  // conformance/memory: the reference backend's store
#include "tether/backend.h"
#include "tether/engine/init.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/testing/git.hpp"

namespace fs = std::filesystem;

namespace tether::engine::testing {

void FaultyVcs::step(const char* name) {
  if (fail_at_ != name) return;
  ++reached_;
  if (reached_ > after_) throw VcsError(std::string("injected failure at ") + name);
}

Dataset::Dataset() : tmp_("tether-engine"), root_(tmp_.path() / "ds") {
  fs::create_directories(root_);
  git({"init", "-q", "-b", "main"});
  git({"commit", "-q", "--allow-empty", "-m", "initial"});
  init(root_);
}

Dataset::~Dataset() = default;

std::unique_ptr<Repo> Dataset::open_at(const fs::path& dir, Services services) const {
  auto host = std::make_unique<host::PluginHost>(std::vector<fs::path>{});
  host->add_builtin(tether_entry);  // the memory backend linked into this test
  host->set_backend_config("memory", nlohmann::json{{"store", store_file().string()}}.dump());
  services.host = std::move(host);
  return Repo::open(dir, std::move(services));
}

std::string Dataset::git(const std::vector<std::string>& args) const { return tether::testing::git(root_, args); }

CommitResult Dataset::commit(const std::string& message, Services services) const {
  CommitOptions o;
  o.message = message;
  return tether::engine::commit(*open(std::move(services)), o);
}

void Dataset::add_memory(const std::string& key, const std::string& system) const {
  AddRequest request;
  request.key = key;
  request.kind = "memory";
  request.locator = {{"system", system}};
  request.cwd = root_;
  tether::engine::add(*open(), request);
}

std::string Dataset::advance(const std::string& system, const std::string& branch, const std::string& key) const {
  std::string id;
  memory::with_store(store_file().string(), true, [&](memory::Store& st) {
    auto& sys = st.system(system);
    auto head = sys.branches.find(branch);
    if (head == sys.branches.end()) throw std::runtime_error("test store: no branch " + branch + " in " + system);
    memory::Json payload = memory::Json{{"n", sys.counter + 1}};
    if (!key.empty()) {
      payload = sys.snapshots.at(head->second);
      payload[key] = sys.counter + 1;
    }
    id = memory::Store::write(sys, system, branch, std::move(payload));
  });
  return id;
}

void Dataset::untag(const std::string& system, const std::string& tag) const {
  memory::with_store(store_file().string(), true, [&](memory::Store& st) {
    if (st.system(system).tags.erase(tag) == 0) throw std::runtime_error("test store: no tag " + tag);
  });
}

void Dataset::delete_branch(const std::string& system, const std::string& branch) const {
  memory::with_store(store_file().string(), true, [&](memory::Store& st) {
    if (st.system(system).branches.erase(branch) == 0) throw std::runtime_error("test store: no branch " + branch);
  });
}

void Dataset::delete_system(const std::string& system) const {
  memory::with_store(store_file().string(), true, [&](memory::Store& st) { st.remove(system); });
}

std::map<std::string, std::string> Dataset::tags(const std::string& system) const {
  std::map<std::string, std::string> out;
  memory::with_store(store_file().string(), false, [&](memory::Store& st) {
    if (auto* sys = st.find(system)) out = sys->tags;
  });
  return out;
}

std::map<std::string, std::string> Dataset::branches(const std::string& system) const {
  std::map<std::string, std::string> out;
  memory::with_store(store_file().string(), false, [&](memory::Store& st) {
    if (auto* sys = st.find(system)) out = sys->branches;
  });
  return out;
}

std::string Dataset::read(const std::string& rel) const {
  std::ifstream in(root_ / rel, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> Dataset::op_log() const {
  std::vector<std::string> lines;
  std::istringstream in(read(".tether/ops.jsonl"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace tether::engine::testing
