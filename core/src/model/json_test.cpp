// Tests of model/json: pretty JSON, repr()/str(), short_state (canonical JSON and the float
// repr: support/src/canonical_json_test.cpp). Expected strings were produced by Python 3.11
// (`json.dumps(x, indent=2)`, `repr()`, `str()`).
#include <doctest/doctest.h>

#include "tether/model/json.hpp"

using namespace tether::model;

TEST_CASE("pretty_json is json.dumps(indent=2) with ensure_ascii") {
  OrderedJson o = OrderedJson::object();
  o["b"] = OrderedJson::array({1, OrderedJson{{"x", OrderedJson::array()}}});
  o["a"] = OrderedJson::object();
  o["\xc3\xa9"] = "\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80";
  o["n"] = nullptr;
  o["t"] = true;
  o["f"] = 2.5;
  CHECK(pretty_json(o) ==
        "{\n"
        "  \"b\": [\n"
        "    1,\n"
        "    {\n"
        "      \"x\": []\n"
        "    }\n"
        "  ],\n"
        "  \"a\": {},\n"
        "  \"\\u00e9\": \"\\u65e5\\u672c\\ud83d\\ude00\",\n"
        "  \"n\": null,\n"
        "  \"t\": true,\n"
        "  \"f\": 2.5\n"
        "}");
  CHECK(pretty_json(Json::object()) == "{}");
  CHECK(pretty_json(Json{{"z", 1}, {"a", "\x01"}}) == "{\n  \"a\": \"\\u0001\",\n  \"z\": 1\n}");
}

TEST_CASE("py_repr of strings picks quotes and escapes like Python") {
  CHECK(py_repr(std::string_view("it's")) == "\"it's\"");
  CHECK(py_repr(std::string_view("a\"b")) == "'a\"b'");
  CHECK(py_repr(std::string_view("x'y\"z")) == "'x\\'y\"z'");
  CHECK(py_repr(std::string_view("plain")) == "'plain'");
  const std::string tricky("\x00\n\t\x7f\xc2\xa0\xc3\xa9\xe2\x80\x8b\xf0\x9f\x98\x80\\", 16);
  CHECK(py_repr(std::string_view(tricky)) == "'\\x00\\n\\t\\x7f\\xa0\xc3\xa9\\u200b\xf0\x9f\x98\x80\\\\'");
}

TEST_CASE("py_repr and py_str of values") {
  CHECK(py_repr(Json::parse(R"({"snapshot_id":"X","n":[1,null,true,2.5]})")) ==
        "{'n': [1, None, True, 2.5], 'snapshot_id': 'X'}");
  CHECK(py_str(Json("text")) == "text");
  CHECK(py_str(Json(false)) == "False");
  CHECK(py_str(Json(nullptr)) == "None");
  CHECK(py_str(Json(7)) == "7");
}

TEST_CASE("short_state renders str() values cut at 16 code points") {
  CHECK(short_state(Json(nullptr)) == "?");
  CHECK(short_state(Json::object()) == "?");
  const Json st = Json::parse(R"({"type":"dir","count":3,"digest":"abcdef0123456789abcdef","dirty":false,
    "x":null,"f":1.0,"u":"日本語日本語日本語日本語日本語日本語","v":"0123456789abcdef"})");
  CHECK(short_state(st) ==
        "count=3 digest=abcdef0123456789\xe2\x80\xa6 dirty=False f=1.0 type=dir "
        "u=\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac"
        "\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe2\x80\xa6"
        " v=0123456789abcdef x=None");
  CHECK(utf8_length("\xe6\x97\xa5x") == 2);
}
