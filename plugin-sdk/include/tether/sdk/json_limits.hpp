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
#include <cstdint>
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

namespace detail {
// A reader of the plain JSON the two sides of the ABI mostly send each other: strings of
// printable ASCII without escapes, integers of up to 18 digits, true, false, null, objects
// and arrays. It builds exactly the document nlohmann::json::parse builds (a repeated key
// keeps its last value, as there) and gives up on anything else: an escape, a byte outside
// printable ASCII, a fraction or exponent, a longer number, a BOM, a comment, anything
// malformed or trailing. Then nlohmann parses the text as before, and refuses it with its
// own message. Every lexer step of nlohmann's copied a character at a time; this one copies
// a string in one go (verify_many's batches: 30,000 records).
class PlainJsonReader {
 public:
  PlainJsonReader(std::string_view text, std::size_t max_depth)
      : p_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth) {}
  bool read(nlohmann::json& out) {
    space();
    if (!value(out, 0)) return false;
    space();
    return p_ == end_;
  }

 protected:  // the SDK's verify_many reader (backend.hpp) reads its requests' frame itself
  void space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool at(char c) const { return p_ != end_ && *p_ == c; }
  bool string(std::string& s) {  // at '"'
    const char* begin = ++p_;
    for (; p_ != end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        s.assign(begin, p_);
        ++p_;
        return true;
      }
      if (c < 0x20 || c > 0x7e || c == '\\') return false;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (static_cast<std::size_t>(end_ - p_) < w.size() || std::string_view(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  bool number(nlohmann::json& out) {
    bool negative = at('-');
    if (negative) ++p_;
    const char* digits = p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') ++p_;
    else
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ - digits > 18) return false;
    if (p_ != end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    std::uint64_t v = 0;
    for (const char* d = digits; d != p_; ++d) v = v * 10 + static_cast<std::uint64_t>(*d - '0');
    if (negative) out = -static_cast<std::int64_t>(v);  // "-0" too: an integer, as nlohmann reads it
    else out = v;
    return true;
  }
  bool value(nlohmann::json& out, std::size_t depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': {
        if (++depth > max_depth_) return false;
        ++p_;
        out = nlohmann::json::object();
        auto& object = out.get_ref<nlohmann::json::object_t&>();
        space();
        if (at('}')) {
          ++p_;
          return true;
        }
        std::string key;
        for (;;) {
          if (!at('"') || !string(key)) return false;
          space();
          if (!at(':')) return false;
          ++p_;
          space();
          if (!value(object[key], depth)) return false;
          space();
          if (at(',')) {
            ++p_;
            space();
            continue;
          }
          if (!at('}')) return false;
          ++p_;
          return true;
        }
      }
      case '[': {
        if (++depth > max_depth_) return false;
        ++p_;
        out = nlohmann::json::array();
        auto& array = out.get_ref<nlohmann::json::array_t&>();
        space();
        if (at(']')) {
          ++p_;
          return true;
        }
        for (;;) {
          array.emplace_back();
          if (!value(array.back(), depth)) return false;
          space();
          if (at(',')) {
            ++p_;
            space();
            continue;
          }
          if (!at(']')) return false;
          ++p_;
          return true;
        }
      }
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't': out = true; return word("true");
      case 'f': out = false; return word("false");
      case 'n': out = nullptr; return word("null");
      default: return number(out);
    }
  }

  const char* p_;
  const char* end_;
  std::size_t max_depth_;
};
}  // namespace detail

// Parses `text` if it is within the limits and valid JSON; otherwise nullopt, with the reason
// in `why` (a limit, or the parser's message). Out of memory still throws std::bad_alloc.
inline std::optional<nlohmann::json> parse_json_bounded(std::string_view text, std::size_t max_bytes,
                                                        std::string* why = nullptr,
                                                        std::size_t max_depth = kMaxJsonNesting) {
  std::string problem = json_limit_problem(text, max_bytes, max_depth);
  if (problem.empty()) {
    nlohmann::json plain;
    if (detail::PlainJsonReader(text, max_depth).read(plain)) return plain;
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
