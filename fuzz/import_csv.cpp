// fuzz/import_csv.cpp: a `.csv` import source (registry::read_source: RFC 4180 with a
// header row), as `tether import rows.csv` reads it. Errors must be ConfigError.
#include "fuzz_support.hpp"
#include "tether/errors.hpp"
#include "tether/registry/import_source.hpp"

#include <nlohmann/json.hpp>

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto path = fuzz::scratch_dir() / "rows.csv";
  fuzz::write_bytes(path, fuzz::text_of(data, size));
  try {
    for (const auto& row : registry::read_source(path.string(), std::nullopt, std::nullopt)) (void)row.dump();
  } catch (const ConfigError&) {
  }
  return 0;
}
