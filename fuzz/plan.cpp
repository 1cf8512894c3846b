// fuzz/plan.cpp: a saved plan, `--from-plan FILE` (engine::read_plan_file): JSON, the
// format, the command, the preconditions and actions, the digest. A plan file may come from
// anywhere (a colleague, a ticket). Errors must be ConfigError or StalePlanError.
#include "fuzz_support.hpp"
#include "tether/engine/plan.hpp"
#include "tether/errors.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::text_of(data, size);
  auto path = fuzz::scratch_dir() / "plan.json";
  fuzz::write_bytes(path, text);
  // The command the file names (when it says one) so its digest can be checked; else commit.
  std::string command = "commit";
  for (const char* c : {"commit", "new", "restore", "promote", "gc", "abandon", "drop", "repair", "undo", "import"})
    if (text.find(std::string("\"command\": \"") + c + "\"") != std::string_view::npos ||
        text.find(std::string("\"command\":\"") + c + "\"") != std::string_view::npos)
      command = c;
  try {
    engine::Plan p = engine::read_plan_file(path, command, engine::required_preconditions(command));
    (void)p.writes();
    (void)p.to_json().dump();
  } catch (const ConfigError&) {
  } catch (const StalePlanError&) {
  }
  return 0;
}
