// conformance/broken/check_then_act.cpp: the memory backend, but fork checks `expected`
// under one lock and moves under another, 20 ms later. Every sequential check passes; the
// 8-thread race of CONDITIONAL_REF (which it still declares) must catch it.
#include <chrono>
#include <thread>

#include "backend.hpp"

namespace {
class CheckThenAct final : public tether::memory::MemoryBackendBase<CheckThenAct> {
 public:
  using MemoryBackendBase::MemoryBackendBase;
  std::string fork(tether::sdk::Call& call, const tether::sdk::ForkRequest& request) {
    std::string name = tether::memory::system_name(request.locator);
    read(request.locator, [&](tether::memory::Store& st) { check_expected(st.system(name), request.name, request.expected, "fork"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    tether::sdk::ForkRequest unconditional = request;
    unconditional.expected = tether::sdk::Expected::none();
    return MemoryBackendBase::fork(call, unconditional);
  }
};
}  // namespace

TETHER_BACKEND_PLUGIN(CheckThenAct, "memory", "0.1.0")
