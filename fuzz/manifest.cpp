// fuzz/manifest.cpp: an object manifest, `.tether/objects/<key>.toml`, as a clone commits
// it (model::parse_manifest: toml++ then the manifest's own checks). Errors must be
// ConfigError; what parses must survive tether's own write and read back unchanged.
#include <map>

#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/model/manifest.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  model::ObjectManifest m;
  try {
    m = model::parse_manifest(fuzz::text_of(data, size), ".tether/objects/fuzz.toml");
  } catch (const ConfigError&) {
    return 0;
  }
  std::string written, again;
  try {
    written = model::manifest_to_toml(m);
    (void)m.canonical();
    (void)model::manifest_hash({{m.key, m}});
    again = model::manifest_to_toml(model::parse_manifest(written, "rewritten"));
  } catch (const ConfigError& e) {
    fuzz::finding(std::string("a manifest tether read does not survive its own write: ") + e.what());
  }
  if (again != written) fuzz::finding("a manifest changes across a write and a read:\n" + written + "---\n" + again);
  return 0;
}
