// fuzz/workspace.cpp: `.tether/workspace.toml`, the per-checkout state
// (model::parse_workspace). Untracked, but a clone may carry one (force-added) and a tool or
// a crash may leave any bytes in it. Errors must be ConfigError; what parses must survive
// tether's own write and read back unchanged.
#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/model/workspace.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  model::Workspace ws;
  try {
    ws = model::parse_workspace(fuzz::text_of(data, size), ".tether/workspace.toml");
  } catch (const ConfigError&) {
    return 0;
  }
  (void)ws.short_id();
  std::string written, again;
  try {
    written = model::workspace_to_toml(ws);
    again = model::workspace_to_toml(model::parse_workspace(written, "rewritten"));
  } catch (const ConfigError& e) {
    fuzz::finding(std::string("a workspace.toml tether read does not survive its own write: ") + e.what());
  }
  if (again != written) fuzz::finding("workspace.toml changes across a write and a read:\n" + written + "---\n" + again);
  return 0;
}
