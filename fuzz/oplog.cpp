// fuzz/oplog.cpp: `.tether/ops.jsonl`, the operation log (engine::OpLog::read), each entry's
// `tether ops` summary, and `tether-pinned.jsonl` (PinIndex), both JSON lines that torn
// writes, other tools or a clone may leave in any shape. Recovery commands (ops, undo,
// repair) read it, so reading must not fail on one bad entry: any error is a finding.
#include "engine/internal.hpp"
#include "fuzz_support.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto path = fuzz::scratch_dir() / "ops.jsonl";
  fuzz::write_bytes(path, fuzz::text_of(data, size));
  try {
    for (const auto& e : engine::OpLog(model::CheckoutPath{fuzz::scratch_dir(), "ops.jsonl"}).read()) {
      (void)e.incomplete();
      (void)engine::op_summary(e);
      (void)e.to_json().dump();
    }
    (void)engine::PinIndex(path).known();
  } catch (const std::exception& e) {
    fuzz::finding(std::string("reading the operation log failed: ") + e.what());
  }
  return 0;
}
