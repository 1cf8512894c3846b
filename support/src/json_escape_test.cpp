// Tests of support/json_escape: the three modes against what Python's json.dumps prints.
#include "tether/support/json_escape.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace tether::support;

namespace {
std::string quoted(std::string_view text, JsonEscape mode) {
  std::string out;
  append_json_string(out, text, mode);
  return out;
}
}  // namespace

TEST_CASE("every mode escapes quotes, backslashes and control characters alike") {
  for (auto mode : {JsonEscape::utf8, JsonEscape::ascii, JsonEscape::python_ascii}) {
    CHECK(quoted("a\"b\\c/", mode) == "\"a\\\"b\\\\c/\"");
    CHECK(quoted("\b\f\n\r\t\x01\x1f", mode) == "\"\\b\\f\\n\\r\\t\\u0001\\u001f\"");
    CHECK(quoted("", mode) == "\"\"");
    // Runs of plain characters between escapes, at both ends.
    CHECK(quoted("run one\"two\\three\nfour", mode) == "\"run one\\\"two\\\\three\\nfour\"");
  }
}

TEST_CASE("utf8 keeps UTF-8, DEL and invalid bytes as they are (ensure_ascii=False)") {
  CHECK(quoted("\xc3\xa9\xf0\x9f\x98\x80\x7f", JsonEscape::utf8) == "\"\xc3\xa9\xf0\x9f\x98\x80\x7f\"");
  CHECK(quoted("a\xff", JsonEscape::utf8) == "\"a\xff\"");
}

TEST_CASE("ascii escapes non-ASCII code points, replaces invalid bytes, keeps DEL") {
  CHECK(quoted("\xc3\xa9\xf0\x9f\x98\x80", JsonEscape::ascii) == "\"\\u00e9\\ud83d\\ude00\"");
  CHECK(quoted("a\xff", JsonEscape::ascii) == "\"a\\ufffd\"");
  CHECK(quoted("\x7f", JsonEscape::ascii) == "\"\x7f\"");
}

TEST_CASE("python_ascii is Python's ensure_ascii of a surrogateescaped str") {
  // json.dumps("\U0001F600\x7f\x01\"\\/\t")
  CHECK(quoted("\xf0\x9f\x98\x80\x7f\x01\"\\/\t", JsonEscape::python_ascii) ==
        "\"\\ud83d\\ude00\\u007f\\u0001\\\"\\\\/\\t\"");
  CHECK(quoted("a\xff", JsonEscape::python_ascii) == "\"a\\udcff\"");  // what surrogateescape prints
  CHECK(quoted("\xc3", JsonEscape::python_ascii) == "\"\\udcc3\"");    // a truncated sequence
}
