// The built .so files as a host sees them: dlopen, the one entry symbol, a call through the
// table; the harness makes objects the plugin can fingerprint and mutates them.
#include <dlfcn.h>

#include <cstdlib>

#include <doctest/doctest.h>

#include "support.hpp"
#include "tether/harness.h"

namespace tether::file::test {
namespace {

struct Library {
  explicit Library(const char* env) {
    const char* path = std::getenv(env);
    INFO(std::string(env), " is not set (run through meson test)");
    REQUIRE(path != nullptr);
    handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    REQUIRE_MESSAGE(handle != nullptr, ::dlerror());
  }
  ~Library() {
    if (handle) ::dlclose(handle);
  }
  void* handle = nullptr;
};

struct Captured {
  tether_call base;
  std::string reply;
  tether_status failed = TETHER_OK;
};
void reply(tether_call* c, const char* json, size_t len) { reinterpret_cast<Captured*>(c)->reply.assign(json, len); }
int emit(tether_call*, const char*, size_t) { return 0; }
void fail(tether_call* c, tether_status s, const char*, const char*) { reinterpret_cast<Captured*>(c)->failed = s; }
void log(tether_call*, int, const char*) {}
int cancelled(tether_call*) { return 0; }
void progress(tether_call*, uint64_t, uint64_t) {}
// A host without progress_step (NULL slot): the SDK falls back to progress().
const tether_host kHost = {sizeof(tether_host), TETHER_ABI_MAJOR, TETHER_ABI_MINOR, &reply, &emit, &fail, &log,
                           &cancelled, &progress, nullptr};

Json run(const tether_plugin_entry* entry, tether_backend* self, tether_op tether_backend_vtable::*slot,
         const Json& request, tether_status* status = nullptr) {
  Captured call{{&kHost}, {}, TETHER_OK};
  std::string text = request.dump();
  text.append(TETHER_REQUEST_PADDING, '\0');
  tether_status s = (entry->vtable->*slot)(self, &call.base, text.data(), request.dump().size());
  if (status) *status = s;
  else REQUIRE(s == TETHER_OK);
  return call.reply.empty() ? Json(nullptr) : Json::parse(call.reply);
}

}  // namespace

TEST_CASE("the plugin loads, exports its entry and answers through it") {
  Library lib("TETHER_FILE_PLUGIN");
  auto* entry = static_cast<const tether_plugin_entry*>(::dlsym(lib.handle, "tether_entry"));
  REQUIRE(entry != nullptr);
  CHECK(entry->magic == TETHER_PLUGIN_MAGIC);
  CHECK(entry->abi_major == TETHER_ABI_MAJOR);
  CHECK(entry->abi_minor == TETHER_ABI_MINOR);
  CHECK(std::string(entry->kind) == "file");
  REQUIRE(entry->init(&kHost) == TETHER_OK);
  Captured create_call{{&kHost}, {}, TETHER_OK};
  tether_backend* self = nullptr;
  REQUIRE(entry->create(&create_call.base, "{}", 2, &self) == TETHER_OK);
  CHECK(run(entry, self, &tether_backend_vtable::describe, Json::object())["kind"] == "file");

  TempDir tmp;
  write_file(tmp.path / "x", "hello\n");
  Json state = run(entry, self, &tether_backend_vtable::fingerprint, Json{{"locator", {{"uri", (tmp.path / "x").string()}}}});
  CHECK(state["state"]["sha256"] == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  tether_status s = TETHER_OK;
  run(entry, self, &tether_backend_vtable::fingerprint, Json{{"locator", {{"uri", "ftp://b/k"}}}}, &s);
  CHECK(s == TETHER_E_BACKEND);
  // The SDK's trampoline parses requests within the limits: 200,000 levels deep is refused as
  // INVALID_ARGUMENT (no stack overflow in the plugin); 159 levels (within 160) still work.
  for (std::size_t depth : {std::size_t{200000}, std::size_t{158}}) {
    std::string deep = "{\"locator\": {\"uri\": \"" + (tmp.path / "x").string() + "\"}, \"pad\": " +
                       std::string(depth, '[') + std::string(depth, ']') + "}";
    const std::size_t len = deep.size();
    deep.append(TETHER_REQUEST_PADDING, '\0');
    Captured call{{&kHost}, {}, TETHER_OK};
    const tether_status st = entry->vtable->fingerprint(self, &call.base, deep.data(), len);
    CHECK(st == (depth == 158 ? TETHER_OK : TETHER_E_INVALID_ARGUMENT));
  }
  entry->destroy(self);
  entry->deinit();
}

TEST_CASE("the harness makes objects, mutates them, and names fresh locators") {
  Library plugin("TETHER_FILE_PLUGIN");
  Library lib("TETHER_FILE_HARNESS");
  auto* h = static_cast<const tether_harness_entry*>(::dlsym(lib.handle, "tether_harness"));
  REQUIRE(h != nullptr);
  CHECK(h->magic == TETHER_HARNESS_MAGIC);
  CHECK(std::string(h->kind) == "file");
  REQUIRE(static_cast<bool>(h->fresh_locator));
  auto* entry = static_cast<const tether_plugin_entry*>(::dlsym(plugin.handle, "tether_entry"));
  REQUIRE(entry != nullptr);
  Captured create_call{{&kHost}, {}, TETHER_OK};
  tether_backend* self = nullptr;
  REQUIRE(entry->create(&create_call.base, "{}", 2, &self) == TETHER_OK);

  TempDir tmp;
  char out[4096], err[512];
  REQUIRE(h->new_object(tmp.path.c_str(), out, sizeof out, err, sizeof err) == 0);
  Json locator = Json::parse(out);
  auto fp = [&] { return run(entry, self, &tether_backend_vtable::fingerprint, Json{{"locator", locator}})["state"]; };
  Json s1 = fp();
  CHECK(s1["type"] == "dir");
  CHECK(s1 == fp());
  REQUIRE(h->mutate(tmp.path.c_str(), locator.dump().c_str(), nullptr, err, sizeof err) == 0);
  Json s2 = fp();
  CHECK(s2 != s1);
  REQUIRE(h->mutate(tmp.path.c_str(), locator.dump().c_str(), nullptr, err, sizeof err) == 0);
  CHECK(fp() != s2);
  CHECK(h->mutate(tmp.path.c_str(), locator.dump().c_str(), "tether.ws.x", err, sizeof err) != 0);

  REQUIRE(h->new_object(tmp.path.c_str(), out, sizeof out, err, sizeof err) == 0);
  CHECK(Json::parse(out) != locator);
  REQUIRE(h->fresh_locator(tmp.path.c_str(), out, sizeof out, err, sizeof err) == 0);
  CHECK_FALSE(fs::exists(Json::parse(out)["uri"].get<std::string>()));
  entry->destroy(self);
}

}  // namespace tether::file::test
