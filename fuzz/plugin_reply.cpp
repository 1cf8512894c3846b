// fuzz/plugin_reply.cpp: what a backend plugin sends back through the C ABI, as the host
// parses it (host::Plugin's describe at load, BackendProxy's typed calls: replies, emitted
// history items, fail() details). A third-party plugin is code the user chose to install,
// but its replies carry what its store said, so the host must turn any reply into a
// TetherError, never a crash. The plugin below is a real one linked in: every op answers
// with the input. Byte 0 picks how: bits 0-3 a status (0: reply; else fail() with that
// status, the input as details), bit 4: describe answers with the input too.
#include <cstring>
#include <memory>

#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin.hpp"
#include "tether/host/proxy.hpp"

using namespace tether;

namespace {

std::string g_text;
tether_status g_status = TETHER_OK;
bool g_fuzz_describe = false;

const char kDescription[] =
    R"({"kind":"fuzz","maturity":"stable","capabilities":32767,"volatile_keys":["lsn"],"thread_safe":true})";

struct tether_backend_impl {};
tether_backend_impl g_instance;

tether_status answer(tether_call* call) {
  if (g_status != TETHER_OK) {
    call->host->fail(call, g_status, "fuzz failure", g_text.c_str());
    return g_status;
  }
  call->host->reply(call, g_text.data(), g_text.size());
  return TETHER_OK;
}

tether_status op_any(tether_backend*, tether_call* call, const char*, size_t) { return answer(call); }

tether_status op_describe(tether_backend*, tether_call* call, const char*, size_t) {
  if (g_fuzz_describe) return answer(call);
  call->host->reply(call, kDescription, sizeof kDescription - 1);
  return TETHER_OK;
}

// History: each line of the input is one emitted item, then the reply.
tether_status op_history(tether_backend*, tether_call* call, const char*, size_t) {
  std::size_t start = 0;
  while (start < g_text.size()) {
    std::size_t nl = g_text.find('\n', start);
    if (nl == std::string::npos) nl = g_text.size();
    if (call->host->emit(call, g_text.data() + start, nl - start)) break;
    start = nl + 1;
  }
  return answer(call);
}

tether_status plugin_init(const tether_host*) { return TETHER_OK; }
void plugin_deinit() {}
tether_status plugin_create(tether_call*, const char*, size_t, tether_backend** out) {
  *out = reinterpret_cast<tether_backend*>(&g_instance);
  return TETHER_OK;
}
void plugin_destroy(tether_backend*) {}

tether_backend_vtable make_vtable() {
  tether_backend_vtable v;
  std::memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  // Every slot answers with the input; the named ones are set after.
  auto* slots = reinterpret_cast<tether_op*>(&v.describe);
  std::size_t n = (sizeof v - offsetof(tether_backend_vtable, describe)) / sizeof(tether_op);
  for (std::size_t i = 0; i < n; ++i) slots[i] = &op_any;
  v.describe = &op_describe;
  v.history = &op_history;
  return v;
}

const tether_backend_vtable g_vtable = make_vtable();
const tether_plugin_entry g_entry = {TETHER_PLUGIN_MAGIC, TETHER_ABI_MAJOR, TETHER_ABI_MINOR, sizeof(tether_plugin_entry),
                                     "fuzz", "0.0.0", &plugin_init, &plugin_deinit, &plugin_create, &plugin_destroy,
                                     &g_vtable};

template <class F>
void expect_tether_error(F&& f) {
  try {
    f();
  } catch (const TetherError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const tether_status statuses[16] = {TETHER_OK, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, -1, TETHER_OK};
  g_status = statuses[data[0] & 0x0f];
  g_fuzz_describe = (data[0] & 0x10) != 0;
  g_text.assign(reinterpret_cast<const char*>(data) + 1, size - 1);

  host::set_log_sink([](std::string_view, int, std::string_view) {});
  std::shared_ptr<host::Plugin> plugin;
  try {
    plugin = host::Plugin::from_entry(g_entry, "fuzz plugin", {"fuzz", "{}"});
  } catch (const TetherError&) {
    return 0;
  }
  host::BackendProxy b(plugin);
  const sdk::Locator loc = {{"uri", "fuzz://x"}, {"branch", "main"}};
  const sdk::State st = {{"v", 1}, {"lsn", "0/1"}};
  const sdk::Pin pin{"c0fe5a1e.0000000000000001", "tether.c0fe5a1e.0000000000000001", true};
  expect_tether_error([&] { b.configure(sdk::ConfigureRequest{}); });
  expect_tether_error([&] { (void)b.identity(loc, "k"); });
  expect_tether_error([&] { b.validate_locator(loc, "k"); });
  expect_tether_error([&] { (void)b.effective_capabilities(loc, sdk::Json{{"pin", "record"}}, "k"); });
  expect_tether_error([&] { (void)b.base_branch(loc, "k"); });
  expect_tether_error([&] { (void)b.branch_scope(loc, "k"); });
  expect_tether_error([&] { (void)b.ref_namespace(loc, "k"); });
  expect_tether_error([&] { (void)b.default_key(loc, "k"); });
  expect_tether_error([&] { (void)b.state_addressable(loc, st, "k"); });
  expect_tether_error([&] { (void)b.fingerprint(loc, std::string("tether.ws.x"), "k"); });
  expect_tether_error([&] { (void)b.verify(loc, st, pin, true, "k"); });
  expect_tether_error([&] { (void)b.open(loc, sdk::Source::of_pin(pin), true, "k"); });
  expect_tether_error([&] { (void)b.pin(loc, st, pin.id, "k"); });
  expect_tether_error([&] { b.unpin(loc, pin, "k"); });
  expect_tether_error([&] { (void)b.list_pins(loc, "k"); });
  expect_tether_error([&] { (void)b.fork(loc, sdk::Source::of_state(st), "tether.ws.x", sdk::Expected::absent(), "k"); });
  expect_tether_error([&] { b.delete_working_ref(loc, "tether.ws.x", "k"); });
  expect_tether_error([&] { (void)b.list_working_refs(loc, "k"); });
  expect_tether_error([&] { (void)b.working_ref_blockers(loc, "tether.ws.x", "k"); });
  expect_tether_error([&] { (void)b.listing(loc, st, "k"); });
  expect_tether_error([&] { (void)b.diff(loc, st, st, std::nullopt, std::nullopt, "k"); });
  expect_tether_error([&] { (void)b.history(loc, std::string("main"), 5, "k"); });
  expect_tether_error([&] { (void)b.promote(loc, sdk::Source::of_ref("tether.ws.x"), sdk::Expected::at(st), "k"); });
  expect_tether_error([&] { (void)b.merge(loc, sdk::Source::of_ref("tether.ws.x"), "m", sdk::Expected::none(), "k"); });
  expect_tether_error([&] { (void)b.ancestor_of(loc, st, sdk::Source::base(), "k"); });
  expect_tether_error([&] { b.check_quiescence(loc, std::nullopt, "k"); });
  expect_tether_error([&] { (void)b.create(loc, "c0fe5a1e", "k"); });
  expect_tether_error([&] { (void)b.owner(loc, "k"); });
  expect_tether_error([&] { (void)b.is_ref_empty(loc, {"README"}, "k"); });
  expect_tether_error([&] { b.delete_store(loc, "k"); });
  expect_tether_error([&] { (void)b.rename_pin(loc, pin, st, "c0fe5a1e.0000000000000002", "k"); });
  expect_tether_error([&] { (void)b.rename_working_ref(loc, "tether.ws.x", "tether.ws.y", "k"); });
  return 0;
}
