// The SDK's verify_many slot reads each item with detail::take_verify_request, which moves
// the item's parts out of the parsed request: it must accept, build and refuse exactly what
// from_json(VerifyRequest) does, with the same messages (a malformed item's answer carries
// that message, and must be the one verify alone would have given).
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tether/sdk/backend.hpp"

namespace {

using tether::sdk::Json;
using tether::sdk::VerifyRequest;

// The request as JSON text, or "threw: <what>".
std::string copied(const Json& item) {
  try {
    return Json(item.get<VerifyRequest>()).dump();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

std::string moved(Json item) {
  try {
    VerifyRequest r;
    tether::sdk::detail::take_verify_request(item, r);
    return Json(r).dump();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

}  // namespace

TEST_CASE("take_verify_request builds and refuses what from_json(VerifyRequest) does") {
  const Json loc{{"branch", "obj00"}, {"uri", "/tmp/tether-bench/repo0.git"}};
  const Json state{{"dirty", false}, {"sha", "321c0279b96007fd37ef2711926ef902e699cfda"}};
  const Json pin{{"created", true}, {"id", "674c83a5.abdfbcb0315a4575"}, {"ref", "tether.674c83a5.abdfbcb0315a4575"}};
  std::vector<Json> items = {
      Json::object(),
      Json{{"locator", loc}, {"state", state}, {"pin", pin}, {"deep", false}},
      Json{{"locator", loc}, {"state", state}, {"pin", nullptr}, {"deep", true}},
      Json{{"locator", loc}, {"state", state}},
      Json{{"locator", nullptr}, {"state", nullptr}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", "a.b"}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", "a.b"}, {"ref", nullptr}, {"created", false}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", "x"}, {"ref", "refs/heads/main"}}}},
      // Malformed, each in its own way, and in the order the checks run.
      Json{{"locator", "/tmp/x"}, {"state", state}},
      Json{{"locator", Json::array()}, {"state", 7}},
      Json{{"locator", loc}, {"state", "abc"}},
      Json{{"locator", loc}, {"state", state}, {"pin", "tether.x"}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json::array({1})}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json::object()}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", 7}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", nullptr}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", "x"}, {"ref", 3}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", "x"}, {"ref", "r"}, {"created", "yes"}}}},
      Json{{"locator", loc}, {"state", state}, {"pin", pin}, {"deep", "true"}},
      Json{{"locator", loc}, {"state", state}, {"deep", 1}},
      Json{{"locator", 1}, {"state", state}, {"pin", Json{{"id", 7}}}, {"deep", "x"}},
      Json{{"locator", loc}, {"state", state}, {"pin", Json{{"id", 7}}}, {"deep", "x"}},
  };
  int refused = 0;
  for (const auto& item : items) {
    INFO(item.dump());
    std::string want = copied(item);
    CHECK(moved(item) == want);
    refused += want.rfind("threw: ", 0) == 0;
  }
  CHECK(refused == 14);  // the table's malformed rows do reach the refusals
}

namespace {

// The generic path's reading of a request: each item's VerifyRequest as JSON text, or
// "refused: <what>" (or "bad request" when the whole request is refused).
std::vector<std::string> generic(std::string_view text) {
  auto parsed = tether::sdk::parse_json_bounded(text, tether::sdk::kMaxJsonMessageBytes, nullptr,
                                                tether::sdk::kMaxJsonWrappedNesting);
  if (!parsed || !parsed->is_object() || !parsed->contains("items") || !(*parsed)["items"].is_array())
    return {"bad request"};
  std::vector<std::string> out;
  for (const auto& item : (*parsed)["items"]) {
    try {
      if (!item.is_object()) throw std::invalid_argument("not an object");
      out.push_back(Json(item.get<VerifyRequest>()).dump());
    } catch (const std::exception& e) {
      out.push_back(std::string("refused: ") + e.what());
    }
  }
  return out;
}

// The direct reader's: nullopt when it gives up.
std::optional<std::vector<std::string>> direct(std::string_view text) {
  std::vector<VerifyRequest> items;
  if (!tether::sdk::detail::VerifyManyReader(text, tether::sdk::kMaxJsonWrappedNesting).read(items)) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& r : items) out.push_back(Json(r).dump());
  return out;
}

}  // namespace

TEST_CASE("VerifyManyReader reads what the host writes, as the generic path does, and gives up on the rest") {
  const Json loc{{"branch", "obj00"}, {"uri", "/tmp/tether-bench/repo0.git"}};
  const Json odd_loc{{"path", "/x"}, {"n", -3}, {"list", Json::array({1, "a", nullptr, Json::object()})}, {"t", true}};
  const Json state{{"dirty", false}, {"sha", "321c0279b96007fd37ef2711926ef902e699cfda"}};
  std::string written = "{\"items\":[";
  {
    tether::sdk::JsonWriter w(written);
    int k = 0;
    for (const auto& l : {loc, odd_loc, Json::object()})
      for (const auto& pin : {std::optional<tether::sdk::Pin>{}, std::optional<tether::sdk::Pin>{tether::sdk::Pin{
                                                                     "674c83a5.abdf", "tether.674c83a5.abdf", false}}})
        for (bool deep : {false, true}) {
          if (k++) written += ',';
          tether::sdk::write_verify_request(w, l, state, pin, deep);
        }
  }
  written += "]}";
  // What the host writes is read directly, and read as the generic path reads it.
  auto got = direct(written);
  REQUIRE(got);
  CHECK(got->size() == 12);
  CHECK(*got == generic(written));

  // Requests written otherwise: wherever the reader accepts, it agrees; some it must accept.
  const std::vector<std::pair<std::string, bool>> texts = {
      {R"({"items":[]})", true},
      {" { \"items\" : [ ] } \n", true},
      {R"({"items":[{}]})", true},
      {R"({"items":[{"locator":null,"state":null,"pin":null}]})", true},
      {R"({"items":[{"pin":{"id":"a.b"}}]})", true},
      {R"({"items":[{"pin":{"ref":null,"id":"a.b","created":true}}, {"deep":false}]})", true},
      {R"({"items":[{"state":{"sha":"ab","sha":"cd"}}]})", true},  // a repeated key inside keeps the last, as parse does
      {R"({"items":[{"deep":true,"deep":false}]})", false},
      {R"({"items":[{"pin":{"id":"a","id":"b"}}]})", false},
      {R"({"items":[{"other":1}]})", false},
      {R"({"items":[{"pin":{"id":"a","extra":1}}]})", false},
      {R"({"items":[{"pin":{"ref":"r"}}]})", false},
      {R"({"items":[{"pin":{"id":7}}]})", false},
      {R"({"items":[{"pin":"x"}]})", false},
      {R"({"items":[{"pin":{"id":"a","created":null}}]})", false},
      {R"({"items":[{"deep":null}]})", false},
      {R"({"items":[{"deep":1}]})", false},
      {R"({"items":[{"locator":"x"}]})", false},
      {R"({"items":[{"locator":[]}]})", false},
      {R"({"items":[{"locator":{"uri":"caf\u00e9"}}]})", false},
      {R"({"items":[{"pin":{"id":"a\nb"}}]})", false},
      {R"({"items":[7]})", false},
      {R"({"items":[{},]})", false},
      {R"({"items":[{"deep":true,}]})", false},
      {R"({"items":{}})", false},
      {R"({"items":[],"more":1})", false},
      {R"({"other":[],"items":[]})", false},
      {R"({"items":[]} x)", false},
      {R"([])", false},
      {"", false},
  };
  for (const auto& entry : texts) {
    const std::string& text = entry.first;  // not a structured binding: INFO captures it
    const bool accepted = entry.second;
    INFO(text);
    auto d = direct(text);
    CHECK(d.has_value() == accepted);
    if (d) CHECK(*d == generic(text));
  }
}
