// fuzz/listing.cpp: the file backend's stored listings (JSON Lines, docs/FORMAT.md#listings)
// and states as `tether diff` reads them (file::diff_states). The input is up to four parts
// separated by NUL bytes: listing a, listing b, state a, state b (states as JSON). A listing
// lives in the backend's cache and a state in a committed manifest; errors must be
// sdk::BackendError.
#include <optional>
#include <vector>

#include "fuzz_support.hpp"
#include "listing.hpp"
#include "tether/sdk/error.hpp"

using namespace tether;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::text_of(data, size);
  std::vector<std::string> parts;
  for (std::size_t start = 0; parts.size() < 4;) {
    std::size_t nul = text.find('\0', start);
    parts.emplace_back(text.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  parts.resize(4);
  auto state = [](const std::string& s, const char* digest) {
    sdk::Json j = sdk::Json::parse(s, nullptr, false);
    return j.is_object() ? j : sdk::Json{{"type", "dir"}, {"digest", digest}, {"count", 1}, {"size", 1}};
  };
  sdk::State a = state(parts[2], "a"), b = state(parts[3], "b");
  try {
    (void)file::parse_listing(parts[0], "a");
  } catch (const sdk::BackendError&) {
  }
  for (const auto& la : {std::optional<std::string>(parts[0]), std::optional<std::string>()})
    try {
      (void)file::diff_states("/data/x", a, b, la, parts[1]);
    } catch (const sdk::BackendError&) {
    }
  return 0;
}
