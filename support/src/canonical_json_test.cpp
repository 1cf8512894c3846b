// Tests of support/canonical_json: the bytes every hash is taken of, and Python's float repr.
// Expected strings were produced by Python 3.11 (`json.dumps(x, sort_keys=True,
// ensure_ascii=False, separators=(",", ":"))`, `repr()`).
#include "tether/support/canonical_json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

using namespace tether::support;
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

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

TEST_CASE("canonical JSON: sorted keys, compact, UTF-8 kept") {
  CHECK(canonical_json(Json::parse(R"({"b": [1, 2.5, null], "a": "ü", "c": {"y": true, "x": "\u0001"}})")) ==
        "{\"a\":\"ü\",\"b\":[1,2.5,null],\"c\":{\"x\":\"\\u0001\",\"y\":true}}");
}

TEST_CASE("canonical_json passes bytes that are not UTF-8 through") {
  CHECK(canonical_json(Json("a\xff")) == "\"a\xff\"");
}

TEST_CASE("append_json_scalar writes scalars with the strings escaped as asked") {
  std::string out;
  append_json_scalar(out, Json("\xc3\xa9"), JsonEscape::ascii);
  append_json_scalar(out, Json(2.5), JsonEscape::ascii);
  append_json_scalar(out, OrderedJson(nullptr), JsonEscape::utf8);
  append_json_scalar(out, Json::array({1}), JsonEscape::utf8);  // not a scalar: nothing
  CHECK(out == "\"\\u00e9\"2.5null");
}
