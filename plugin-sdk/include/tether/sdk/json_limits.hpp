// tether/sdk/json_limits.hpp: the nesting and size limits on JSON that comes from outside the
// process (a store, a plugin, a file someone else wrote). The core and the plugins include this
// one header, so both sides of the C ABI refuse the same documents.
//
// Why a pre-scan: nlohmann's parser itself does not recurse, but nearly everything that walks
// the result does (copies, dumps, comparisons, our canonical writers), so a 200,000-deep array
// parses fine and overflows the stack a moment later. Counting brackets first is one cheap pass
// and refuses the document before any of that code sees it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tether::sdk {

// Arrays and objects nested deeper than this are refused (the outermost one is level 1).
inline constexpr std::size_t kMaxJsonNesting = 128;
// Records that wrap values read under kMaxJsonNesting (requests and replies across the plugin
// ABI, op-log lines, plans) get this much headroom, so a state at the limit still round-trips.
inline constexpr std::size_t kMaxJsonWrappedNesting = kMaxJsonNesting + 32;
// Sizes: a small document (a config, one line of a listing), a record (one op-log line, one
// reply from a store's HTTP API), a message across the plugin ABI (a diff request carries two
// whole listings). The core's own limits (tether/model/limits.hpp) use these too.
inline constexpr std::size_t kMaxJsonDocumentBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxJsonRecordBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxJsonMessageBytes = std::size_t{1} << 30;

// How deeply the arrays and objects of `text` nest, the outermost counting as 1. Brackets
// inside strings (escapes included) do not count. Stops at `stop_after + 1`, so a huge
// document costs no more than the prefix that breaks the limit. Malformed text still gets a
// number; the parser refuses it afterwards.
inline std::size_t json_nesting(std::string_view text, std::size_t stop_after = kMaxJsonNesting) noexcept {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character, whatever it is, cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stop_after) return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Empty when `text` is within both limits, else why not, as a message fragment
// ("nesting deeper than 128 levels", "2097152 bytes, more than the 1048576-byte limit").
inline std::string json_limit_problem(std::string_view text, std::size_t max_bytes,
                                      std::size_t max_depth = kMaxJsonNesting) {
  if (text.size() > max_bytes)
    return std::to_string(text.size()) + " bytes, more than the " + std::to_string(max_bytes) + "-byte limit";
  if (json_nesting(text, max_depth) > max_depth)
    return "nesting deeper than " + std::to_string(max_depth) + " levels";
  return {};
}

// Parses `text` if it is within the limits and valid JSON; otherwise nullopt, with the reason
// in `why` (a limit, or the parser's message). Out of memory still throws std::bad_alloc.
inline std::optional<nlohmann::json> parse_json_bounded(std::string_view text, std::size_t max_bytes,
                                                        std::string* why = nullptr,
                                                        std::size_t max_depth = kMaxJsonNesting) {
  std::string problem = json_limit_problem(text, max_bytes, max_depth);
  if (problem.empty()) {
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      problem = std::string("not valid JSON (") + e.what() + ")";
    }
  }
  if (why) *why = std::move(problem);
  return std::nullopt;
}

}  // namespace tether::sdk
