// conformance/src/cases/verify_many.cpp: the batched verify (backend.h, verify_many) answers
// every item exactly as verify answers it alone: the same report, or the same failure, in the
// items' order, with a bad item (a missing pin, a hostile pin id, garbage) failing only itself.
#include "../suite.hpp"

namespace tether::conformance {
namespace {

using host::Op;

// One item's answer in a comparable form: "ok: <message>", or "error <STATUS>: <message>".
std::string answer_of(const sdk::VerifyOutcome& o) {
  if (o.report) return std::string(sdk::verify_status_name(o.report->status)) + ": " + o.report->message;
  return "error " + host::status_name(o.status) + ": " + o.message;
}

// verify alone, through the host as the engine calls it.
std::string single(Fixture& fx, const sdk::VerifyRequest& r) {
  try {
    return answer_of(sdk::VerifyOutcome::of(fx.backend().verify(r.locator, r.state, r.pin, r.deep)));
  } catch (const std::exception& e) {
    const host::Failure* f = host::failure_of(e);
    auto* b = dynamic_cast<const BackendError*>(&e);
    return answer_of(sdk::VerifyOutcome::failed(f ? f->status() : TETHER_E_BACKEND, b ? b->bare_message() : e.what()));
  }
}

// The plugin's own slot, called directly with `request`; the CallResult is checked against
// the status protocol by the fixture.
host::CallResult batch_call(Fixture& fx, const Json& request) { return fx.plugin().call(Op::VerifyMany, request.dump()); }

std::vector<Json> results_of(const host::CallResult& r, std::size_t want, const std::string& what) {
  expect(r.ok(), what + " failed (" + host::status_name(r.status) + "): " + r.message);
  expect(r.reply.has_value(), what + " returned no reply");
  Json reply = Json::parse(*r.reply);
  expect(reply.contains("results") && reply["results"].is_array(), what + " replied without a \"results\" list");
  expect(reply["results"].size() == want, what + " answered " + std::to_string(reply["results"].size()) + " results for " +
                                              std::to_string(want) + " items");
  return reply["results"].get<std::vector<Json>>();
}

void verify_many(Fixture& fx) {
  if (!fx.plugin().has(Op::VerifyMany))
    skip("no verify_many slot: the host verifies item by item (a plugin built before ABI 0.2's slot)");
  auto& be = fx.backend();
  Json a = fx.new_object(), b = fx.new_object();
  fx.mutate(a);
  Json sa = fx.fingerprint(a), sb = fx.fingerprint(b);

  std::vector<sdk::VerifyRequest> items;
  items.push_back({a, sa, std::nullopt, false});
  items.push_back({b, sb, std::nullopt, false});
  items.push_back({a, sa, std::nullopt, true});
  items.push_back({a, Json{{"garbage", Json::array({1, 2})}}, std::nullopt, false});  // a state of nothing
  items.push_back({Json{{"nonsense", 1}}, sa, std::nullopt, false});                  // a locator of nothing
  if (fx.has(TETHER_CAP_PIN)) {
    std::string pa = fx.pin_id(a, sa), pb = fx.pin_id(b, sb);
    sdk::Pin pin_a = be.pin(a, sa, pa), pin_b = be.pin(b, sb, pb);
    fx.mutate(a);  // the pin still protects sa
    items.push_back({a, sa, pin_a, false});
    items.push_back({b, sb, pin_b, false});
    items.push_back({b, sa, pin_b, false});  // the pin names another state: drifted
    items.push_back({a, sa, sdk::Pin{"0000000000000000", "tether.0000000000000000", true}, false});  // missing
    // Hostile pin ids and refs, as a clone's manifest may carry them: answered, never a crash.
    for (const char* id : {"../../../../etc/passwd", "-rf", "x\ny", "tether.ws.c0fe5a1e.main", "a b;c", ""})
      items.push_back({a, sa, sdk::Pin{id, std::string("tether.") + id, true}, false});
    items.push_back({a, sa, sdk::Pin{"refs/heads/main", "refs/heads/main", true}, false});
    items.push_back({a, sa, sdk::Pin{std::string(4096, 'f'), std::string(4096, 'f'), true}, false});
    items.push_back({a, sa, pin_a, false});  // the same item twice
  }

  std::vector<std::string> alone;
  for (const auto& r : items) alone.push_back(single(fx, r));

  Json request(sdk::VerifyManyRequest{items});
  auto got = results_of(batch_call(fx, request), items.size(), "verify_many of " + std::to_string(items.size()) + " items");
  for (std::size_t i = 0; i < items.size(); ++i) {
    sdk::VerifyOutcome o;
    try {
      o = got[i].get<sdk::VerifyOutcome>();
    } catch (const std::exception& e) {
      fail("verify_many's result " + std::to_string(i) + " is malformed: " + show(got[i]) + " (" + e.what() + ")");
    }
    if (!o.ok()) expect(o.message.find('\n') == std::string::npos, "verify_many's failure " + std::to_string(i) +
                                                                       " is several lines: " + show(got[i]));
    expect(o.ok() || !o.message.empty(), "verify_many's failure " + std::to_string(i) + " has no message");
    std::string batched = answer_of(o);
    expect(batched == alone[i], "item " + std::to_string(i) + " " + show(Json(items[i])) + ": verify says '" + alone[i] +
                                    "', verify_many says '" + batched + "'");
  }

  // The edges: no items, an item that is not a request, a request without items.
  results_of(batch_call(fx, Json{{"items", Json::array()}}), 0, "verify_many of no items");
  Json mixed = Json{{"items", Json::array({Json(items[0]), 42, "text", Json::array()})}};
  auto m = results_of(batch_call(fx, mixed), 4, "verify_many of one good item and three malformed ones");
  expect(answer_of(m[0].get<sdk::VerifyOutcome>()) == alone[0],
         "a good item beside malformed ones is answered '" + answer_of(m[0].get<sdk::VerifyOutcome>()) + "', not '" +
             alone[0] + "'");
  for (std::size_t i = 1; i < 4; ++i)
    expect(!m[i].get<sdk::VerifyOutcome>().ok(), "malformed item " + show(mixed["items"][i]) + " was answered " +
                                                     show(m[i]) + ", not refused");
  for (const char* bad : {"{}", R"({"items": 7})", R"({"items": {"a": 1}})"}) {
    auto r = fx.plugin().call(Op::VerifyMany, bad);
    expect(!r.ok(), std::string("verify_many(") + bad + ") went through; a request without an items list is refused");
  }
}

}  // namespace

void add_verify_many_cases(std::vector<Case>& out) {
  out.push_back({"verify-many", "verify_many answers each item as verify alone does (missing, hostile and garbage pins "
                                "included), in order, and refuses a request without items.",
                 0, true, verify_many});
}

}  // namespace tether::conformance
