// core/src/engine/support.cpp: secrets, .gitignore upkeep, the tracked-file refusal, parsing
// manifests read out of the VCS, and the op log.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "engine/internal.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/toml.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string keyed_error(const std::string& key, const std::exception& e) {
  std::string msg = e.what();
  std::string prefix = "[" + key + "] ";
  return msg.rfind(prefix, 0) == 0 ? msg : prefix + msg;
}

std::string git_executable(const Json& secrets) {
  if (auto v = secrets.find("vcs"); v != secrets.end() && v->is_object())
    if (auto g = v->find("git_path"); g != v->end() && g->is_string()) return g->get<std::string>();
  if (const char* env = std::getenv("TETHER_GIT"); env && *env) return env;
  return "";
}

void refuse_tracked_checkout_files(const vcs::VcsAdapter& vcs, const std::string& tether_vcs_dir) {
  std::vector<std::string> paths;
  for (const char* name : {"secrets.toml", "workspace.toml", "ops.jsonl"}) paths.push_back(tether_vcs_dir + "/" + name);
  auto tracked = vcs.tracked(paths);
  if (tracked.empty()) return;
  throw ConfigError(join(tracked) + " is tracked by " + vcs.kind() +
                    "; these files belong to one checkout (secrets.toml may hold credentials). Untrack them: `git rm --cached " +
                    join(tracked, " ") + "`");
}

std::map<std::string, model::ObjectManifest> parse_manifest_files(const vcs::FileMap& files, const std::string& commit) {
  std::map<std::string, model::ObjectManifest> out;
  for (const auto& [rel, text] : files) {
    if (rel.size() < 5 || rel.compare(rel.size() - 5, 5, ".toml") != 0) continue;
    std::string key = rel.substr(0, rel.size() - 5);
    auto m = model::parse_manifest(text, commit.substr(0, 12) + ":.tether/objects/" + rel, key);
    out.emplace(m.key, std::move(m));
  }
  return out;
}

// ---- op log ----

namespace {
std::mutex g_oplog;

std::string iso_seconds() {
  std::string s = model::now_iso_utc();
  auto dot = s.find('.');
  if (dot != std::string::npos) s = s.substr(0, dot) + "+00:00";
  return s;
}
}  // namespace

void OpLog::append(const Json& line) {
  std::lock_guard lock(g_oplog);
  fs::create_directories(path_.parent_path());
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw TetherError("cannot write the operation log " + path_.string() + ": " + std::strerror(errno));
  std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  // A torn last line (crash mid-write) is skipped by readers; start on a fresh line.
  off_t size = lseek(fd, 0, SEEK_END);
  if (size > 0) {
    char last = '\n';
    if (pread(fd, &last, 1, size - 1) == 1 && last != '\n') text = "\n" + text;
  }
  ssize_t n = ::write(fd, text.data(), text.size());
  int e = errno;
  fsync(fd);
  close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    throw TetherError("cannot write the operation log " + path_.string() + ": " + std::strerror(e));
}

std::string OpLog::begin(const std::string& command, const Json& pre) {
  std::string id = model::new_op_id();
  append(Json{{"id", id},
              {"at", iso_seconds()},
              {"command", command},
              {"plan", nullptr},
              {"result", Json::object()},
              {"pre", pre},
              {"undoes", nullptr},
              {"undone_by", nullptr},
              {"status", "started"},
              {"progress", Json::array()},
              {"parent", nullptr}});
  return id;
}

void OpLog::progress(const std::string& id, const Json& record) {
  Json line = record;
  line["progress"] = id;
  append(line);
}

void OpLog::end(const std::string& id, const Json& result) { append(Json{{"done", id}, {"result", result}}); }

}  // namespace tether::engine
