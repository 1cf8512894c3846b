// tether/support/json_escape.hpp: text as a JSON string literal, escaped the way Python's
// json.dumps escapes it. One writer serves canonical JSON (the input of every hash), the CLI's
// `--json` output and the file backend's listings; they differ only in what becomes of text
// beyond ASCII, which the caller names.
#pragma once

#include <string>
#include <string_view>

namespace tether::support {

enum class JsonEscape {
  // ensure_ascii=False (canonical JSON): UTF-8, DEL and bytes that are not UTF-8 pass through.
  utf8,
  // ensure_ascii=True for what people read (`--json`): each non-ASCII code point as \uXXXX (a
  // surrogate pair above U+FFFF), a byte that is not UTF-8 as \ufffd; DEL stays as it is.
  ascii,
  // Python's ensure_ascii to the byte, for names Python decoded with surrogateescape (the file
  // backend's listings and hash cache): as `ascii`, but DEL as \u007f and a byte that is not
  // UTF-8 as the lone surrogate \udcXX.
  python_ascii,
};

// Appends `text` in double quotes: `"` `\` \b \f \n \r \t in their short form, the other code
// points below 0x20 as \u00XX, the rest as `mode` says. Hex digits are lower-case.
void append_json_string(std::string& out, std::string_view text, JsonEscape mode = JsonEscape::utf8);

}  // namespace tether::support
