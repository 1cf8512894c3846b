// tether/harness_support.hpp: small helpers for a conformance harness written in C++
// (header-only, no dependency beyond the standard library): reporting an error, writing the
// JSON result into the caller's buffer, and naming a fresh path in the scratch directory.
#pragma once

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace tether::harness {

// Writes `message` into err (truncated to errcap) and returns the failure code.
inline int fail(char* err, std::size_t errcap, const std::string& message) {
  if (err && errcap) std::snprintf(err, errcap, "%s", message.c_str());
  return 1;
}

// Copies the JSON text into out (NUL-terminated), or fails when it does not fit.
inline int put(const std::string& json, char* out, std::size_t cap, char* err, std::size_t errcap) {
  if (json.size() + 1 > cap) return fail(err, errcap, "output buffer too small for " + json);
  std::memcpy(out, json.c_str(), json.size() + 1);
  return 0;
}

// The first `<dir>/<stem><n><suffix>` that does not exist yet.
inline std::filesystem::path unused(const std::filesystem::path& dir, const std::string& stem,
                                    const std::string& suffix = "") {
  for (unsigned n = 0;; ++n) {
    std::filesystem::path p = dir / (stem + std::to_string(n) + suffix);
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(p, ec))) return p;
  }
}

}  // namespace tether::harness
