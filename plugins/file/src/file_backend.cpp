#include "file_backend.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include <sodium.h>

#include "hashing.hpp"
#include "target.hpp"
#include "walk.hpp"

namespace tether::file {
namespace {

namespace fs = std::filesystem;
using sdk::BackendError;
using sdk::Json;

constexpr uint32_t kBaseCaps = sdk::kFingerprint | sdk::kCheapFingerprint | sdk::kDiff;

bool is_listed(const sdk::State& s) {
  std::string t = sdk::get_string(s, "type");
  return t == "dir" || t == "prefix";
}

bool has_version(const sdk::State& s) {
  auto it = s.find("version_id");
  return it != s.end() && !it->is_null() && !(it->is_string() && it->get_ref<const std::string&>().empty());
}

std::string marker_path(const std::string& dir) { return join_path(dir, kOwnerMarker); }

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string strip(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n\f\v");
  return s.substr(b, e - b + 1);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw BackendError("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

FileBackend::FileBackend(const Json&, Options options)
    : cache_(options.racy_window_ns), stores_(std::move(options.environment)) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}

sdk::Description FileBackend::describe(sdk::Call&) {
  sdk::Description d;
  d.kind = "file";
  d.maturity = "stable";
  d.capabilities = kBaseCaps | sdk::kCreate;
  d.local_path_keys = {"uri", "path"};
  d.uri_keys = {"uri", "path"};
  d.key_suffixes = std::vector<std::string>{};
  d.safe_config_keys = {"storage_options"};
  d.safe_option_keys = {{"storage_options", {"allow_http", "conditional_put", "region", "virtual_hosted_style_request"}}};
  d.thread_safe = true;
  // S3 runs its whole lifecycle against Ceph RGW in CI; Azure only against its emulator, GCS
  // and plain http(s) not against the real services.
  d.uri_schemes = {{"s3", "stable"}, {"s3a", "stable"}, {"gs", "experimental"}, {"gcs", "experimental"},
                   {"az", "experimental"}, {"azure", "experimental"}, {"abfs", "experimental"},
                   {"abfss", "experimental"}, {"http", "experimental"}, {"https", "experimental"}};
  return d;
}

void FileBackend::configure(sdk::Call&, const sdk::ConfigureRequest& r) { cache_.set_directory(r.cache_dir); }

Json FileBackend::identity(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  return Json{{"uri", t.remote ? t.raw : t.path}};
}

void FileBackend::validate_locator(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  if (t.remote) {
    parse_remote(t.raw);
    locator_region(r.locator);
  }
  refuse_at(r.locator);
}

uint32_t FileBackend::effective_capabilities(sdk::Call&, const sdk::PolicyRequest& r) {
  Target t;
  try {
    t = parse_target(r.locator);
  } catch (const sdk::Error&) {
    return kBaseCaps;
  }
  if (!t.remote) return kBaseCaps | sdk::kCreate;
  bool single = false;
  try {
    single = parse_remote(t.raw).single();
  } catch (const sdk::Error&) {
    return kBaseCaps;
  }
  // Only a single object in a versioned bucket can be read back at a recorded state.
  if (sdk::get_string(r.policy, "file", "immutable") == "versioned" && single) return kBaseCaps | sdk::kAddressable;
  return kBaseCaps;
}

std::optional<std::string> FileBackend::default_key(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = parse_target(r.locator);
  // The last segment as written (no symlink resolution): `add /data/raw/` is key `raw`.
  std::string p = t.remote ? t.path : t.file_uri ? t.path : fs::path(t.raw).lexically_normal().string();
  while (!p.empty() && p.back() == '/') p.pop_back();
  auto slash = p.find_last_of('/');
  std::string key = slash == std::string::npos ? p : p.substr(slash + 1);
  if (key.empty() || key == "." || key == "..") return std::nullopt;
  return key;
}

bool FileBackend::state_addressable(sdk::Call&, const sdk::StateRequest& r) {
  return !(sdk::get_string(r.state, "type") == "object" && !has_version(r.state));
}

sdk::State FileBackend::fingerprint(sdk::Call& c, const sdk::FingerprintRequest& r) {
  return fingerprint_locator(r.locator, &c);  // no refs: a working_ref names nothing here
}

sdk::State FileBackend::fingerprint_locator(const sdk::Locator& locator, const sdk::Call* call) {
  refuse_at(locator);
  Target t = parse_target(locator);
  if (t.remote) return fingerprint_remote(locator, parse_remote(t.raw), call);
  return fingerprint_path(t.path, call);
}

std::shared_ptr<objstore::Store> FileBackend::store_for(const sdk::Locator& locator, const RemoteTarget& target) {
  // A whole bucket written without its slash (s3://bucket) is still under [uris."s3://bucket/"].
  sdk::Locator lookup = locator;
  if (target.location.key.empty() && !target.uri.empty() && target.uri.back() != '/') lookup["uri"] = target.uri + "/";
  objstore::Options options = resolve_options(configuration().defaults, secret_rule_for(lookup), locator, target.uri);
  try {
    return stores_.get(target.location, options);
  } catch (const objstore::StoreError& e) {
    throw remote_error(e, target);
  }
}

sdk::State FileBackend::fingerprint_remote(const sdk::Locator& locator, const RemoteTarget& target,
                                           const sdk::Call* call) {
  std::shared_ptr<objstore::Store> store = store_for(locator, target);
  const std::string& key = target.location.key;
  try {
    if (target.single()) {
      std::optional<objstore::ObjectMeta> meta = store->head(key);
      if (!meta) throw BackendError("object does not exist: " + key);
      Json state{{"type", "object"}, {"size", meta->size}, {"etag", meta->etag}};
      if (meta->version_id) state["version_id"] = *meta->version_id;
      return state;
    }
    // One paged listing, no HEAD per object: the ETag stands for the content.
    objstore::ListProgress progress;
    if (call)
      progress = [call](uint64_t n) {
        if (call->cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "cancelled while listing");
        call->progress("listing", "objects", n, 0, 0);
      };
    std::vector<objstore::ObjectMeta> objects = store->list_all(key, progress);
    auto rows = std::make_shared<Rows>();
    rows->reserve(objects.size());
    int64_t total = 0;
    std::vector<std::string> no_etag;
    std::size_t no_etag_count = 0;
    for (objstore::ObjectMeta& m : objects) {
      if (m.etag.empty()) {
        if (no_etag.size() < 3) no_etag.push_back(m.key.substr(0, 200));  // the store's bytes: bounded
        ++no_etag_count;
        continue;
      }
      int64_t size = static_cast<int64_t>(std::min<uint64_t>(m.size, INT64_MAX));
      total = __builtin_add_overflow(total, size, &total) ? INT64_MAX : total;
      rows->push_back(Row{std::move(m.key), std::move(m.etag), size});
    }
    if (no_etag_count) {
      std::string sample;
      for (const std::string& k : no_etag) sample += (sample.empty() ? "" : ", ") + k;
      throw BackendError(target.uri + ": " + std::to_string(no_etag_count) + " object(s) have no ETag (" + sample +
                         (no_etag_count > no_etag.size() ? ", ..." : "") +
                         "); this store cannot be fingerprinted by listing");
    }
    sort_rows(*rows);
    std::string digest = rows_digest(*rows);
    Json state{{"type", "prefix"}, {"count", rows->size()}, {"size", total}, {"digest", digest}};
    remember(digest, std::shared_ptr<const Rows>(std::move(rows)));
    return state;
  } catch (const objstore::StoreError& e) {
    throw remote_error(e, target);
  }
}

// Reports the files read (only the misses) and stops on ^C.
HashCache::FillProgress FileBackend::hash_progress(const sdk::Call* call) {
  if (!call) return {};
  auto done = std::make_shared<std::atomic<uint64_t>>(0), bytes = std::make_shared<std::atomic<uint64_t>>(0);
  return [call, done, bytes](uint64_t files, uint64_t size) {
    if (call->cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "cancelled while hashing");
    call->progress("hashing", "files", *done += files, 1, *bytes += size);
  };
}

sdk::State FileBackend::fingerprint_path(const std::string& path, const sdk::Call* call) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw BackendError("path does not exist: " + path);
    throw BackendError("cannot read " + path + ": " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return fingerprint_dir(path, call);
  if (!S_ISREG(st.st_mode)) throw BackendError(path + " is neither a regular file nor a directory");
  std::vector<HashJob> jobs(1);
  jobs[0].path = path;
  jobs[0].stat = {static_cast<uint64_t>(st.st_size),
                  static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                  static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec,
                  static_cast<uint64_t>(st.st_ino)};
  cache_.fill(jobs, hash_progress(call));
  return Json{{"type", "file"}, {"size", jobs[0].stat.size}, {"sha256", jobs[0].sha256}};
}

sdk::State FileBackend::fingerprint_dir(const std::string& root, const sdk::Call* call) {
  // Progress: the files scanned so far, every 256; once some are read, the files read of
  // those scanned, with bytes. Reported from the walk's threads; ^C stops the walk.
  std::atomic<uint64_t> scanned{0}, hashed{0}, read_bytes{0};
  auto report = [&] {
    uint64_t h = hashed.load();
    if (h == 0 && read_bytes.load() == 0)  // nothing read yet (a big first file reports bytes first)
      call->progress("scanning", "files", scanned.load(), 0, 0);
    else
      call->progress("hashing", "files", h, scanned.load(), read_bytes.load());
  };
  HashCache::FillProgress read;
  if (call)
    read = [&](uint64_t files, uint64_t bytes) {
      if (call->cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "cancelled while hashing");
      read_bytes += bytes;
      hashed += files;
      report();
    };
  // Each directory's files are looked up, and the misses read, on the thread that scanned
  // it, as soon as it is scanned: a cold tree is read while the walk goes on.
  const std::string prefix = root.empty() || root.back() != '/' ? root + "/" : root;
  auto tree = std::make_shared<WalkTree>(walk_directory(root, [&](const std::string& rel_dir, WalkNode& node, bool alone) {
    if (call) {
      if (call->cancelled()) throw sdk::Error(TETHER_E_CANCELLED, "cancelled while scanning");
      uint64_t n = 0;
      for (const WalkChild& c : node.children) n += c.kind == WalkChild::kFile;
      uint64_t before = scanned.fetch_add(n);
      if ((before + n) / 256 != before / 256) report();
    }
    cache_.fill_dir(rel_dir.empty() ? prefix : prefix + rel_dir + "/", node, read, alone);
  }));
  if (call && hashed.load()) report();
  // Anything newly hashed is written to the cache while the digest is computed (a cold
  // 10^5-file tree: 14 MB, as long as the digest takes twice over). A failed save only
  // loses the cache.
  std::thread saver;
  if (cache_.unsaved()) {
    try {
      saver = std::thread([this] {
        try {
          cache_.save();
        } catch (...) {
        }
      });
    } catch (const std::system_error&) {
      cache_.save();  // no thread to be had: save here
    }
  }
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{saver};
  // The rows are already in (path, token) order: the walk's order, and no path repeats.
  RowsDigest digest;
  int64_t total = 0;
  char token[8 + 64];
  std::memcpy(token, "symlink:", 8);
  tree->each([&](std::string_view rel, const WalkChild& c) {
    if (c.kind == WalkChild::kFile) {
      total += static_cast<int64_t>(c.stat.size);
      hex_into(c.sha256.data(), c.sha256.size(), token + 8);
      digest.add(rel, std::string_view(token + 8, 64));
    } else {
      hex_into(c.sha256.data(), c.sha256.size(), token + 8);
      digest.add(rel, std::string_view(token, sizeof token));
    }
  });
  std::string hex = digest.hex();
  Json state{{"type", "dir"}, {"count", tree->rows()}, {"size", total}, {"digest", hex}};
  remember(hex, std::move(tree));
  return state;
}

void FileBackend::remember(const std::string& digest, Listed rows) {
  std::lock_guard lock(listings_mu_);
  for (auto it = listings_.begin(); it != listings_.end(); ++it)
    if (it->first == digest) {
      listings_.erase(it);
      break;
    }
  listings_.emplace_front(digest, std::move(rows));
  while (listings_.size() > kListingCache) listings_.pop_back();
}

FileBackend::Listed FileBackend::recall(const std::string& digest) {
  std::lock_guard lock(listings_mu_);
  for (auto it = listings_.begin(); it != listings_.end(); ++it)
    if (it->first == digest) {
      listings_.splice(listings_.begin(), listings_, it);
      return listings_.front().second;
    }
  return Listed{};
}

sdk::VerifyReport FileBackend::verify(sdk::Call& c, const sdk::VerifyRequest& r) {
  using sdk::VerifyStatus;
  const sdk::State& state = r.state;
  auto current = [&](std::string& error) -> std::optional<sdk::State> {
    try {
      return fingerprint_locator(r.locator, &c);
    } catch (const RemoteError&) {
      throw;  // the store did not answer, or refused us: that says nothing about the object
    } catch (const sdk::Error& e) {
      error = e.what();
      return std::nullopt;
    }
  };
  std::string error;
  if (sdk::get_string(state, "type") == "object" && !has_version(state) && !r.pin) {
    auto now = current(error);
    if (!now) return {VerifyStatus::Missing, error};
    if (*now == state) return {VerifyStatus::Ok, "no version id: the bucket is not versioned"};
    return {VerifyStatus::Missing,
            "the object changed and no version id was recorded, so the recorded state cannot be read back"};
  }
  if (has_version(state)) {
    if (!r.deep) return {VerifyStatus::Unknown, "pass --deep to confirm the version"};
    return verify_version(r.locator, state);
  }
  auto now = current(error);
  if (!now) return {VerifyStatus::Missing, error};
  if (*now == state) return {VerifyStatus::Ok, ""};
  return {VerifyStatus::Drifted, "content changed since commit"};
}

sdk::VerifyReport FileBackend::verify_version(const sdk::Locator& locator, const sdk::State& state) {
  using sdk::VerifyStatus;
  Target t = parse_target(locator);
  if (!t.remote) return {VerifyStatus::Unknown, t.raw + " is a local path: it has no versions to confirm"};
  const Json& v = state["version_id"];
  std::string version = v.is_string() ? v.get<std::string>() : v.dump();
  RemoteTarget target = parse_remote(t.raw);
  std::optional<objstore::ObjectMeta> meta;
  try {
    meta = store_for(locator, target)->head(target.location.key, version);
  } catch (const RemoteError& e) {
    return {VerifyStatus::Unknown, e.what()};
  } catch (const objstore::StoreError& e) {
    return {VerifyStatus::Unknown, remote_error(e, target).what()};
  }
  if (!meta) return {VerifyStatus::Missing, "version " + version + " of " + t.raw + " no longer exists"};
  auto e = state.find("etag");
  std::string recorded = e != state.end() && e->is_string() ? e->get<std::string>() : std::string();
  if (!recorded.empty() && !meta->etag.empty() && recorded != meta->etag)
    return {VerifyStatus::Drifted, "version " + version + " has etag " + meta->etag};
  return {VerifyStatus::Ok, ""};
}

Json FileBackend::open(sdk::Call&, const sdk::OpenRequest& r) {
  Target t = parse_target(r.locator);
  if (!r.read_only)
    throw sdk::Unsupported("fork", "file objects open read-only: tether never writes through a file handle (" +
                                       t.raw + ")");
  Json handle{{"address", t.raw}, {"key", t.raw}, {"uri", t.raw}, {"read_only", true}};
  if (r.target.kind == sdk::Source::Kind::State) {
    const sdk::State& s = r.target.state;
    if (has_version(s)) {
      std::string v = s["version_id"].is_string() ? s["version_id"].get<std::string>() : s["version_id"].dump();
      handle["version_id"] = v;
      handle["address"] = t.raw + "#" + v;
    } else if (sdk::get_string(s, "type") == "object") {
      throw BackendError(t.raw +
                         ": the recorded state has no version id (the bucket is not versioned), so it cannot be "
                         "opened at that state");
    }
  }
  return handle;
}

std::optional<std::string> FileBackend::listing(sdk::Call& c, const sdk::StateRequest& r) {
  if (!is_listed(r.state)) return std::nullopt;
  std::string digest = sdk::get_string(r.state, "digest");
  Listed rows = recall(digest);
  if (std::visit([](const auto& p) { return !p; }, rows)) {
    // Another process made this state, or it was evicted: walk again, and describe the
    // directory only if it still holds exactly the recorded state.
    sdk::State now = fingerprint_locator(r.locator, &c);
    if (sdk::get_string(now, "digest") != digest) return std::nullopt;
    rows = recall(digest);
    if (std::visit([](const auto& p) { return !p; }, rows)) return std::nullopt;
  }
  return std::visit([](const auto& p) { return render_listing(*p); }, rows);
}

sdk::ObjectDiff FileBackend::diff(sdk::Call&, const sdk::DiffRequest& r) {
  Target t = parse_target(r.locator);
  return diff_states(t.raw, r.a, r.b, r.listing_a, r.listing_b);
}

sdk::State FileBackend::create(sdk::Call&, const sdk::CreateRequest& r) {
  std::string path = local_target(r.locator, "create").path;
  if (r.owner.empty() || r.owner.find_first_of("\r\n") != std::string::npos)
    throw sdk::InvalidArgument("file create: the owner must be a dataset id on one line");
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) throw BackendError(path + " already exists; `create` never adopts it");
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw BackendError("cannot create " + path + ": " + ec.message());
  write_file(marker_path(path), r.owner + "\n");
  return fingerprint_path(path);
}

std::optional<std::string> FileBackend::owner(sdk::Call&, const sdk::LocatorRequest& r) {
  std::string path = local_target(r.locator, "owner").path;
  if (!is_directory(path)) return std::nullopt;
  std::ifstream f(marker_path(path), std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  std::string id = strip(text.str());
  if (id.empty()) return std::nullopt;
  return id;
}

std::optional<bool> FileBackend::only_marker_left(const std::string& path) const {
  if (!is_directory(path)) return std::nullopt;
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  if (ec) return std::nullopt;  // cannot tell: keep
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    if (it->path().filename() != kOwnerMarker) return false;
  }
  return true;
}

std::optional<bool> FileBackend::is_ref_empty(sdk::Call&, const sdk::IsRefEmptyRequest& r) {
  return only_marker_left(local_target(r.locator, "is_ref_empty").path);
}

void FileBackend::delete_store(sdk::Call&, const sdk::LocatorRequest& r) {
  std::string path = local_target(r.locator, "delete_store").path;
  if (only_marker_left(path) != std::optional<bool>(true)) throw BackendError(path + " is not empty; not removing it");
  std::string marker = marker_path(path);
  std::optional<std::string> saved;
  if (std::ifstream f{marker, std::ios::binary}) {
    std::stringstream text;
    text << f.rdbuf();
    saved = text.str();
  }
  if (saved && ::unlink(marker.c_str()) != 0 && errno != ENOENT)
    throw BackendError("cannot remove " + marker + ": " + std::strerror(errno));
  if (::rmdir(path.c_str()) != 0) {
    int err = errno;
    // Something appeared in the meantime: the store stays, and stays ours.
    if (saved) write_file(marker, *saved);
    throw BackendError("cannot remove " + path + ": " + std::strerror(err));
  }
}

}  // namespace tether::file
