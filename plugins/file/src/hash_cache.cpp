#include "hash_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <thread>

#include <simdjson.h>

#include "hashing.hpp"
#include "tether/sdk/json_limits.hpp"
#include "tether/support/json_escape.hpp"

namespace tether::file {
namespace {

constexpr unsigned kMaxHashThreads = 8;

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

template <class T>
void append_int(std::string& out, T v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

}  // namespace

void HashCache::set_directory(const std::string& dir) {
  std::lock_guard lock(mu_);
  if (dir == dir_) return;
  dir_ = dir;
  loaded_ = false;
  dirty_ = false;
  entries_.clear();
}

// A corrupt or unreadable cache counts as empty; malformed entries are dropped one by one.
void HashCache::load_locked() {
  loaded_ = true;
  if (dir_.empty()) return;
  std::string path = join_path(dir_, kCacheFileName);
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text)) return;
  // simdjson keeps its own depth limit (1024 by default); the SDK's is the one tether uses.
  simdjson::dom::parser parser;
  if (parser.allocate(text.size(), sdk::kMaxJsonNesting)) return;
  simdjson::dom::object obj;
  if (parser.parse(text).get_object().get(obj)) return;
  entries_.reserve(obj.size());
  for (auto field : obj) {
    simdjson::dom::array arr;
    if (field.value.get_array().get(arr) || arr.size() != 6) continue;
    Entry e;
    std::string_view sha;
    if (arr.at(0).get_uint64().get(e.stat.size) || arr.at(1).get_int64().get(e.stat.mtime_ns) ||
        arr.at(2).get_int64().get(e.stat.ctime_ns) || arr.at(3).get_uint64().get(e.stat.inode) ||
        arr.at(4).get_string().get(sha) || arr.at(5).get_int64().get(e.hashed_at_ns))
      continue;
    e.sha256 = std::string(sha);
    entries_.insert_or_assign(std::string(field.key), std::move(e));
  }
}

std::string HashCache::serialize_locked() const {
  std::string out;
  out.reserve(entries_.size() * 200 + 2);
  out += '{';
  bool first = true;
  for (const auto& [path, e] : entries_) {
    if (!first) out += ',';
    first = false;
    support::append_json_string(out, path, support::JsonEscape::python_ascii);
    out += ":[";
    append_int(out, e.stat.size);
    out += ',';
    append_int(out, e.stat.mtime_ns);
    out += ',';
    append_int(out, e.stat.ctime_ns);
    out += ',';
    append_int(out, e.stat.inode);
    out += ",\"";
    out += e.sha256;  // hex, nothing to escape
    out += "\",";
    append_int(out, e.hashed_at_ns);
    out += ']';
  }
  out += '}';
  return out;
}

// Atomic replace: write a temporary file in the same directory, then rename it over the
// target. A failed write only loses the cache, so it is not an error of the fingerprint.
void HashCache::save() {
  std::lock_guard save_lock(save_mu_);
  std::string text, dir;
  {
    std::lock_guard lock(mu_);
    if (!dirty_ || dir_.empty()) return;
    text = serialize_locked();
    dirty_ = false;
    dir = dir_;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string target = join_path(dir, kCacheFileName);
  std::string tmp = join_path(dir, ".file-hashes.json." + std::to_string(::getpid()) + ".tmp");
  bool ok = false;
  if (std::FILE* f = std::fopen(tmp.c_str(), "wb")) {
    ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = (std::fclose(f) == 0) && ok;
  }
  if (ok) ok = std::rename(tmp.c_str(), target.c_str()) == 0;
  if (!ok) {
    std::remove(tmp.c_str());
    std::lock_guard lock(mu_);
    dirty_ = true;  // try again after the next fingerprint
  }
}

void HashCache::fill(std::vector<HashJob>& jobs) {
  std::vector<std::size_t> misses;
  {
    std::lock_guard lock(mu_);
    if (!loaded_) load_locked();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      auto it = entries_.find(jobs[i].path);
      if (it != entries_.end()) {
        const Entry& e = it->second;
        bool racy = e.hashed_at_ns - std::max(e.stat.mtime_ns, e.stat.ctime_ns) < racy_window_ns_;
        if (e.stat == jobs[i].stat && !racy) {
          jobs[i].sha256 = e.sha256;
          continue;
        }
      }
      misses.push_back(i);
    }
  }
  if (misses.empty()) return;

  // The time is taken before each read: a write during the read then makes the entry racy.
  std::vector<int64_t> hashed_at(misses.size());
  auto hash_one = [&](FileHasher& hasher, std::size_t m) {
    hashed_at[m] = wall_ns();
    jobs[misses[m]].sha256 = hasher.hash_file(jobs[misses[m]].path);
  };
  if (misses.size() == 1) {
    FileHasher hasher;
    hash_one(hasher, 0);
  } else {
    unsigned n = static_cast<unsigned>(std::min<std::size_t>(kMaxHashThreads, misses.size()));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mu;
    std::vector<std::thread> workers;
    workers.reserve(n);
    for (unsigned t = 0; t < n; ++t) {
      workers.emplace_back([&] {
        try {
          FileHasher hasher;
          for (std::size_t m; !failed.load() && (m = next.fetch_add(1)) < misses.size();) hash_one(hasher, m);
        } catch (...) {
          std::lock_guard lock(error_mu);
          if (!error) error = std::current_exception();
          failed = true;
        }
      });
    }
    for (auto& w : workers) w.join();
    if (error) std::rethrow_exception(error);
  }
  files_hashed_ += misses.size();
  {
    std::lock_guard lock(mu_);
    for (std::size_t m = 0; m < misses.size(); ++m) {
      const HashJob& job = jobs[misses[m]];
      entries_.insert_or_assign(job.path, Entry{job.stat, job.sha256, hashed_at[m]});
    }
    dirty_ = true;
  }
  save();
}

}  // namespace tether::file
