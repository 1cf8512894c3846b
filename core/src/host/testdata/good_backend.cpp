// A well-behaved test backend on the C++ SDK. Built twice: kind "good" (not thread-safe)
// and "goodmt" (thread-safe). Its ops answer fixed things so the host tests can check the
// status mapping, the slot defaults and call serialisation.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "tether/sdk/backend.hpp"

#ifndef GOOD_KIND
#error GOOD_KIND must name the kind
#endif

namespace sdk = tether::sdk;

namespace {
std::atomic<int> g_active{0};
std::atomic<int> g_max_active{0};
std::atomic<int> g_calls{0};
}  // namespace

class GoodBackend : public sdk::Backend<GoodBackend> {
 public:
  explicit GoodBackend(const sdk::Json& config) {
    if (config.value("refuse", false)) throw sdk::InvalidArgument("config says refuse");
  }

  sdk::Description describe(sdk::Call&) {
    sdk::Description d;
    d.kind = GOOD_KIND;
    d.maturity = "experimental";
    d.capabilities = sdk::kFingerprint | sdk::kAddressable | sdk::kPin | sdk::kFork | sdk::kHistory | sdk::kMerge;
    d.volatile_keys = {"lsn"};
#ifdef GOOD_THREAD_SAFE
    d.thread_safe = true;
#else
    d.thread_safe = false;
#endif
    return d;
  }

  sdk::State fingerprint(sdk::Call& c, const sdk::FingerprintRequest& r) {
    ++g_calls;
    int now = ++g_active;
    for (int seen = g_max_active.load(); now > seen && !g_max_active.compare_exchange_weak(seen, now);) {
    }
    if (r.locator.contains("sleep_ms"))
      std::this_thread::sleep_for(std::chrono::milliseconds(r.locator["sleep_ms"].get<int>()));
    if (r.locator.contains("log")) c.log(r.locator["log"].get<int>(), "hello from " GOOD_KIND);
    if (r.locator.contains("progress")) {  // [step, unit]: one report from this thread, one from another
      std::string step = r.locator["progress"][0].get<std::string>(), unit = r.locator["progress"][1].get<std::string>();
      c.progress(step.c_str(), unit.c_str(), 1, 2, 100);
      std::thread([&] { c.progress(2, 2); }).join();
    }
    --g_active;
    return sdk::State{{"v", r.locator.value("v", 1)},
                      {"lsn", "0/1"},
                      {"working_ref", r.working_ref ? sdk::Json(*r.working_ref) : sdk::Json(nullptr)},
                      {"max_active", g_max_active.load()},
                      {"calls", g_calls.load()}};
  }

  sdk::VerifyReport verify(sdk::Call&, const sdk::VerifyRequest& r) {
    if (r.locator.contains("fail")) throw sdk::IoError(r.locator["fail"].get<std::string>());
    // What the SDK makes of exceptions that are not its own.
    if (r.locator.value("throw", "") == "std") throw std::runtime_error("a plain std::exception");
    if (r.locator.value("throw", "") == "int") throw 42;
    return {r.pin ? sdk::VerifyStatus::Ok : sdk::VerifyStatus::Unknown, r.deep ? "deep" : ""};
  }

  sdk::Json open(sdk::Call&, const sdk::OpenRequest& r) {
    return sdk::Json{{"address", "good://" + r.locator.value("uri", std::string("x"))},
                     {"read_only", r.read_only},
                     {"cache_dir", configuration().cache_dir}};
  }

  sdk::Pin pin(sdk::Call&, const sdk::PinRequest& r) { return {r.pin_id, "tether." + r.pin_id, true}; }

  void unpin(sdk::Call&, const sdk::UnpinRequest& r) { throw sdk::NotFound("pin " + r.pin.ref + " is gone"); }

  std::vector<std::string> list_pins(sdk::Call&, const sdk::LocatorRequest&) { return {"c0fe5a1e.0123456789abcdef"}; }

  std::string fork(sdk::Call&, const sdk::ForkRequest& r) {
    throw sdk::RefMoved("fork: " + r.name + " is at {\"v\":2}, expected " + r.expected.state.dump(), r.name,
                        r.expected.state, sdk::Json{{"v", 2}});
  }

  void delete_working_ref(sdk::Call&, const sdk::RefRequest&) {
    throw sdk::Unsupported("fork", "this store cannot delete branches");
  }

  std::vector<sdk::HistoryEntry> history(sdk::Call&, const sdk::HistoryRequest&) {
    std::vector<sdk::HistoryEntry> out;
    for (int i = 5; i >= 1; --i) out.push_back({"c" + std::to_string(i), std::nullopt, "commit " + std::to_string(i), {}});
    return out;  // ignores the limit on purpose: the host stops it through emit()
  }

  sdk::State merge(sdk::Call&, const sdk::MergeRequest&) {
    throw sdk::MergeConflict("merge stopped on 2 conflicts", {"a.txt", "b.txt"});
  }
};

TETHER_BACKEND_PLUGIN(GoodBackend, GOOD_KIND, "1.2.3")
