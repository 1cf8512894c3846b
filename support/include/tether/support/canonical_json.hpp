// tether/support/canonical_json.hpp: the canonical JSON of tether's format, byte for byte
// Python's json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":")). It is the
// input of every hash (pin ids, listing names, the dataset hash: docs/FORMAT.md#canonical-json)
// and the default branch scope of a backend, so one byte changed here changes every id; the
// known ids of core/src/model/hash_test.cpp guard it. nlohmann is only forward-declared here.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tether/support/json_escape.hpp"

namespace tether::support {

// Keys sorted by UTF-8 bytes (= code points, not UTF-16 units); floats as Python's repr, the
// non-finite ones as NaN / Infinity / -Infinity; strings escape only `"`, `\` and code points
// below 0x20. Bytes that are not valid UTF-8 pass through untouched (no exception).
std::string canonical_json(const nlohmann::json& value);
std::string canonical_json(const nlohmann::ordered_json& value);

// Appends a scalar (null, boolean, number, string) as json.dumps writes it, strings escaped
// as `strings` says: for the other writers of Python-compatible JSON (model's pretty_json).
// Arrays and objects append nothing; binary values append `null`.
void append_json_scalar(std::string& out, const nlohmann::json& value, JsonEscape strings);
void append_json_scalar(std::string& out, const nlohmann::ordered_json& value, JsonEscape strings);

// Python repr(float): shortest round-trip digits, exponent form when the decimal exponent is
// < -4 or >= 16 (`1e-05`, `1e+16`), otherwise fixed with at least one decimal (`1.0`).
// Non-finite values render as `nan`, `inf`, `-inf` (json dumps write NaN/Infinity instead).
std::string python_float_repr(double value);

}  // namespace tether::support
