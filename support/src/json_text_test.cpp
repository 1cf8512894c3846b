// Tests of support/json_text: is_plain_json says yes only to texts nlohmann reads as they are.
#include "tether/support/json_text.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tether/support/canonical_json.hpp"

using tether::support::is_plain_json;
using Json = nlohmann::json;

TEST_CASE("is_plain_json accepts the JSON tether writes") {
  for (const char* t : {R"({"dirty":false,"sha":"321c0279b96007fd37ef2711926ef902e699cfda"})",
                        R"({"a":[1,2.5,-0.0,1e+16,1E-5,null,true,false],"b":{},"c":[],"d":"x\"\\\/\b\f\n\r\ty"})",
                        "0", "-1", "\"\"", " [ 1 , { \"k\" : [ ] } ]\n", "123456789012345678901234"}) {
    CAPTURE(t);
    CHECK(is_plain_json(t));
    CHECK(Json::accept(t));
  }
  // canonical_json's own output of a typical state is plain.
  Json state = {{"snapshot", "ABCDEF"}, {"n", 3}, {"f", 0.5}, {"list", {1, 2, 3}}, {"none", nullptr}};
  CHECK(is_plain_json(tether::support::canonical_json(state)));
}

TEST_CASE("is_plain_json refuses invalid JSON and leaves the hard cases to a full reader") {
  const std::vector<std::string> invalid = {
      "", " ", "{", "}", "[", "[1,]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "{\"a\":1}{}", "{\"a\":1} x", "[1 2]",
      "01", "1.", ".5", "-", "1e", "1e+", "+1", "tru", "nul", "True", "NaN", "Infinity", "\"abc", "\"a\\x\"",
      "\"a\\\"", std::string("\"a\0b\"", 5), "\"tab\there\"", "'a'", "[1]]", "{\"a\":[}", "\xef\xbb\xbf{}"};
  for (const auto& t : invalid) {
    CAPTURE(t);
    CHECK_FALSE(is_plain_json(t));
  }
  // Valid, but outside the subset: a full reader decides.
  for (const std::string t : {"\"\\u00e9\"", "\"\\ud800\"", "\"\xc3\xa9\"", "\"\xff\"", "1e400", "1e123",
                              "1234567890123456789012345", "0.1234567890123456789012345"}) {
    CAPTURE(t);
    CHECK_FALSE(is_plain_json(t));
  }
  std::string deep(40, '['), close(40, ']');
  CHECK_FALSE(is_plain_json(deep + close));
  CHECK(is_plain_json(deep + close, 64));
  CHECK(is_plain_json(std::string(32, '[') + std::string(32, ']')));
  CHECK_FALSE(is_plain_json(std::string(33, '[') + std::string(33, ']')));
}

TEST_CASE("whatever is_plain_json accepts, nlohmann accepts too (every prefix and one-byte edit of a sample)") {
  const std::string sample = R"({"a":[1,-2.5e+3,null,true,false],"b":{"c":"d\n\"e"},"f":0})";
  REQUIRE(is_plain_json(sample));
  auto agree = [](const std::string& t) {
    if (is_plain_json(t)) {
      CAPTURE(t);
      CHECK(Json::accept(t));
    }
  };
  for (std::size_t n = 0; n <= sample.size(); ++n) agree(sample.substr(0, n));
  const std::string bytes = "{}[]\":,.-+eE0123456789\\ntfalsu \t\x01\x7f\x80";
  for (std::size_t i = 0; i < sample.size(); ++i)
    for (char b : bytes) {
      std::string t = sample;
      t[i] = b;
      agree(t);
      agree(sample.substr(0, i) + b + sample.substr(i));
      agree(sample.substr(0, i) + sample.substr(i + 1));
    }
}
