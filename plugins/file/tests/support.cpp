#include "support.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include <doctest/doctest.h>

namespace tether::file::test {
namespace {

struct TestCall {
  tether_call base;
  Result* result;
};

Result& result_of(tether_call* c) { return *reinterpret_cast<TestCall*>(c)->result; }

void on_reply(tether_call* c, const char* json, size_t len) {
  Result& r = result_of(c);
  ++r.replies;
  r.reply = Json::parse(json, json + len);
}
int on_emit(tether_call*, const char*, size_t) { return 0; }
void on_fail(tether_call* c, tether_status status, const char* message, const char* details) {
  Result& r = result_of(c);
  ++r.fails;
  r.status = status;
  r.message = message ? message : "";
  r.details = details ? Json::parse(details) : Json(nullptr);
}
void on_log(tether_call*, int, const char*) {}
int on_cancelled(tether_call*) { return 0; }
std::mutex g_progress_mu;  // the hashing threads report at once
void on_progress(tether_call* c, uint64_t done, uint64_t) {
  std::lock_guard lock(g_progress_mu);
  Result& r = result_of(c);
  ++r.progress_calls;
  r.last_progress = done;
}
void on_progress_step(tether_call* c, const char* step, const char* unit, uint64_t done, uint64_t total,
                      uint64_t bytes) {
  std::lock_guard lock(g_progress_mu);
  Result& r = result_of(c);
  ++r.progress_calls;
  r.last_progress = done;
  r.steps.push_back({step ? step : "", unit ? unit : "", done, total, bytes});
}

const tether_host kHost = {sizeof(tether_host), TETHER_ABI_MAJOR, TETHER_ABI_MINOR, &on_reply, &on_emit,
                           &on_fail,           &on_log,          &on_cancelled,    &on_progress, &on_progress_step};

}  // namespace

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "tether-file-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  // Resolved, so paths the backend reports compare equal to ours.
  path = fs::canonical(tmpl);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void write_file(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void set_mtime(const fs::path& p, int64_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = seconds;
  times[0].tv_nsec = 0;
  times[1] = times[0];
  if (::utimensat(AT_FDCWD, p.c_str(), times, 0) != 0) throw std::runtime_error("utimensat failed");
}

Driver::Driver(FileBackend& backend) : instance_{&backend} {}

Result Driver::call_raw(tether_op tether_backend_vtable::*slot, const std::string& request) {
  const tether_backend_vtable* table = sdk::Backend<FileBackend>::vtable();
  tether_op op = table->*slot;
  REQUIRE(static_cast<bool>(op));
  Result result;
  TestCall call{{&kHost}, &result};
  // The ABI promises NUL termination and padding after the request.
  std::string padded = request;
  padded.append(TETHER_REQUEST_PADDING, '\0');
  result.status = op(reinterpret_cast<tether_backend*>(&instance_), &call.base, padded.data(), request.size());
  return result;
}

Result Driver::call(tether_op tether_backend_vtable::*slot, const Json& request) {
  return call_raw(slot, request.dump());
}

Json Driver::ok(tether_op tether_backend_vtable::*slot, const Json& request) {
  Result r = call(slot, request);
  INFO("request: ", request.dump(), " failed: ", r.message);
  REQUIRE(r.status == TETHER_OK);
  REQUIRE(r.fails == 0);
  REQUIRE(r.replies == 1);
  return r.reply;
}

Json Driver::state(const std::string& uri) {
  return ok(&tether_backend_vtable::fingerprint, Json{{"locator", {{"uri", uri}}}, {"working_ref", nullptr}})["state"];
}

}  // namespace tether::file::test
