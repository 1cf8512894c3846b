// Tests of model/json: canonical and pretty JSON, Python float repr, repr()/str(), short_state.
// Expected strings were produced by Python 3.11 (`json.dumps(x, sort_keys=True,
// ensure_ascii=False, separators=(",", ":"))`, `json.dumps(x, indent=2)`, `repr()`, `str()`).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "tether/model/json.hpp"

using namespace tether::model;

TEST_CASE("canonical_json sorts keys, escapes like Python and keeps non-ASCII") {
  const Json d = Json::parse(R"({"b":1,"a":[1,2.5,null,true,false],"é":"ü",
    "Z":{"y":"\t\b\f\r\n\"\\/\u007f\u001f"},"😀":1e20,"f":1e16,"g":1e15,"h":0.0001,"i":0.00001,
    "j":-0.0,"k":123456789012345678.0,"l":1.0,"m":0.1})");
  CHECK(canonical_json(d) ==
        "{\"Z\":{\"y\":\"\\t\\b\\f\\r\\n\\\"\\\\/\x7f"
        "\\u001f\"},\"a\":[1,2.5,null,true,false],\"b\":1,\"f\":1e+16,\"g\":1000000000000000.0,\"h\":0.0001,"
        "\"i\":1e-05,\"j\":-0.0,\"k\":1.2345678901234568e+17,\"l\":1.0,\"m\":0.1,\"\xc3\xa9\":\"\xc3\xbc\",\""
        "\xf0\x9f\x98\x80\":1e+20}");
}

TEST_CASE("canonical_json orders keys by code point, not UTF-16 unit") {
  // U+E000 sorts before U+1F600 in code points; UTF-16 would put the surrogate pair first.
  const Json d = {{"\xee\x80\x80", 1}, {"\xf0\x9f\x98\x80", 2}, {"a", 3}, {"\xc3\xa9", 4}};
  CHECK(canonical_json(d) == "{\"a\":3,\"\xc3\xa9\":4,\"\xee\x80\x80\":1,\"\xf0\x9f\x98\x80\":2}");
  OrderedJson o = OrderedJson::object();
  o["z"] = 1;
  o["a"] = OrderedJson{{"y", 2}, {"b", 3}};
  CHECK(canonical_json(o) == "{\"a\":{\"b\":3,\"y\":2},\"z\":1}");
}

TEST_CASE("canonical_json scalars") {
  CHECK(canonical_json(Json("icechunk")) == "\"icechunk\"");
  CHECK(canonical_json(Json(nullptr)) == "null");
  CHECK(canonical_json(Json(-42)) == "-42");
  CHECK(canonical_json(Json(18446744073709551615ull)) == "18446744073709551615");
  CHECK(canonical_json(Json::array()) == "[]");
  CHECK(canonical_json(Json::object()) == "{}");
  CHECK(canonical_json(Json(std::numeric_limits<double>::infinity())) == "Infinity");
  CHECK(canonical_json(Json(-std::numeric_limits<double>::infinity())) == "-Infinity");
  CHECK(canonical_json(Json(std::nan(""))) == "NaN");
}

TEST_CASE("python_float_repr matches repr(float)") {
  CHECK(python_float_repr(1.0) == "1.0");
  CHECK(python_float_repr(0.1) == "0.1");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(1e15) == "1000000000000000.0");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.00001) == "1e-05");
  CHECK(python_float_repr(1.5e300) == "1.5e+300");
  CHECK(python_float_repr(-2.5e-7) == "-2.5e-07");
  CHECK(python_float_repr(123.456) == "123.456");
  CHECK(python_float_repr(0.0) == "0.0");
  CHECK(python_float_repr(-0.0) == "-0.0");
  CHECK(python_float_repr(std::nan("")) == "nan");
}

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
