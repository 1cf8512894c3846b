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

static std::string cache_dir(Context& cx);
static void configure_backend(Context& cx, host::BackendProxy& proxy);
static std::filesystem::path pinned_index_path(const Context& cx);

// ---- locks -----------------------------------------------------------------------------------

Lock::~Lock() {
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

std::unique_ptr<Lock> lock_checkout(Context& cx) {
  if (cx.checkout_locked) return std::make_unique<Lock>();
  const auto at = tether_dir(cx) / "lock";
  const fs::path path = at.full();
  auto lock = std::make_unique<Lock>();
  // A committed `.tether/lock` symlink must never be truncated through: refused here.
  model::Fd fd = model::open_checkout_file(at, O_RDWR | O_CREAT, 0600);
  if (!fd) throw TetherError("cannot open lock file " + path.string());
  lock->fd = take_lock(fd.release(), path, std::chrono::seconds(30),
                       "another tether command is writing in this checkout (" + path.string() +
                           " is locked{holder}); wait for it to finish");
  cx.checkout_locked = true;
  lock->held = &cx.checkout_locked;
  // What we read before the lock may be stale now.
  reload(cx);
  return lock;
}

std::unique_ptr<Lock> lock_repository(Context& cx) {
  if (cx.repository_locked) return std::make_unique<Lock>();
  auto path = cx.vcs->shared_dir() / "tether.lock";
  auto lock = std::make_unique<Lock>();
  fs::create_directories(path.parent_path());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw TetherError("cannot open lock file " + path.string() + ": " + std::strerror(errno));
  lock->fd = take_lock(fd, path, std::chrono::seconds(60),
                       "another tether command is committing or collecting in a checkout of this repository (" +
                           path.string() + " is locked{holder}); wait for it to finish");
  cx.repository_locked = true;
  lock->held = &cx.repository_locked;
  return lock;
}

// ---- opening -------------------------------------------------------------------------------

Repo::~Repo() = default;
Context::Context() = default;
Context::~Context() = default;

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
  auto repo = std::make_unique<Context>();
  Context& cx = *repo;
  cx.root = find_root(start);
  // The checkout rule first (model/checkout.hpp): tether.toml and .tether are real, and
  // nothing tether keeps in .tether is a symlink.
  model::check_checkout(cx.root);
  cx.config = model::read_repo_config({cx.root, "tether.toml"});
  if (cx.config.version < model::kConfigVersion && !services.allow_outdated)
    throw ConfigError(outdated_message(cx.config.version));
  if (cx.config.dataset_id && model::is_dataset_id(*cx.config.dataset_id)) cx.dataset_id = *cx.config.dataset_id;
  else if (!services.allow_outdated || cx.config.version >= 2) throw ConfigError(model::missing_dataset_id_message());

  auto secrets = model::read_secrets(tether_dir(cx) / "secrets.toml");
  // Nothing runs yet: detect_vcs reads the repository (libgit2) and keeps git_path for later.
  cx.vcs = vcs::detect_vcs(cx.root, git_executable(secrets.secrets.data()));
  // Before anything from secrets.toml is used (git_path runs, endpoints get credentials): a
  // tracked secrets.toml is the clone's, not the user's.
  refuse_tracked_checkout_files(*cx.vcs, cx.root, vcs_path(cx, ".tether"), /*remember=*/true);
  if (services.wrap_vcs) cx.vcs = services.wrap_vcs(std::move(cx.vcs));
  cx.secrets = secrets.secrets.data();
  if (secrets.warning) cx.warnings.push_back(*secrets.warning);
  model::ensure_ignored(tether_dir(cx), /*only_present=*/true);
  reload(cx);

  cx.clock = services.clock ? std::move(services.clock) : [] { return std::chrono::system_clock::now(); };
  cx.host = services.host ? std::move(services.host) : std::make_unique<host::PluginHost>();
  cx.host->set_configurator([&cx](host::BackendProxy& proxy) { configure_backend(cx, proxy); });
  return repo;
}

void reload(Context& cx) {
  cx.manifests = model::load_manifests(objects_dir(cx), /*legacy_layout=*/cx.config.version < 4);
  auto claim = model::open_workspace(tether_dir(cx) / "workspace.toml");
  cx.workspace = std::make_unique<model::Workspace>(std::move(claim.workspace));
}

void write_workspace(Context& cx) { model::write_workspace(tether_dir(cx) / "workspace.toml", *cx.workspace); }

// ---- what a Repo shows (all of it is the Context's data) -----------------------------------

const fs::path& Repo::root() const { return Context::of(*this).root; }
const model::RepoConfig& Repo::config() const { return Context::of(*this).config; }
const std::string& Repo::dataset_id() const { return Context::of(*this).dataset_id; }
const std::map<std::string, model::ObjectManifest>& Repo::manifests() const { return Context::of(*this).manifests; }
const model::Workspace& Repo::workspace() const { return *Context::of(*this).workspace; }
std::optional<std::string> Repo::bookmark() const { return Context::of(*this).workspace->bookmark; }
const std::vector<std::string>& Repo::warnings() const { return Context::of(*this).warnings; }
void Repo::on_warning(WarningFn sink) { Context::of(*this).warning_sink = std::move(sink); }

bool on_trunk(const Context& cx) { return !cx.workspace->bookmark || *cx.workspace->bookmark == cx.config.trunk(); }

bool on_trunk_bookmark(const Context& cx) { return cx.workspace->bookmark && *cx.workspace->bookmark == cx.config.trunk(); }

std::string vcs_path(const Context& cx, const std::string& rel_to_root) {
  std::string rel = cx.vcs->rel();
  if (rel.empty()) return rel_to_root;
  if (rel_to_root.empty()) return rel;
  return rel + "/" + rel_to_root;
}

std::vector<std::string> vcs_paths(const Context& cx) {
  std::vector<std::string> paths{vcs_path(cx, ".tether/objects"), vcs_path(cx, ".tether/.gitignore"), vcs_path(cx, "tether.toml")};
  // Listings only when there is one: git refuses a pathspec that matches no file.
  if (!model::list_checkout_files(tether_dir(cx) / "listings", ".jsonl", /*recursive=*/false).empty())
    paths.push_back(vcs_path(cx, ".tether/listings"));
  return paths;
}

// ---- memory left to the exit ---------------------------------------------------------------

void keep_until_exit(std::shared_ptr<const void> memory) {
  // Never destroyed on purpose: the static pointer keeps all of it reachable until exit.
  static auto* kept = new std::vector<std::shared_ptr<const void>>();
  static std::mutex mu;
  std::lock_guard lock(mu);
  kept->push_back(std::move(memory));
}

// The adapter holds only memory and read handles (its writes run `git` to completion), so
// nothing is lost by not destroying it; its caches after a history walk are the bulk of what
// the exit would otherwise free entry by entry.
void Repo::leave_vcs_to_exit() {
  Context& cx = Context::of(*this);
  if (cx.vcs) keep_until_exit(std::shared_ptr<const vcs::VcsAdapter>(std::move(cx.vcs)));
}

// ---- backends --------------------------------------------------------------------------------

host::BackendProxy& Repo::backend(const std::string& kind) {
  Context& cx = Context::of(*this);
  try {
    return cx.host->get(kind);
  } catch (const host::LoadError& e) {
    // An unknown kind names the kinds that are installed.
    if (e.path().empty()) {
      std::string known;
      for (const auto& info : cx.host->list_installed()) {
        if (info.error) continue;
        known += (known.empty() ? "" : ", ") + info.kind;
      }
      throw ConfigError("unknown backend kind: " + model::py_repr(kind) + " (installed: " +
                        (known.empty() ? "none" : known) + "); `tether backends` lists them, TETHER_PLUGIN_PATH adds a directory");
    }
    throw;
  }
}

static void configure_backend(Context& cx, host::BackendProxy& proxy) {
  const auto& desc = proxy.description();
  const std::string& kind = proxy.kind();
  Json committed = cx.config.backend(kind);
  model::check_committed_backend_config(kind, committed, desc.safe_config_keys, desc.safe_option_keys);
  Json defaults = committed.is_object() ? committed : Json::object();
  if (auto it = cx.secrets.find("backends"); it != cx.secrets.end() && it->is_object() && it->contains(kind))
    for (auto& [k, v] : (*it)[kind].items()) defaults[k] = v;  // secrets win per key
  Json rules = Json::object();
  if (auto it = cx.secrets.find("uris"); it != cx.secrets.end() && it->is_object())
    for (auto& [prefix, v] : it->items())
      if (v.is_object()) rules[prefix] = v;
  // [objects."<key>"] folds in as an exact-URI rule on the object's store URI.
  if (auto it = cx.secrets.find("objects"); it != cx.secrets.end() && it->is_object())
    for (auto& [key, v] : it->items()) {
      auto m = cx.manifests.find(key);
      if (m == cx.manifests.end() || m->second.kind != kind || !v.is_object()) continue;
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
  req.cache_dir = cache_dir(cx);
  req.checkout = cx.vcs->root().string();
  req.defaults = std::move(defaults);
  req.rules = std::move(rules);
  proxy.configure(req);
}

// `.tether/cache`, opened once without following a symlink, handed to the (in-process)
// plugins as /proc/self/fd/<n>: that names the directory we opened, so nothing renamed or
// linked into .tether later can redirect a plugin's cache writes outside the dataset.
static std::string cache_dir(Context& cx) {
  std::lock_guard lock(cx.cache_mu);
  if (!cx.cache_fd) cx.cache_fd = model::open_checkout_dir(tether_dir(cx) / "cache", /*create=*/true);
  const std::string pinned = "/proc/self/fd/" + std::to_string(cx.cache_fd.get());
  // Without /proc (an unusual container), the path just checked is the best there is.
  if (::access(pinned.c_str(), X_OK) != 0) return (tether_dir(cx) / "cache").full().string();
  return pinned;
}

uint32_t Repo::effective_capabilities(const model::ObjectManifest& m) {
  Context& cx = Context::of(*this);
  Json policy{{"file", m.policy.file}, {"pin", m.policy.pin}};
  return cx.backend(m.kind).effective_capabilities(m.locator, policy, m.key);
}

// ---- positions -------------------------------------------------------------------------------

std::optional<std::string> working_ref(const Context& cx, const std::string& key) {
  auto it = cx.workspace->working_refs.find(key);
  if (it == cx.workspace->working_refs.end()) return std::nullopt;
  return it->second;
}

// What the next commit records moves for: objects with a working ref, objects never
// committed, and objects that have no branches at all (no FORK: their live state is their
// position, so a changed directory is `modified`, not `behind`). A Forkable object without a
// working ref sits still when it is detached at `at`, and everywhere off the trunk: there
// its position is its pin until a writable open forks it. (A checkout on no bookmark, a
// fresh clone say, reads upstream as the trunk does.)
std::vector<std::string> moving_keys(Context& cx) {
  bool off_trunk = !on_trunk(cx);
  std::vector<std::string> keys;
  for (const auto& [key, m] : cx.manifests) {
    if (!m.state || working_ref(cx, key)) {
      keys.push_back(key);
      continue;
    }
    uint32_t caps = 0;
    try {
      caps = cx.effective_capabilities(m);
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

std::map<std::string, model::ObjectManifest> manifests_at(const Context& cx, const std::string& rev) {
  std::string commit = cx.vcs->resolve(rev);
  std::string dir = vcs_path(cx, ".tether/objects");
  auto files = cx.vcs->manifests_at(commit, dir);
  return parse_manifest_files(*files, commit);
}

std::optional<std::string> read_listing(const Context& cx, const std::string& name, const std::optional<std::string>& rev) {
  if (auto text = model::read_checkout_file(tether_dir(cx) / "listings" / name)) return text;
  if (rev) {
    try {
      return cx.vcs->read_file(*rev, vcs_path(cx, ".tether/listings/" + name));
    } catch (const VcsError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// ---- op log ------------------------------------------------------------------------------------

static std::filesystem::path pinned_index_path(const Context& cx) { return cx.vcs->shared_dir() / "tether-pinned.jsonl"; }

std::string now_iso(const Context& cx) { return model::format_iso_utc(cx.clock()); }

std::string now_iso_seconds(const Context& cx) {
  return model::format_iso_utc(std::chrono::time_point_cast<std::chrono::seconds>(cx.clock()));
}

OpLog op_log(const Context& cx) {
  return OpLog(tether_dir(cx) / "ops.jsonl", [&cx] { return now_iso_seconds(cx); });
}

PinIndex pin_index(const Context& cx) {
  return PinIndex(pinned_index_path(cx), [&cx] { return now_iso_seconds(cx); });
}

StoreIndex created_index(const Context& cx) {
  return StoreIndex(cx.vcs->shared_dir() / "tether-created.jsonl", [&cx] { return now_iso_seconds(cx); });
}

StoreIndex touched_index(const Context& cx) {
  return StoreIndex(cx.vcs->shared_dir() / "tether-touched.jsonl", [&cx] { return now_iso_seconds(cx); });
}

void log_op(Context& cx, const std::string& command, const Json& pre, const Json& result) {
  OpLog log = op_log(cx);
  auto id = log.begin(command, pre);
  log.end(id, result);
}

}  // namespace tether::engine
