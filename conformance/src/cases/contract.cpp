// conformance/src/cases/contract.cpp: the status protocol and request handling every op
// owes the host, whatever its tier: exactly one fail() with a non-OK status and none with OK,
// malformed or wrong-typed requests refused without a crash, unknown fields ignored, and
// (for thread-safe plugins) concurrent calls.
#include <thread>

#include "../suite.hpp"

namespace tether::conformance {
namespace {

using host::Op;

std::vector<Op> present_ops(Fixture& fx) {
  std::vector<Op> ops;
  for (int i = 0; i < host::kOpCount; ++i)
    if (fx.plugin().has(static_cast<Op>(i))) ops.push_back(static_cast<Op>(i));
  return ops;
}

// Everything the status protocol asks of one finished call; "" when it kept it.
std::string protocol_problem(const host::CallResult& r) {
  if (!r.problems.empty()) return r.problems.front();
  if (!r.ok()) {
    if (r.returned < TETHER_E_BACKEND || r.returned > TETHER_E_INTERNAL)
      return "returned status " + std::to_string(r.returned) + ", which ABI 0.1 does not define";
    if (r.message.empty()) return "failed with an empty message";
    if (r.message.find('\n') != std::string::npos) return "failed with a message of several lines";
    if (!r.details.empty()) {
      try {
        if (!Json::parse(r.details).is_object()) return "fail() details are not a JSON object";
      } catch (const std::exception&) {
        return "fail() details are not valid JSON";
      }
    }
    return "";
  }
  try {
    if (r.reply && !Json::parse(*r.reply).is_object()) return "replied with JSON that is not an object";
    for (const auto& item : r.items)
      if (!Json::parse(item).is_object()) return "emitted an item that is not a JSON object";
  } catch (const std::exception&) {
    return "replied or emitted malformed JSON";
  }
  return "";
}

std::string label(Op op, const std::string& request) {
  std::string r = request.size() > 60 ? request.substr(0, 60) + "..." : request;
  return std::string(host::op_name(op)) + "(" + r + ")";
}

void error_discipline(Fixture& fx) {
  std::vector<std::string> requests{"{}", R"({"locator": {}})"};
  if (fx.has_harness()) requests.push_back(Json{{"locator", fx.new_object()}}.dump());
  for (Op op : present_ops(fx))
    for (const auto& req : requests) {
      auto r = fx.plugin().call(op, req);
      std::string p = protocol_problem(r);
      expect(p.empty(), label(op, req) + " " + p);
    }
}

void invalid_json(Fixture& fx) {
  static const char* const malformed[] = {
      "",          R"({"locator": {)", "[1, 2, 3]", R"("text")", "42", "null", R"({"locator": {"a": tru}})",
      R"({"a": 1}})",
  };
  std::optional<Json> loc;
  if (fx.has_harness()) loc = fx.new_object();
  for (Op op : present_ops(fx)) {
    for (const char* req : malformed) {
      auto r = fx.plugin().call(op, req);
      std::string p = protocol_problem(r);
      expect(p.empty(), label(op, req) + " " + p);
      expect(!r.ok(), label(op, req) + " accepted a request that is not one JSON object");
      expect(r.status == TETHER_E_INVALID_ARGUMENT, label(op, req) + " failed with " + host::status_name(r.status) +
                                                        ", expected INVALID_ARGUMENT");
    }
    // Well-formed JSON with a field of the wrong type.
    std::vector<std::string> wrong;
    if (op == Op::Configure) wrong.push_back(R"({"defaults": 42})");
    else if (op != Op::Describe) wrong.push_back(R"({"locator": 42})");
    bool takes_state = op == Op::Verify || op == Op::Pin || op == Op::Listing || op == Op::StateAddressable;
    if (takes_state && loc) wrong.push_back(Json{{"locator", *loc}, {"state", "not-a-state"}, {"pin_id", "x.y"}}.dump());
    for (const auto& req : wrong) {
      auto r = fx.plugin().call(op, req);
      std::string p = protocol_problem(r);
      expect(p.empty(), label(op, req) + " " + p);
      expect(!r.ok(), label(op, req) + " accepted a field of the wrong type");
    }
  }
}

void unknown_fields(Fixture& fx) {
  const Json extra = {{"nested", Json::array({1, nullptr, "x"})}, {"n", 7}};
  auto plain = fx.plugin().call(Op::Describe, "{}");
  auto more = fx.plugin().call(Op::Describe, Json{{"zz_future_field", extra}}.dump());
  expect(more.ok(), "describe refused a request with an unknown field: " + more.message);
  expect(plain.reply && more.reply && Json::parse(*plain.reply) == Json::parse(*more.reply),
         "describe answers differently when the request has an unknown field");
  if (!fx.has_harness()) return;

  Json loc = fx.new_object();
  Json state = fx.fingerprint(loc);
  auto fp = fx.plugin().call(Op::Fingerprint, Json{{"locator", loc}, {"working_ref", nullptr}, {"zz_future_field", extra}}.dump());
  expect(fp.ok(), "fingerprint refused a request with an unknown field: " + fp.message);
  expect(fp.reply && fx.same(Json::parse(*fp.reply).value("state", Json()), state),
         "fingerprint answers differently when the request has an unknown field");

  Json vreq = {{"locator", loc}, {"state", state}, {"pin", nullptr}, {"deep", false}};
  auto v1 = fx.plugin().call(Op::Verify, vreq.dump());
  vreq["zz_future_field"] = extra;
  auto v2 = fx.plugin().call(Op::Verify, vreq.dump());
  expect(v1.ok() && v2.ok(), "verify refused a request with an unknown field: " + v2.message);
  expect(Json::parse(v1.reply.value_or("{}")).value("status", "") == Json::parse(v2.reply.value_or("{}")).value("status", ""),
         "verify answers differently when the request has an unknown field");

  auto o = fx.plugin().call(Op::Open, Json{{"locator", loc}, {"target", Json::object()}, {"read_only", true},
                                           {"zz_future_field", extra}}.dump());
  expect(o.ok(), "open refused a request with an unknown field: " + o.message);
}

void concurrent_calls(Fixture& fx) {
  if (!fx.backend().description().thread_safe) skip("describe says thread_safe: false, so the host serialises its calls");
  Json loc = fx.new_object();
  Json state = fx.fingerprint(loc);
  std::mutex mu;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  for (int t = 0; t < kRacers; ++t)
    threads.emplace_back([&] {
      try {
        for (int i = 0; i < 20; ++i) {
          Json s = fx.backend().fingerprint(loc);
          if (!fx.backend().same(s, state)) throw std::runtime_error("a concurrent fingerprint gave " + show(s));
          auto v = fx.backend().verify(loc, state, std::nullopt, false);
          (void)v;
          auto d = fx.plugin().call(Op::Describe, "{}");
          if (!d.ok()) throw std::runtime_error("a concurrent describe failed: " + d.message);
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(mu);
        errors.push_back(e.what());
      }
    });
  for (auto& t : threads) t.join();
  expect(errors.empty(), std::to_string(errors.size()) + " of " + std::to_string(kRacers) +
                             " threads failed: " + (errors.empty() ? "" : errors.front()));
}

}  // namespace

void add_contract_cases(std::vector<Case>& out) {
  out.push_back({"error-discipline", "Every op: a non-OK status comes with exactly one one-line fail(), OK with none.",
                 0, false, error_discipline});
  out.push_back({"invalid-json-rejected", "Truncated, non-object and wrong-typed requests are refused, never crash.",
                 0, false, invalid_json});
  out.push_back({"unknown-fields-ignored", "Fields a plugin does not know change nothing in its answer.", 0, false,
                 unknown_fields});
  out.push_back({"concurrent-calls", "A thread-safe plugin answers 8 threads at once consistently.", 0, true,
                 concurrent_calls});
}

}  // namespace tether::conformance
