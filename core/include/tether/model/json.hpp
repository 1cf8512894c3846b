// tether/model/json.hpp: bounded JSON parsing, the `--json` CLI output (pretty_json, Python's
// json.dumps(indent=2)) and the Python-style renderings that appear in messages. The other
// dump, canonical JSON (the byte-exact input of every hash, docs/FORMAT.md#canonical-json), is
// support::canonical_json.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tether/model/limits.hpp"

namespace tether::model {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// The one way tether parses JSON it did not just produce (docs/security.md, "Parsers"): the
// text is checked against the limits before nlohmann sees it.
struct JsonLimits {
  std::size_t max_bytes = kMaxDocumentBytes;
  std::size_t max_depth = kMaxNesting;
};
// Throws ConfigError `<source>: <why>; <way out>` for text over a limit or not valid JSON.
Json parse_json(std::string_view text, const std::string& source, const JsonLimits& limits = {});
// nullopt for text over a limit or not valid JSON, the reason in `why`: for readers that skip
// bad records (the op log) or fall back to the raw text.
std::optional<Json> try_parse_json(std::string_view text, const JsonLimits& limits = {}, std::string* why = nullptr);

// Python json.dumps(x, indent=2): ensure_ascii (lower-case \uXXXX, surrogate pairs), `": "`
// after keys, `,` at line ends, `{}`/`[]` for empty containers. Keys in the container's own
// order: insertion order for OrderedJson, sorted for Json. No trailing newline.
std::string pretty_json(const Json& value);
std::string pretty_json(const OrderedJson& value);

// The value with every string (not object keys) through support::redact_secrets: for JSON
// that leaves the process (--json output, op-log entries).
Json redacted_json(const Json& value);

// Python repr() of a str: single quotes unless the text has `'` and no `"`; escapes `\\`, the
// quote, \t \n \r, other control and non-printable characters as \xNN / \uNNNN / \UNNNNNNNN.
// Non-ASCII printability is decided by a small table (C1 controls, format characters, separators,
// private use), not the full Unicode database.
std::string py_repr(std::string_view text);
inline std::string py_repr(const std::string& text) { return py_repr(std::string_view(text)); }
inline std::string py_repr(const char* text) { return py_repr(std::string_view(text)); }
// Python repr() of a JSON value: dict `{'k': v}`, list `[a, b]`, True/False/None, ints, floats.
// Dict keys in the Json's (sorted) order.
std::string py_repr(const Json& value);
// Python str(): strings as they are, everything else as py_repr.
std::string py_str(const Json& value);

// Number of code points in a UTF-8 string (an invalid byte counts as one).
std::size_t utf8_length(std::string_view text);

// docs/FORMAT.md#python-renderings-in-output: "?" for null/empty, else `k=<str(v) cut at 16
// code points, then U+2026>` joined by spaces. Keys come in the Json's sorted order
// (nlohmann::json does not keep TOML file order).
std::string short_state(const Json& state);

}  // namespace tether::model
