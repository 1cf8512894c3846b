// tether/support/json_text.hpp: a check, without building anything, that a text is plain JSON
// that every JSON reader tether talks to accepts as it is, so that it can be passed on as text
// (verify's batches carry the history index's canonical state texts this way).
#pragma once

#include <string_view>

namespace tether::support {

// True when `text` is exactly one JSON value (RFC 8259, optional surrounding whitespace) made
// only of ASCII, whose strings have no \u escape and no control character, whose numbers
// follow the JSON grammar, and whose arrays and objects nest at most `max_depth` deep. False
// for anything else, including valid JSON outside that subset: a caller that gets false parses
// the text in full, as it would without this check.
bool is_plain_json(std::string_view text, int max_depth = 32) noexcept;

}  // namespace tether::support
