// fuzz/tether_toml.cpp: `tether.toml`, the committed repository configuration
// (model::parse_repo_config) and the committed-config allowlist check a clone's
// [backends.<kind>] tables go through. Errors must be ConfigError; what parses must survive
// tether's own write and read back unchanged.
#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/model/config.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  model::RepoConfig c;
  try {
    c = model::parse_repo_config(fuzz::text_of(data, size));
  } catch (const ConfigError&) {
    return 0;
  }
  for (const auto& [kind, table] : c.backends.items()) {
    try {
      model::check_committed_backend_config(kind, c.backend(kind), {"data_path", "branch"},
                                            {{"options", {"ttl"}}});
    } catch (const ConfigError&) {
    }
  }
  std::string written, again;
  try {
    written = model::repo_config_to_toml(c);
    again = model::repo_config_to_toml(model::parse_repo_config(written, "rewritten"));
  } catch (const ConfigError& e) {
    fuzz::finding(std::string("a tether.toml tether read does not survive its own write: ") + e.what());
  }
  if (again != written) fuzz::finding("tether.toml changes across a write and a read:\n" + written + "---\n" + again);
  return 0;
}
