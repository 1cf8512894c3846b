// fuzz/secrets.cpp: `.tether/secrets.toml` (model::parse_secrets) and every accessor the
// engine reads it through. Errors must be ConfigError, and a TOML syntax error must not
// quote the file (it may hold credentials): the text after `<source>:<line>: ` is fixed.
#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/model/secrets.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  model::Secrets s;
  try {
    s = model::parse_secrets(fuzz::text_of(data, size), ".tether/secrets.toml");
  } catch (const ConfigError&) {
    return 0;
  }
  try {
    (void)s.empty();
    (void)s.git_path();
    (void)s.jj_path();
    (void)s.import_query();
    for (const char* kind : {"file", "git", "icechunk", "ducklake", "neon"}) (void)s.backend(kind);
    (void)s.uris();
    const auto objects = s.objects();
    for (const auto& [key, options] : objects.items()) (void)s.object(key);
  } catch (const ConfigError&) {
  }
  return 0;
}
