// fuzz/toml_subset.cpp: the fast reader of tether's own TOML shape (model/toml_subset.hpp)
// against toml++. Whatever the subset reader accepts, toml++ must accept and read the same;
// parse_toml (subset first, toml++ behind it) must answer as toml++ alone does.
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "model/toml_subset.hpp"
#include "tether/errors.hpp"
#include "tether/model/toml.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::text_of(data, size));
  std::optional<model::Json> ref;
  std::string ref_error;
  try {
    ref = model::parse_toml_reference(text, "fuzz.toml");
  } catch (const ConfigError& e) {
    ref_error = e.what();
  }
  if (auto sub = model::parse_toml_subset(text)) {
    if (!ref) fuzz::finding("the subset reader accepted a document toml++ refuses (" + ref_error + "):\n" + text);
    if (*sub != *ref) fuzz::finding("the subset reader and toml++ read a document differently:\n" + text);
  }
  try {
    model::Json got = model::parse_toml(text, "fuzz.toml");
    if (!ref || got != *ref) fuzz::finding("parse_toml differs from toml++ on:\n" + text);
  } catch (const ConfigError& e) {
    if (ref || ref_error != e.what()) fuzz::finding("parse_toml's error differs from toml++'s on:\n" + text);
  }
  return 0;
}
