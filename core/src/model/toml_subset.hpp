// model/toml_subset.hpp: a fast reader for the TOML that tether writes, with toml++ behind it.
//
// Every manifest, workspace and config file tether reads was, almost always, written by
// dump_toml: `key = value` lines, `[a.b]` headers, basic strings, integers, booleans, arrays
// and inline tables, one space around `=`. toml++ parsing them (and the conversion to JSON)
// was half of a history walk's instructions (30,000 manifests in `gc` at 10,000 commits).
// parse_toml_subset reads exactly that shape and nothing else: on anything outside it (a
// comment, a float, a date, CRLF, an escape it does not know, a redefined table, a byte of
// invalid UTF-8, deep nesting) it declines, and parse_toml hands the text to toml++, whose
// result or error stands. What it accepts it must read as toml++ does: fuzz/toml_subset.cpp
// and toml_subset_test.cpp compare the two on generated and mutated documents.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tether/model/json.hpp"

namespace tether::model {

// The document as parse_toml's JSON, or nullopt: "not in the subset", never "invalid".
std::optional<Json> parse_toml_subset(std::string_view text);

// parse_toml without the subset reader (toml++ alone), for the comparisons.
Json parse_toml_reference(std::string_view text, const std::string& source);

}  // namespace tether::model
