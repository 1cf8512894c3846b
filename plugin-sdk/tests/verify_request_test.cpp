// The SDK's verify_many slot reads each item with detail::take_verify_request, which moves
// the item's parts out of the parsed request: it must accept, build and refuse exactly what
// from_json(VerifyRequest) does, with the same messages (a malformed item's answer carries
// that message, and must be the one verify alone would have given).
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
