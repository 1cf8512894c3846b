// core/src/engine/repo.cpp: opening and initialising a dataset, the checkout and repository
// locks, backend configuration (committed allowlist + secrets), the op log, and the small
// queries every command shares (moving keys, working refs, manifests at a revision).
#include "tether/engine/repo.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine/internal.hpp"
#include "tether/engine/init.hpp"
#include "tether/engine/status.hpp"
#include "tether/errors.hpp"
#include "tether/host/load_error.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/gitignore.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/secrets.hpp"
#include "tether/model/toml.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

// ---- locks -----------------------------------------------------------------------------------

Repo::Lock::~Lock() {
  if (fd >= 0) {
    flock(fd, LOCK_UN);
    close(fd);
  }
  if (held) *held = false;
}

namespace {

// "pid N: tether commit": who holds a lock, written into the lock file by the holder. The
// program and the command word only: arguments can hold DSNs and passwords, and the file
// stays after exit.
std::string holder_description() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string program, command;
  std::getline(in, program, '\0');
  std::getline(in, command, '\0');
  std::string cmd = fs::path(program).filename().string();
  const bool word = !command.empty() && command.size() <= 32 && std::all_of(command.begin(), command.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '-';
  });
  if (word) cmd += " " + command;
  return "pid " + std::to_string(::getpid()) + (cmd.empty() ? "" : ": " + cmd);
}

// The first line of the lock file, read through the descriptor we opened.
std::string read_holder(int fd) {
  char buf[256];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  if (n <= 0) return "";
  std::string line(buf, static_cast<std::size_t>(n));
  return line.substr(0, line.find('\n'));
}

// TETHER_LOCK_TIMEOUT (seconds) overrides how long a writer waits for a lock.
std::chrono::milliseconds lock_timeout(std::chrono::seconds fallback) {
  if (const char* env = std::getenv("TETHER_LOCK_TIMEOUT"); env && *env) {
    char* end = nullptr;
    double v = std::strtod(env, &end);
    if (end && *end == '\0' && v >= 0) return std::chrono::milliseconds(static_cast<long long>(v * 1000));
  }
  return fallback;
}

// Takes the flock on `fd` (opened O_RDWR | O_CREAT, never through a symlink), waiting up to
// the timeout; `busy_message` has `{holder}` where the holder's description goes (" by pid N:
// tether ...", or nothing when unknown).
int take_lock(int fd, const fs::path& path, std::chrono::seconds timeout, const std::string& busy_message) {
  auto deadline = std::chrono::steady_clock::now() + lock_timeout(timeout);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      close(fd);
      throw TetherError("cannot lock " + path.string() + ": " + std::strerror(e));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string holder = read_holder(fd);
      close(fd);
      std::string msg = busy_message;
      auto pos = msg.find("{holder}");
      if (pos != std::string::npos) msg.replace(pos, 8, holder.empty() ? "" : " by " + holder);
      throw TetherError(msg);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Say who holds it, for whoever waits next. Best effort: the lock works without it. Only
  // the owner reads and writes it (a lock file of an older tether may be 0644).
  ::fchmod(fd, 0600);
  std::string me = holder_description() + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t n = ::pwrite(fd, me.data(), me.size(), 0);
    (void)n;
  }
  return fd;
}

}  // namespace

std::unique_ptr<Repo::Lock> Repo::lock_checkout() {
  if (checkout_locked_) return std::make_unique<Lock>();
  const auto at = tether_dir() / "lock";
  const fs::path path = at.full();
  auto lock = std::make_unique<Lock>();
  // A committed `.tether/lock` symlink must never be truncated through: refused here.
  model::Fd fd = model::open_checkout_file(at, O_RDWR | O_CREAT, 0600);
  if (!fd) throw TetherError("cannot open lock file " + path.string());
  lock->fd = take_lock(fd.release(), path, std::chrono::seconds(30),
                       "another tether command is writing in this checkout (" + path.string() +
                           " is locked{holder}); wait for it to finish");
  checkout_locked_ = true;
  lock->held = &checkout_locked_;
  // What we read before the lock may be stale now.
  reload();
  return lock;
}

std::unique_ptr<Repo::Lock> Repo::lock_repository() {
  if (repository_locked_) return std::make_unique<Lock>();
  auto path = vcs_->shared_dir() / "tether.lock";
  auto lock = std::make_unique<Lock>();
  fs::create_directories(path.parent_path());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw TetherError("cannot open lock file " + path.string() + ": " + std::strerror(errno));
  lock->fd = take_lock(fd, path, std::chrono::seconds(60),
                       "another tether command is committing or collecting in a checkout of this repository (" +
                           path.string() + " is locked{holder}); wait for it to finish");
  repository_locked_ = true;
  lock->held = &repository_locked_;
  return lock;
}

// ---- opening -------------------------------------------------------------------------------

Repo::~Repo() = default;

namespace {

fs::path find_root(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(start), ec);
  if (ec) dir = fs::absolute(start);
  for (fs::path d = dir;; d = d.parent_path()) {
    // Whatever is there, a link too: check_checkout refuses what is not a real file, rather
    // than a link silently making a parent directory the dataset.
    if (fs::exists(fs::symlink_status(d / "tether.toml", ec))) return d;
    if (d == d.root_path() || d.empty()) break;
  }
  throw DatasetNotFound("no tether dataset found at or above " + dir.string());
}

}  // namespace

Services::Services() = default;
Services::~Services() = default;
Services::Services(Services&&) noexcept = default;
Services& Services::operator=(Services&&) noexcept = default;

std::unique_ptr<Repo> Repo::open(const fs::path& start) { return open(start, Services{}); }

std::unique_ptr<Repo> Repo::open(const fs::path& start, Services services) {
  std::unique_ptr<Repo> repo(new Repo());
  repo->root_ = find_root(start);
  // The checkout rule first (model/checkout.hpp): tether.toml and .tether are real, and
  // nothing tether keeps in .tether is a symlink.
  model::check_checkout(repo->root_);
  repo->config_ = model::read_repo_config({repo->root_, "tether.toml"});
  if (repo->config_.version < model::kConfigVersion)
    throw ConfigError("tether.toml is version " + std::to_string(repo->config_.version) + "; this tether reads version " +
                      std::to_string(model::kConfigVersion) +
                      " datasets (upgrade it with the Python tether-vcs: `tether upgrade`)");
  if (!repo->config_.dataset_id || !model::is_dataset_id(*repo->config_.dataset_id))
    throw ConfigError(model::missing_dataset_id_message());
  repo->dataset_id_ = *repo->config_.dataset_id;

  auto secrets = model::read_secrets(repo->tether_dir() / "secrets.toml");
  // Nothing runs yet: detect_vcs reads the repository (libgit2) and keeps git_path for later.
  repo->vcs_ = vcs::detect_vcs(repo->root_, git_executable(secrets.secrets.data()));
  // Before anything from secrets.toml is used (git_path runs, endpoints get credentials): a
  // tracked secrets.toml is the clone's, not the user's.
  refuse_tracked_checkout_files(*repo->vcs_, repo->root_, repo->vcs_path(".tether"));
  if (services.wrap_vcs) repo->vcs_ = services.wrap_vcs(std::move(repo->vcs_));
  repo->secrets_ = secrets.secrets.data();
  if (secrets.warning) repo->warnings_.push_back(*secrets.warning);
  model::ensure_ignored(repo->tether_dir(), /*only_present=*/true);
  repo->reload();

  repo->clock_ = services.clock ? std::move(services.clock) : [] { return std::chrono::system_clock::now(); };
  repo->host_ = services.host ? std::move(services.host) : std::make_unique<host::PluginHost>();
  Repo* self = repo.get();
  repo->host_->set_configurator([self](host::BackendProxy& proxy) { self->configure_backend(proxy); });
  return repo;
}

void Repo::reload() {
  manifests_ = model::load_manifests(objects_dir());
  auto claim = model::open_workspace(tether_dir() / "workspace.toml");
  workspace_ = std::make_unique<model::Workspace>(std::move(claim.workspace));
}

void Repo::write_workspace() { model::write_workspace(tether_dir() / "workspace.toml", *workspace_); }

std::optional<std::string> Repo::bookmark() const { return workspace_->bookmark; }

bool Repo::on_trunk() const { return !workspace_->bookmark || *workspace_->bookmark == config_.trunk(); }

bool Repo::on_trunk_bookmark() const { return workspace_->bookmark && *workspace_->bookmark == config_.trunk(); }

std::string Repo::vcs_path(const std::string& rel_to_root) const {
  std::string rel = vcs_->rel();
  if (rel.empty()) return rel_to_root;
  if (rel_to_root.empty()) return rel;
  return rel + "/" + rel_to_root;
}

std::vector<std::string> Repo::vcs_paths() const {
  std::vector<std::string> paths{vcs_path(".tether/objects"), vcs_path(".tether/.gitignore"), vcs_path("tether.toml")};
  // Listings only when there is one: git refuses a pathspec that matches no file.
  if (!model::list_checkout_files(tether_dir() / "listings", ".jsonl", /*recursive=*/false).empty())
    paths.push_back(vcs_path(".tether/listings"));
  return paths;
}

// ---- backends --------------------------------------------------------------------------------

host::BackendProxy& Repo::backend(const std::string& kind) {
  try {
    return host_->get(kind);
  } catch (const host::LoadError& e) {
    // An unknown kind names the kinds that are installed.
    if (e.path().empty()) {
      std::string known;
      for (const auto& info : host_->list_installed()) {
        if (info.error) continue;
        known += (known.empty() ? "" : ", ") + info.kind;
      }
      throw ConfigError("unknown backend kind: " + model::py_repr(kind) + " (installed: " +
                        (known.empty() ? "none" : known) + "); `tether backends` lists them, TETHER_PLUGIN_PATH adds a directory");
    }
    throw;
  }
}

void Repo::configure_backend(host::BackendProxy& proxy) {
  const auto& desc = proxy.description();
  const std::string& kind = proxy.kind();
  Json committed = config_.backend(kind);
  model::check_committed_backend_config(kind, committed, desc.safe_config_keys, desc.safe_option_keys);
  Json defaults = committed.is_object() ? committed : Json::object();
  if (auto it = secrets_.find("backends"); it != secrets_.end() && it->is_object() && it->contains(kind))
    for (auto& [k, v] : (*it)[kind].items()) defaults[k] = v;  // secrets win per key
  Json rules = Json::object();
  if (auto it = secrets_.find("uris"); it != secrets_.end() && it->is_object())
    for (auto& [prefix, v] : it->items())
      if (v.is_object()) rules[prefix] = v;
  // [objects."<key>"] folds in as an exact-URI rule on the object's store URI.
  if (auto it = secrets_.find("objects"); it != secrets_.end() && it->is_object())
    for (auto& [key, v] : it->items()) {
      auto m = manifests_.find(key);
      if (m == manifests_.end() || m->second.kind != kind || !v.is_object()) continue;
      for (const auto& uk : desc.uri_keys) {
        auto u = m->second.locator.find(uk);
        if (u == m->second.locator.end() || !u->is_string() || u->get<std::string>().empty()) continue;
        Json& rule = rules[u->get<std::string>()];
        if (!rule.is_object()) rule = Json::object();
        for (auto& [k, val] : v.items()) rule[k] = val;
        break;
      }
    }
  sdk::ConfigureRequest req;
  req.cache_dir = cache_dir();
  req.checkout = vcs_->root().string();
  req.defaults = std::move(defaults);
  req.rules = std::move(rules);
  proxy.configure(req);
}

// `.tether/cache`, opened once without following a symlink, handed to the (in-process)
// plugins as /proc/self/fd/<n>: that names the directory we opened, so nothing renamed or
// linked into .tether later can redirect a plugin's cache writes outside the dataset.
std::string Repo::cache_dir() {
  std::lock_guard lock(cache_mu_);
  if (!cache_fd_) cache_fd_ = model::open_checkout_dir(tether_dir() / "cache", /*create=*/true);
  const std::string pinned = "/proc/self/fd/" + std::to_string(cache_fd_.get());
  // Without /proc (an unusual container), the path just checked is the best there is.
  if (::access(pinned.c_str(), X_OK) != 0) return (tether_dir() / "cache").full().string();
  return pinned;
}

uint32_t Repo::effective_capabilities(const model::ObjectManifest& m) {
  Json policy{{"file", m.policy.file}, {"pin", m.policy.pin}};
  return backend(m.kind).effective_capabilities(m.locator, policy, m.key);
}

// ---- positions -------------------------------------------------------------------------------

std::optional<std::string> Repo::working_ref(const std::string& key) const {
  auto it = workspace_->working_refs.find(key);
  if (it == workspace_->working_refs.end()) return std::nullopt;
  return it->second;
}

// What the next commit records moves for: objects with a working ref, objects never
// committed, and objects that have no branches at all (no FORK: their live state is their
// position, so a changed directory is `modified`, not `behind`). A Forkable object without a
// working ref sits still when it is detached at `at`, and everywhere off the trunk: there
// its position is its pin until a writable open forks it. (A checkout on no bookmark, a
// fresh clone say, reads upstream as the trunk does.)
std::vector<std::string> Repo::moving_keys() {
  bool off_trunk = !on_trunk();
  std::vector<std::string> keys;
  for (const auto& [key, m] : manifests_) {
    if (!m.state || working_ref(key)) {
      keys.push_back(key);
      continue;
    }
    uint32_t caps = 0;
    try {
      caps = effective_capabilities(m);
    } catch (const std::exception&) {
      keys.push_back(key);  // fingerprinting will report the error
      continue;
    }
    bool detached = m.locator.contains("at") && m.locator["at"].is_string() && !m.locator["at"].get<std::string>().empty();
    if (!(caps & sdk::kFork) || (!detached && !off_trunk)) keys.push_back(key);
  }
  return keys;
}

// ---- reading other revisions -----------------------------------------------------------------

std::map<std::string, model::ObjectManifest> Repo::manifests_at(const std::string& rev) const {
  std::string commit = vcs_->resolve(rev);
  std::string dir = vcs_path(".tether/objects");
  auto files = vcs_->manifests_at(commit, dir);
  return parse_manifest_files(*files, commit);
}

std::optional<std::string> Repo::read_listing(const std::string& name, const std::optional<std::string>& rev) const {
  if (auto text = model::read_checkout_file(tether_dir() / "listings" / name)) return text;
  if (rev) {
    try {
      return vcs_->read_file(*rev, vcs_path(".tether/listings/" + name));
    } catch (const VcsError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// ---- op log ------------------------------------------------------------------------------------

std::filesystem::path Repo::pinned_index_path() const { return vcs_->shared_dir() / "tether-pinned.jsonl"; }

std::string Repo::now_iso() const { return model::format_iso_utc(clock_()); }

std::string Repo::now_iso_seconds() const {
  return model::format_iso_utc(std::chrono::time_point_cast<std::chrono::seconds>(clock_()));
}

OpLog Repo::op_log() const {
  return OpLog(tether_dir() / "ops.jsonl", [this] { return now_iso_seconds(); });
}

PinIndex Repo::pin_index() const {
  return PinIndex(pinned_index_path(), [this] { return now_iso_seconds(); });
}

void Repo::log_op(const std::string& command, const Json& pre, const Json& result) {
  OpLog log = op_log();
  auto id = log.begin(command, pre);
  log.end(id, result);
}

}  // namespace tether::engine
