// json_ascii: strings written the way Python's json.dumps writes them by default
// (ensure_ascii): listings and the hash cache must be byte-identical to the reference's.
#pragma once

#include <string>
#include <string_view>

namespace tether::file {

// Appends `s` as a quoted JSON string: printable ASCII as is; `"` `\` and \b \f \n \r \t in
// short form; every other code point as \uXXXX in lowercase hex, with a surrogate pair
// above the BMP. A byte that is not valid UTF-8 is written as the lone surrogate \udcXX,
// which is what Python's surrogateescape makes of it.
void append_json_ascii(std::string& out, std::string_view s);

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): what Python
// accepts when it encodes a file name to UTF-8.
bool valid_utf8(std::string_view s);

}  // namespace tether::file
