// Tests of the parser limits (model/limits.hpp): parse_toml's depth pre-scan in every syntactic
// form TOML can nest with, parse_json's, the size limits, and that exactly-at-limit passes.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "tether/errors.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/model/toml.hpp"
#include "tether/sdk/json_limits.hpp"
#include "tether/sdk/types.hpp"

using namespace tether;
using namespace tether::model;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A dotted key of n segments: a.a.a...
std::string dotted(std::size_t n) {
  std::string k = "a";
  for (std::size_t i = 1; i < n; ++i) k += ".a";
  return k;
}

// The depth of a parsed document, the outermost container counting as 1.
std::size_t depth_of(const Json& j) {
  std::size_t deepest = 0;
  std::vector<std::pair<const Json*, std::size_t>> todo{{&j, 1}};
  while (!todo.empty()) {
    auto [v, d] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, d);
    for (const auto& e : *v) todo.push_back({&e, d + 1});
  }
  return deepest;
}

bool too_deep(const std::string& text) {
  try {
    parse_toml(text, "t.toml");
    return false;
  } catch (const ConfigError& e) {
    return std::string(e.what()).find("nesting deeper than 128 levels") != std::string::npos;
  }
}

}  // namespace

TEST_CASE("parse_toml refuses a table header deeper than the limit, before toml++ sees it") {
  // The known crash: 20,000 segments in one header.
  CHECK_THROWS_WITH_AS(parse_toml("[" + dotted(20000) + "]\nx = 1\n", ".tether/objects/a.toml"),
                       ".tether/objects/a.toml:1: nesting deeper than 128 levels; fix or remove it", ConfigError);
  // 127 segments + the document = 128 levels: accepted, and really that deep.
  const Json ok = parse_toml("[" + dotted(127) + "]\nx = 1\n", "t.toml");
  CHECK(depth_of(ok) == 128);
  CHECK(too_deep("[" + dotted(128) + "]\nx = 1\n"));
  // The line of the offending header.
  CHECK_THROWS_WITH_AS(parse_toml("a = 1\n\n[" + dotted(200) + "]\n", "t.toml"),
                       "t.toml:3: nesting deeper than 128 levels; fix or remove it", ConfigError);
}

TEST_CASE("parse_toml counts arrays of tables, quoted and spaced header keys") {
  CHECK(depth_of(parse_toml("[[" + dotted(126) + "]]\nx = 1\n", "t.toml")) == 128);
  CHECK(too_deep("[[" + dotted(127) + "]]\nx = 1\n"));
  // Quoted segments, dots inside quotes (one segment), whitespace around dots.
  CHECK(too_deep("[" + repeat("\"k\" . ", 128) + "z]\n"));
  CHECK(too_deep("[" + repeat("'k'.", 128) + "z]\n"));
  CHECK_FALSE(too_deep("[\"" + repeat("a.", 5000) + "\"]\nx = 1\n"));
  CHECK_FALSE(too_deep("['" + repeat("a.", 5000) + "']\nx = 1\n"));
}

TEST_CASE("parse_toml counts dotted keys under their table, at the top level and in inline tables") {
  CHECK(depth_of(parse_toml(dotted(128) + " = 1\n", "t.toml")) == 128);
  CHECK(too_deep(dotted(129) + " = 1\n"));
  // Under a header: the header's levels and the key's add up.
  CHECK(depth_of(parse_toml("[" + dotted(60) + "]\n" + dotted(68) + " = 1\n", "t.toml")) == 128);
  CHECK(too_deep("[" + dotted(60) + "]\n" + dotted(69) + " = 1\n"));
  // A later shallow header resets the base.
  CHECK_FALSE(too_deep("[" + dotted(100) + "]\nx = 1\n[b]\n" + dotted(100) + " = 1\n"));
  // Inside an inline table.
  CHECK(too_deep("x = { " + dotted(128) + " = 1 }\n"));
  CHECK_FALSE(too_deep("x = { " + dotted(127) + " = 1 }\n"));
}

TEST_CASE("parse_toml counts inline arrays and tables, in values, across lines") {
  // x = [[[...]]]: the document, then 127 arrays.
  CHECK(depth_of(parse_toml("x = " + repeat("[", 127) + repeat("]", 127) + "\n", "t.toml")) == 128);
  CHECK(too_deep("x = " + repeat("[", 128) + repeat("]", 128) + "\n"));
  CHECK(too_deep("x = " + repeat("[", 200000) + "\n"));  // no closing needed to be refused
  CHECK(too_deep("x = " + repeat("{a = ", 128) + "1" + repeat("}", 128) + "\n"));
  CHECK_FALSE(too_deep("x = " + repeat("{a = ", 127) + "1" + repeat("}", 127) + "\n"));
  // Mixed, with elements, commas, newlines and comments between them.
  CHECK(too_deep("x = [ 1, # c ]]]\n" + repeat("[ 2,\n", 127) + "\n"));
  CHECK_FALSE(too_deep("x = [\n 1, # c [[[[\n [2, 3],\n {a = [4]},\n]\n"));
  // Siblings do not add up.
  CHECK_FALSE(too_deep("x = [" + repeat("[[1]], ", 1000) + "]\n"));
}

TEST_CASE("parse_toml does not count brackets in strings, comments or dates") {
  const std::string brackets = repeat("[{", 500);
  CHECK_FALSE(too_deep("a = \"" + brackets + "\\\"" + brackets + "\"\n"));
  CHECK_FALSE(too_deep("a = '" + brackets + "'\n"));
  CHECK_FALSE(too_deep("a = \"\"\"\n" + brackets + "\n\"\" " + brackets + "\n\"\"\"\n"));
  CHECK_FALSE(too_deep("a = '''\n" + brackets + "\n'' " + brackets + "\n'''\n"));
  CHECK_FALSE(too_deep("# " + brackets + "\na = 1 # " + brackets + "\n"));
  // Closing quotes followed by up to two more quotes, then real nesting afterwards still counts.
  CHECK(too_deep("a = \"\"\"x\"\"\"\"\"\nb = " + repeat("[", 128) + repeat("]", 128) + "\n"));
  CHECK(too_deep("a = '''x'''''\nb = " + repeat("[", 128) + repeat("]", 128) + "\n"));
  // A date-time with a space inside an array does not confuse the scan.
  CHECK(depth_of(parse_toml("d = [1979-05-27 07:32:00Z, [2]]\n", "t.toml")) == 3);
  CHECK(too_deep("d = [1979-05-27 07:32:00Z, " + repeat("[", 127) + repeat("]", 127) + "]\n"));
}

TEST_CASE("parse_toml refuses a file over the size limit, accepts one at it") {
  std::string text = "a = \"" + std::string(kMaxDocumentBytes - 7, 'x') + "\"\n";
  CHECK(text.size() == kMaxDocumentBytes);
  CHECK(parse_toml(text, "t.toml")["a"].get<std::string>().size() == kMaxDocumentBytes - 7);
  text.insert(5, "y");
  CHECK_THROWS_WITH_AS(parse_toml(text, "tether.toml"),
                       "tether.toml: 1048577 bytes, more than the 1048576-byte limit for a TOML file; fix or remove it",
                       ConfigError);
}

TEST_CASE("parse_json checks nesting and size before parsing") {
  CHECK(sdk::json_nesting("[[1], {\"a\": [2]}]") == 3);
  CHECK(sdk::json_nesting("\"[[[\\\"[[[\"") == 0);
  CHECK(sdk::json_nesting(repeat("[", 1000000)) == kMaxNesting + 1);  // stops counting early
  const std::string at = repeat("[", 128) + repeat("]", 128);
  CHECK(depth_of(parse_json(at, "plan.json")) == 128);
  CHECK_THROWS_WITH_AS(parse_json(repeat("[", 200000) + repeat("]", 200000), "plan.json"),
                       "plan.json: nesting deeper than 128 levels; fix or remove it", ConfigError);
  CHECK_THROWS_WITH_AS(parse_json("{\"a\": " + repeat("{\"b\": ", 128) + "1" + repeat("}", 129), "x"),
                       "x: nesting deeper than 128 levels; fix or remove it", ConfigError);
  // A custom depth, e.g. the headroom of records tether wraps around states.
  CHECK(parse_json(repeat("[", 150) + repeat("]", 150), "ops", {kMaxRecordBytes, kMaxWrappedNesting}).is_array());
  // Size: at the limit passes, one byte over does not.
  CHECK(parse_json("\"" + std::string(98, 'x') + "\"", "x", {100, kMaxNesting}).is_string());
  CHECK_THROWS_WITH_AS(parse_json("\"" + std::string(99, 'x') + "\"", "x", {100, kMaxNesting}),
                       "x: 101 bytes, more than the 100-byte limit; fix or remove it", ConfigError);
  // Syntax errors are one line too, naming the source.
  try {
    parse_json("{\"a\":\n\n", "row 3");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    CHECK(m.rfind("row 3: not valid JSON (", 0) == 0);
    CHECK(m.find('\n') == std::string::npos);
  }
  std::string why;
  CHECK_FALSE(try_parse_json(repeat("{\"a\":", 129), {}, &why));
  CHECK(why == "nesting deeper than 128 levels");
  CHECK(try_parse_json("{\"a\": [1]}")->at("a").size() == 1);
}

namespace {
// The value and, unlike ==, the kind of every number in it (1, 1u and 1.0 compare equal).
std::string typed(const nlohmann::json& j) {
  std::string out = std::to_string(static_cast<int>(j.type())) + ":";
  if (j.is_object())
    for (const auto& [k, v] : j.items()) out += k + "=" + typed(v) + ";";
  else if (j.is_array())
    for (const auto& v : j) out += typed(v) + ";";
  else
    out += j.dump();
  return out;
}
}  // namespace

TEST_CASE("parse_json_bounded's plain reader builds nlohmann's document or leaves the text to it") {
  struct Case {
    std::string text;
    bool plain;  // the plain reader takes it
  };
  const std::vector<Case> cases = {
      {R"({"items":[{"deep":false,"locator":{"branch":"obj00","uri":"/tmp/r.git"},"pin":null,"state":{"dirty":false,"sha":"3210"}}]})", true},
      {" \t\r\n{ \"a\" : [ 1 , -2 , 0 , -0 , 123456789012345678 , -123456789012345678 , true , false , null , \"\" , [ ] , { } ] } \n", true},
      {R"({"a":1,"a":{"b":2},"c":[1],"c":"x"})", true},  // a repeated key keeps its last value
      {R"("just a string")", true},
      {"17", true},
      {"[]", true},
      {R"({"a":"\u00e9"})", false},
      {R"({"a":"tab\there"})", false},
      {"{\"a\":\"caf\xc3\xa9\"}", false},
      {"{\"a\":\"\x7f\"}", false},
      {"{\"a\":\"bad \xff utf-8\"}", false},
      {"{\"a\":\"ctl \x01\"}", false},
      {"{\"a\":1.5}", false},
      {"{\"a\":1e3}", false},
      {"{\"a\":1234567890123456789}", false},
      {"{\"a\":18446744073709551616}", false},
      {"{\"a\":-9223372036854775809}", false},
      {"{\"a\":01}", false},
      {"{\"a\":-}", false},
      {"{\"a\":+1}", false},
      {"\xef\xbb\xbf{}", false},
      {"{} /* c */", false},
      {"{}x", false},
      {"{} {}", false},
      {"", false},
      {"   ", false},
      {"{\"a\":1,}", false},
      {"[1,]", false},
      {"{\"a\" 1}", false},
      {"{a:1}", false},
      {"{\"a\":tru}", false},
      {"{\"a\":truex}", false},
      {"{\"a\":nul", false},
      {"[1 2]", false},
      {"{\"a\":[1,{\"b\":\"c\"", false},
      {"\"unterminated", false},
      {"{\"a\":12a}", false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    nlohmann::json plain;
    CHECK(sdk::detail::PlainJsonReader(c.text, sdk::kMaxJsonWrappedNesting).read(plain) == c.plain);
    std::optional<nlohmann::json> want;
    std::string want_why;
    try {
      want = nlohmann::json::parse(c.text);
    } catch (const nlohmann::json::exception& e) {
      want_why = std::string("not valid JSON (") + e.what() + ")";
    }
    if (c.plain) {
      REQUIRE(want);
      CHECK(typed(plain) == typed(*want));
    }
    std::string why;
    auto got = sdk::parse_json_bounded(c.text, sdk::kMaxJsonMessageBytes, &why, sdk::kMaxJsonWrappedNesting);
    REQUIRE(got.has_value() == want.has_value());
    if (got) CHECK(typed(*got) == typed(*want));
    else CHECK(why == want_why);
  }
  // Deeper than the limit: refused before either reader runs, as before.
  std::string why;
  CHECK_FALSE(sdk::parse_json_bounded(repeat("[", 161) + repeat("]", 161), sdk::kMaxJsonMessageBytes, &why,
                                      sdk::kMaxJsonWrappedNesting));
  CHECK(why == "nesting deeper than 160 levels");
  CHECK(sdk::parse_json_bounded(repeat("[", 160) + repeat("]", 160), sdk::kMaxJsonMessageBytes, &why,
                                sdk::kMaxJsonWrappedNesting));
}

TEST_CASE("verify_many's writers write what Json::dump() writes") {
  using sdk::Json;
  const std::vector<Json> values = {
      Json::object(),
      Json{{"branch", "obj00"}, {"uri", "/tmp/r.git"}},
      Json{{"q", "say \"hi\"\\ \n\t\x01 caf\xc3\xa9 \x7f"}, {"n", -3}, {"u", 18446744073709551615ull}, {"f", 1.5},
           {"e", 1e300}, {"b", true}, {"z", nullptr}, {"a", Json::array({1, "x", Json::array(), Json::object()})},
           {"k\"ey\xc3\xa9", Json{{"in", Json::array({false})}}}},
  };
  const std::vector<std::optional<sdk::Pin>> pins = {std::nullopt, sdk::Pin{"674c83a5.abdf", "tether.674c83a5.abdf", true},
                                                     sdk::Pin{"x\"y", "caf\xc3\xa9", false}};
  for (const auto& locator : values)
    for (const auto& state : values)
      for (const auto& pin : pins)
        for (bool deep : {false, true}) {
          std::string text;
          sdk::JsonWriter w(text);
          sdk::write_verify_request(w, locator, state, pin, deep);
          CHECK(text == Json(sdk::VerifyRequest{locator, state, pin, deep}).dump());
        }
  const std::vector<sdk::VerifyOutcome> outcomes = {
      sdk::VerifyOutcome::of({sdk::VerifyStatus::Ok, ""}),
      sdk::VerifyOutcome::of({sdk::VerifyStatus::Drifted, "tether.x -> abc, expected \"def\"\n"}),
      sdk::VerifyOutcome::of({sdk::VerifyStatus::Missing, "caf\xc3\xa9 not found"}),
      sdk::VerifyOutcome::failed(TETHER_E_BACKEND, "boom"),
      sdk::VerifyOutcome::failed(TETHER_E_INVALID_ARGUMENT, "bad \x02 request"),
  };
  for (const auto& o : outcomes) {
    std::string text;
    sdk::JsonWriter w(text);
    sdk::write_verify_outcome(w, o);
    CHECK(text == Json(o).dump());
  }
  // Invalid UTF-8 is refused as dump() refuses it.
  std::string text;
  sdk::JsonWriter w(text);
  CHECK_THROWS_AS(sdk::write_verify_request(w, Json{{"p", "a\xff"}}, Json::object(), std::nullopt, false),
                  nlohmann::json::type_error);
  CHECK_THROWS_AS(Json(Json{{"p", "a\xff"}}).dump(), nlohmann::json::type_error);
}
