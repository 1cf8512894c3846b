#include "storage.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>

#include "tether/support/objstore.hpp"

namespace fs = std::filesystem;
namespace os = tether::support::objstore;

namespace tether::icechunk {

bool is_staging_name(const std::string& name) {
  auto hash = name.rfind('#');
  if (hash == std::string::npos || hash + 1 == name.size()) return false;
  return std::all_of(name.begin() + static_cast<long>(hash) + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {

// ---- local ----------------------------------------------------------------------------------

[[noreturn]] void sys_fail(const std::string& what) { throw FormatError(what + ": " + std::strerror(errno)); }

std::mt19937_64& rng() {
  thread_local std::mt19937_64 r{std::random_device{}()};
  return r;
}

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// flock() on the repository directory, held for the whole read-check-write.
class DirLock final : public Storage::Guard {
 public:
  explicit DirLock(const std::string& root) {
    fd_ = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) sys_fail("cannot open " + root);
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        int e = errno;
        ::close(fd_);
        errno = e;
        sys_fail("cannot lock " + root);
      }
  }
  ~DirLock() override { ::close(fd_); }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

// The identity of a file version: inode, size and modification time (what Icechunk's own
// local backend uses as its ETag).
std::optional<std::string> version_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::to_string(st.st_ino) + "-" + std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// `<target>#<digits>`: the staging name Icechunk's own local backend uses and its listing skips.
std::string staging_name(const std::string& target) { return target + "#" + std::to_string(rng()() % 1'000'000'000); }

std::string write_staging(const std::string& target, const Bytes& bytes) {
  std::string tmp = staging_name(target);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) sys_fail("cannot write " + tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = e;
      sys_fail("cannot write " + tmp);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    sys_fail("cannot write " + tmp);
  }
  return tmp;
}

class LocalStorage final : public Storage {
 public:
  explicit LocalStorage(std::string root) : Storage(std::move(root)) {}

  bool is_local() const override { return true; }

  std::optional<Bytes> read(const std::string& rel) override {
    std::string p = name(rel);
    std::error_code ec;
    if (!fs::exists(p, ec)) return std::nullopt;
    return read_file(p);
  }

  std::optional<uint64_t> size(const std::string& rel) override {
    struct stat st;
    if (::stat(name(rel).c_str(), &st) != 0) return std::nullopt;
    return static_cast<uint64_t>(st.st_size);
  }

  std::vector<std::string> list(const std::string& prefix) override {
    std::vector<std::string> out;
    std::string dir = name(prefix);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::error_code ec;
    if (!fs::exists(dir, ec)) return out;
    auto opts = fs::directory_options::follow_directory_symlink | fs::directory_options::skip_permission_denied;
    fs::recursive_directory_iterator it(dir, opts, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::string leaf = it->path().filename().string();
      if (is_staging_name(leaf)) {
        it.disable_recursion_pending();
        continue;
      }
      if (it.depth() >= 8) it.disable_recursion_pending();  // refs are two levels deep
      std::error_code fe;
      if (!it->is_regular_file(fe)) continue;
      out.push_back(prefix + fs::path(it->path()).lexically_relative(dir).string());
    }
    if (ec) throw FormatError("cannot list " + dir + ": " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
  }

  bool vacant() override {
    std::error_code ec;
    return !fs::exists(root(), ec) || fs::is_empty(root(), ec);
  }

  std::optional<Versioned> read_versioned(const std::string& rel) override {
    std::string file = name(rel);
    for (int i = 0; i < 100; ++i) {
      auto before = version_of(file);
      if (!before) {
        if (errno == ENOENT) return std::nullopt;
        sys_fail("cannot read " + file);
      }
      Bytes bytes = read_file(file);
      auto after = version_of(file);
      if (after && *after == *before) return Versioned{std::move(bytes), *before};
    }
    throw FormatError(file + " keeps changing while tether reads it");
  }

  // Create-if-absent: a staging file hard-linked to the target.
  bool create(const std::string& rel, const Bytes& bytes) override {
    std::string target = name(rel);
    fs::create_directories(fs::path(target).parent_path());
    std::string tmp = write_staging(target, bytes);
    int rc = ::link(tmp.c_str(), target.c_str());
    int e = errno;
    ::unlink(tmp.c_str());
    if (rc != 0) {
      if (e == EEXIST) return false;
      errno = e;
      sys_fail("cannot create " + target);
    }
    fsync_dir(fs::path(target).parent_path().string());
    return true;
  }

  // A staging file renamed over the target (readers see the old or the new file, never a
  // part), after checking that the target is still the version read. With a backup, the
  // backup is a hard link to the version read: if the target is another file by then, start
  // over. (The check and the rename are two system calls: a foreign rename landing exactly
  // between them is the one window a local filesystem leaves open; tether's own writers hold
  // the lock.)
  bool replace(const std::string& rel, const Versioned& current, const Bytes& bytes, const std::string& backup) override {
    std::string file = name(rel);
    std::string tmp = write_staging(file, bytes);
    std::string kept;
    if (!backup.empty()) {
      kept = name(backup);
      std::string dir = fs::path(kept).parent_path().string();
      if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        ::unlink(tmp.c_str());
        sys_fail("cannot create " + dir);
      }
      if (::link(file.c_str(), kept.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        errno = e;
        sys_fail("cannot keep a copy of " + file + " in " + dir);
      }
    }
    bool same = version_of(file) == std::optional<std::string>(current.token) &&
                (kept.empty() || version_of(kept) == std::optional<std::string>(current.token));
    if (same && !kept.empty()) same = read_file(file) == current.bytes;
    if (!same) {
      if (!kept.empty()) ::unlink(kept.c_str());
      ::unlink(tmp.c_str());
      return false;
    }
    if (::rename(tmp.c_str(), file.c_str()) != 0) {
      int e = errno;
      ::unlink(tmp.c_str());
      errno = e;
      sys_fail("cannot replace " + file);
    }
    if (!kept.empty()) fsync_dir(fs::path(kept).parent_path().string());
    fsync_dir(fs::path(file).parent_path().string());
    return true;
  }

  void remove(const std::string& rel) override {
    std::string file = name(rel);
    if (::unlink(file.c_str()) != 0 && errno != ENOENT) sys_fail("cannot delete " + file);
    // Icechunk leaves a ref's empty folder behind; removing it is tidier and harmless.
    std::string dir = fs::path(file).parent_path().string();
    if (rel.rfind("refs/", 0) == 0 && dir != name("refs")) ::rmdir(dir.c_str());
    fsync_dir(fs::path(dir).parent_path().string());
  }

  std::unique_ptr<Guard> serialise() override { return std::make_unique<DirLock>(root()); }

  void prepare_new() override {
    for (const char* sub : {"", "/snapshots", "/transactions", "/manifests", "/chunks"}) fs::create_directories(root() + sub);
  }

  void remove_all() override {
    std::error_code ec;
    fs::remove_all(root(), ec);
    if (ec) throw FormatError("cannot remove " + root() + ": " + ec.message());
  }
};

// ---- object stores ---------------------------------------------------------------------------

// The cache of immutable objects is cleared whole when it would grow past this.
constexpr std::size_t kCacheBytes = std::size_t{64} << 20;
// Metadata files larger than one part (kReadPartBytes, storage.hpp) are read as parts this
// many at a time; none is read past kMaxMetadataBytes (what a store claims is not trusted).
constexpr std::size_t kReadConcurrency = 4;
constexpr uint64_t kMaxMetadataBytes = uint64_t{2} << 30;

class ObjectStorage final : public Storage {
 public:
  ObjectStorage(std::shared_ptr<os::Store> store, std::string prefix, std::string uri, uint64_t part_bytes)
      : Storage(std::move(uri)), store_(std::move(store)), prefix_(std::move(prefix)), part_(part_bytes) {}

  bool is_local() const override { return false; }

  std::optional<Bytes> read(const std::string& rel) override {
    return guard([&]() -> std::optional<Bytes> {
      auto body = store_->get(key(rel));
      if (!body) return std::nullopt;
      return Bytes(body->begin(), body->end());
    });
  }

  std::optional<Bytes> read_immutable(const std::string& rel) override {
    {
      std::lock_guard lock(mu_);
      if (auto it = cache_.find(rel); it != cache_.end()) return it->second;
    }
    auto bytes = guard([&] { return read_in_parts(rel); });
    // Spec-1 snapshot files are rewritten in place by Icechunk's expiration (it re-parents
    // them); transaction logs and spec-2 snapshots never change. Manifests are read once
    // each (by verify --deep) and not kept.
    bool fixed = rel.rfind("transactions/", 0) == 0 ||
                 (bytes && bytes->size() > kHeaderSize && (*bytes)[36] >= 2 && rel.rfind("manifests/", 0) != 0);
    if (bytes && fixed) {
      std::lock_guard lock(mu_);
      if (cached_ + bytes->size() > kCacheBytes) {
        cache_.clear();
        cached_ = 0;
      }
      if (bytes->size() <= kCacheBytes) {
        cached_ += bytes->size();
        cache_.emplace(rel, *bytes);
      }
    }
    return bytes;
  }

  std::optional<uint64_t> size(const std::string& rel) override {
    return guard([&]() -> std::optional<uint64_t> {
      auto meta = store_->head(key(rel));
      if (!meta) return std::nullopt;
      return meta->size;
    });
  }

  std::vector<std::string> list(const std::string& prefix) override {
    return guard([&] {
      std::vector<std::string> out;
      std::string base = key("");
      for (const auto& o : store_->list_all(key(prefix))) {
        if (o.key.size() <= base.size() || o.key.compare(0, base.size(), base) != 0) continue;
        std::string rel = o.key.substr(base.size());
        std::string leaf = rel.substr(rel.rfind('/') + 1);
        if (is_staging_name(leaf)) continue;
        out.push_back(std::move(rel));
      }
      std::sort(out.begin(), out.end());
      return out;
    });
  }

  bool vacant() override {
    return guard([&] { return store_->list_page(key(""), "", std::nullopt).objects.empty(); });
  }

  std::optional<Versioned> read_versioned(const std::string& rel) override {
    return guard([&]() -> std::optional<Versioned> {
      os::ObjectMeta meta;
      auto body = store_->get(key(rel), std::nullopt, std::nullopt, &meta);
      if (!body) return std::nullopt;
      if (meta.etag.empty())
        throw StorageError(name(rel) + ": the store gave no ETag, so it cannot be replaced conditionally; " +
                           "tether writes Icechunk repositories only on stores with conditional writes");
      return Versioned{Bytes(body->begin(), body->end()), meta.etag};
    });
  }

  bool create(const std::string& rel, const Bytes& bytes) override {
    return guard([&] {
      try {
        store_->put(key(rel), as_view(bytes), os::PutCondition::if_absent());
        return true;
      } catch (const os::StoreError& e) {
        if (e.kind() == os::ErrorKind::PreconditionFailed) return false;
        throw;
      }
    });
  }

  // The backup first (create-if-absent: its name is new), then the object with If-Match on
  // the ETag read. A lost race removes the backup again.
  bool replace(const std::string& rel, const Versioned& current, const Bytes& bytes, const std::string& backup) override {
    return guard([&] {
      if (!backup.empty() && !create(backup, current.bytes))
        throw StorageError(name(backup) + " already exists; not overwriting a backup");
      bool done = false;
      try {
        done = put_if_match(rel, bytes, current.token);
      } catch (...) {
        if (!backup.empty()) remove_quietly(backup);
        throw;
      }
      if (!done && !backup.empty()) remove_quietly(backup);
      return done;
    });
  }

  void remove(const std::string& rel) override {
    guard([&] {
      store_->remove(key(rel));
      return 0;
    });
  }

  std::unique_ptr<Guard> serialise() override { return nullptr; }

  uint64_t ranged_reads() const override { return ranged_reads_; }

  void remove_all() override {
    guard([&] {
      for (const auto& o : store_->list_all(key(""))) store_->remove(o.key);
      return 0;
    });
  }

 private:
  std::string key(const std::string& rel) const { return prefix_.empty() ? rel : prefix_ + "/" + rel; }

  static std::string_view as_view(const Bytes& bytes) {
    return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

  // A PUT with If-Match: false when the object moved on. A retry below us can turn our own
  // successful write into a precondition failure, so a failure whose object now holds
  // exactly our bytes counts as done: a `repo` we write carries a fresh time and backup
  // name, and a spec-1 ref already at the snapshot we move it to is where we wanted it.
  // (Never for create-if-absent: there equal bytes from someone else are still someone
  // else's ref, e.g. a deleted tag's `ref.json`.)
  bool put_if_match(const std::string& rel, const Bytes& bytes, const std::string& etag) {
    try {
      store_->put(key(rel), as_view(bytes), os::PutCondition::if_match(etag));
      return true;
    } catch (const os::StoreError& e) {
      if (e.kind() != os::ErrorKind::PreconditionFailed && e.kind() != os::ErrorKind::NotFound) throw;
    }
    auto now = store_->get(key(rel));
    return now && *now == as_view(bytes);
  }

  // A metadata file that may be large (a snapshot of many nodes, a big manifest): the first
  // part_ bytes with a ranged GET, whose Content-Range gives the object's size; when there is
  // more, the other parts as ranged GETs, kReadConcurrency at a time (the Store is safe from
  // several threads and pools its connections). A small file costs one request, as a whole
  // GET would. The parts must agree (size, ETag) and come back whole; if they do not -- the
  // object was replaced meanwhile, or the store answers oddly -- the object is read again
  // whole, once, and that read is the answer.
  std::optional<Bytes> read_in_parts(const std::string& rel) {
    const std::string k = key(rel);
    os::ObjectMeta first;
    ++ranged_reads_;
    auto head = store_->get(k, os::Range{0, part_}, std::nullopt, &first);
    if (!head) return std::nullopt;
    const uint64_t total = first.size;
    // Less than a part is the whole object; more is a store that ignored the range and sent
    // it all.
    if (head->size() != part_ || total <= part_) return Bytes(head->begin(), head->end());
    if (total > kMaxMetadataBytes)
      throw StorageError(name(rel) + ": the store says it holds " + std::to_string(total) +
                         " bytes, more than a metadata file tether reads (" + std::to_string(kMaxMetadataBytes) + ")");
    const uint64_t parts = (total + part_ - 1) / part_;
    std::vector<std::string> bodies(static_cast<std::size_t>(parts));
    bodies[0] = std::move(*head);
    std::atomic<uint64_t> next{1};
    std::atomic<bool> odd{false};
    std::vector<std::exception_ptr> failures(kReadConcurrency);
    auto work = [&](std::size_t worker) {
      try {
        while (!odd) {
          const uint64_t i = next++;
          if (i >= parts) break;
          uint64_t offset = i * part_, length = std::min(part_, total - offset);
          os::ObjectMeta meta;
          ++ranged_reads_;
          auto body = store_->get(k, os::Range{offset, length}, std::nullopt, &meta);
          if (!body || body->size() != length || meta.size != total || meta.etag != first.etag) {
            odd = true;
            return;
          }
          bodies[static_cast<std::size_t>(i)] = std::move(*body);
        }
      } catch (...) {
        failures[worker] = std::current_exception();
        odd = true;
      }
    };
    std::vector<std::thread> threads;
    const std::size_t helpers = static_cast<std::size_t>(std::min<uint64_t>(kReadConcurrency, parts - 1));
    try {
      for (std::size_t w = 1; w < helpers; ++w) threads.emplace_back(work, w);
    } catch (const std::system_error&) {
      // No thread to be had: the threads started and this one do the work.
    }
    work(0);
    for (auto& t : threads) t.join();
    for (auto& f : failures)
      if (f) std::rethrow_exception(f);
    if (odd) return read_whole(rel);
    Bytes out;
    out.reserve(static_cast<std::size_t>(total));
    for (const auto& b : bodies) out.insert(out.end(), b.begin(), b.end());
    return out;
  }

  // One whole GET, after a read in parts went wrong: its answer must be as long as it says.
  std::optional<Bytes> read_whole(const std::string& rel) {
    os::ObjectMeta meta;
    auto body = store_->get(key(rel), std::nullopt, std::nullopt, &meta);
    if (!body) return std::nullopt;
    if (body->size() != meta.size)
      throw StorageError(name(rel) + ": changed while tether read it (its parts disagreed, then a whole read gave " +
                         std::to_string(body->size()) + " of " + std::to_string(meta.size) +
                         " bytes); try again once nothing is rewriting it");
    return Bytes(body->begin(), body->end());
  }

  void remove_quietly(const std::string& rel) {
    try {
      store_->remove(key(rel));
    } catch (const os::StoreError&) {
    }
  }

  template <class Fn>
  auto guard(Fn&& fn) -> decltype(fn()) {
    try {
      return fn();
    } catch (const os::StoreError& e) {
      // The repository is named even when the failing request was not about one of its keys.
      std::string what = os::explain(e, root());
      if (what.find(root() + "/") == std::string::npos) what = root() + ": " + what;
      if (e.kind() == os::ErrorKind::Unsupported) what += "; tether writes Icechunk repositories only with the store's conditional writes";
      throw StorageError(what);
    }
  }

  std::shared_ptr<os::Store> store_;
  std::string prefix_;
  uint64_t part_ = kReadPartBytes;
  std::atomic<uint64_t> ranged_reads_{0};
  std::mutex mu_;
  std::map<std::string, Bytes> cache_;
  std::size_t cached_ = 0;
};

}  // namespace

std::shared_ptr<Storage> local_storage(const std::string& root) {
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return std::make_shared<LocalStorage>(std::move(r));
}

std::shared_ptr<Storage> object_storage(std::shared_ptr<os::Store> store, const std::string& prefix, const std::string& uri,
                                        uint64_t read_part_bytes) {
  std::string p = prefix;
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (read_part_bytes == 0) read_part_bytes = kReadPartBytes;
  return std::make_shared<ObjectStorage>(std::move(store), std::move(p), uri, read_part_bytes);
}

}  // namespace tether::icechunk
