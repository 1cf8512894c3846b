// Test support: temporary directories, small file helpers, and a Driver that calls the
// backend through its C vtable with an in-test host (so the SDK trampolines, the JSON
// requests and replies, and the error statuses are what the tests see).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "file_backend.hpp"

namespace tether::file::test {

namespace fs = std::filesystem;
using sdk::Json;

struct TempDir {
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  fs::path path;
};

void write_file(const fs::path& p, const std::string& content);
std::string read_file(const fs::path& p);
// Sets a file's mtime to `seconds` after the epoch (ctime moves to now, as it always does).
void set_mtime(const fs::path& p, int64_t seconds);

struct Result {
  tether_status status = TETHER_OK;
  Json reply;            // the reply object (null when none)
  std::string message;   // fail() message
  Json details;
  int replies = 0;
  int fails = 0;
  int progress_calls = 0;     // host->progress() or progress_step() during the call
  uint64_t last_progress = 0; // the last `done`
  struct Step {
    std::string step, unit;
    uint64_t done, total, bytes;
  };
  std::vector<Step> steps;  // progress_step() calls, in order
};

class Driver {
 public:
  explicit Driver(FileBackend& backend);
  // Calls one slot with `request` serialised as JSON.
  Result call(tether_op tether_backend_vtable::*slot, const Json& request);
  Result call_raw(tether_op tether_backend_vtable::*slot, const std::string& request);
  // Calls, requires TETHER_OK with exactly one reply, and returns the reply.
  Json ok(tether_op tether_backend_vtable::*slot, const Json& request);
  Json state(const std::string& uri);  // fingerprint {"uri": uri}

 private:
  sdk::Instance instance_;
};

}  // namespace tether::file::test
