// tether/model/toml.hpp: TOML <-> JSON at the JSON level, so toml++ stays out of headers.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tether::model {

// Parse TOML text into a JSON object. Integers stay integers, floats floats; dates and times
// become their TOML text. A syntax error throws ConfigError `<source>:<line>: <description>`;
// with `redact`, the description is withheld (the file may hold credentials).
nlohmann::json parse_toml(std::string_view text, const std::string& source, bool redact = false);

// Write a JSON object as TOML, keeping the object's key order: scalars and arrays of a table
// first, then each sub-table as `[a.b]` (a header only when the table has direct values or is
// empty). Nulls are dropped (also inside arrays); objects inside arrays become inline tables.
// Throws ConfigError for an unsigned integer beyond the signed 64-bit range.
std::string dump_toml(const nlohmann::ordered_json& table);
std::string dump_toml(const nlohmann::json& table);

// "a table", "an array", "a string", "a boolean", "an integer", "a number", "null": how a
// message names the type a TOML value has where another was expected.
std::string toml_type_name(const nlohmann::json& value);

// Converts a sorted nlohmann::json into an ordered one (same order), for building documents.
nlohmann::ordered_json to_ordered(const nlohmann::json& value);

}  // namespace tether::model
