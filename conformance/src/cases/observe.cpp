// conformance/src/cases/observe.cpp: the reference checks every backend and the read-side
// tiers take (docs/writing-a-backend.md: fingerprint, content, identity, DIFF, HISTORY,
// ADDRESSABLE). Each case starts from a fresh object: s1 = before, s2 = after one write.
#include <set>

#include "../suite.hpp"

namespace tether::conformance {
namespace {

struct Observed {
  Json loc, s1, s2;
};

// Fingerprint twice, write, fingerprint again: the shared setup of the checks below.
Observed observe(Fixture& fx) {
  Observed o;
  o.loc = fx.new_object();
  o.s1 = fx.fingerprint(o.loc);
  Json again = fx.fingerprint(o.loc);
  expect(fx.same(o.s1, again), "two fingerprints of an unchanged object differ: " + show(o.s1) + " vs " + show(again));
  fx.mutate(o.loc);
  o.s2 = fx.fingerprint(o.loc);
  expect(!fx.same(o.s1, o.s2), "the fingerprint did not change after a write: " + show(o.s1));
  return o;
}

void fingerprint_stable(Fixture& fx) { observe(fx); }

void content_state(Fixture& fx) {
  Observed o = observe(fx);
  Json c1 = fx.backend().content_state(o.s1), c2 = fx.backend().content_state(o.s2);
  expect(c1 != c2, "the content states before and after a write are equal: a real change must survive "
                   "dropping the volatile keys " + show(Json(fx.backend().description().volatile_keys)));
  expect(!c2.empty(), "the content state is empty; an empty state is reserved for 'absent'");
  for (const auto& k : fx.backend().description().volatile_keys)
    expect(!c2.contains(k), "volatile key '" + k + "' survives in the content state");
}

void identity(Fixture& fx) {
  Observed o = observe(fx);
  Json id = fx.backend().identity(o.loc);
  expect(id.is_object() && !id.empty(), "identity(locator) is " + show(id) + ", not a non-empty object");
  expect(fx.backend().identity(o.loc) == id, "identity(locator) differs between two calls");
  Json content = fx.backend().content_state(o.s2);
  expect(!content.is_null(), "the content state of a fingerprint is null");
  std::string a = fx.pin_id(o.loc, o.s2), b = fx.pin_id(o.loc, o.s2);
  expect(a == b, "the pin id of one state differs between two computations: " + a + " vs " + b);
}

void diff(Fixture& fx) {
  Observed o = observe(fx);
  auto& be = fx.backend();
  auto l1 = be.listing(o.loc, o.s1), l2 = be.listing(o.loc, o.s2);
  sdk::ObjectDiff self = be.diff(o.loc, o.s2, o.s2, l2, l2);
  expect(self.empty(), "diff of a state against itself is not empty: " + self.summary());
  sdk::ObjectDiff change = be.diff(o.loc, o.s1, o.s2, l1, l2);
  expect(!change.empty(), "diff across a write is empty");
  expect(!change.summary().empty(), "diff across a write has an empty summary");
  static const std::set<std::string> kinds{"added", "removed", "modified", "renamed"};
  for (const auto& e : change.entries)
    expect(kinds.count(e.change) != 0, "diff entry '" + e.path + "' has change '" + e.change +
                                           "'; it must be added, removed, modified or renamed");
  expect(change.added >= 0 && change.removed >= 0 && change.modified >= 0, "diff counts are negative");
}

void history(Fixture& fx) {
  Observed o = observe(fx);
  auto& be = fx.backend();
  auto h10 = be.history(o.loc, std::nullopt, 10);
  expect(!h10.empty(), "history of a written object is empty");
  expect(h10.size() <= 10, "history(limit 10) returned " + std::to_string(h10.size()) + " entries");
  for (const auto& e : h10) expect(!e.id.empty(), "a history entry has an empty id");
  Json at0 = o.loc;
  at0["at"] = h10[0].id;
  Json s_at0 = fx.fingerprint(at0);
  expect(s_at0 == o.s2, "the newest history entry " + h10[0].id + " fingerprints as " + show(s_at0) +
                            ", not the current state " + show(o.s2));
  if (h10.size() > 1) {
    Json at1 = o.loc;
    at1["at"] = h10[1].id;
    Json s_at1 = fx.fingerprint(at1);
    expect(!fx.same(s_at1, o.s2), "the second history entry " + h10[1].id + " fingerprints as the current state");
  }
  auto h1 = be.history(o.loc, std::nullopt, 1);
  expect(h1.size() == 1, "history(limit 1) returned " + std::to_string(h1.size()) + " entries");
  expect(Json(h1[0]) == Json(h10[0]), "history(limit 1) " + show(Json(h1[0])) + " is not the first entry of history(limit 10) " +
                                         show(Json(h10[0])));
}

// The host asks for no more items after the first: the plugin must stop emitting and return OK.
void history_emit_stop(Fixture& fx) {
  Observed o = observe(fx);
  fx.mutate(o.loc);
  fx.mutate(o.loc);
  int seen = 0;
  sdk::HistoryRequest req{o.loc, std::nullopt, 10};
  auto r = fx.plugin().call(host::Op::History, Json(req).dump(), [&seen](std::string_view) {
    ++seen;
    return false;
  });
  expect(r.ok(), "history failed when the host stopped it: " + r.message);
  expect(seen == 1, "history emitted " + std::to_string(seen) + " items after emit() asked it to stop at 1");
}

// The plain-valued fields of a handle, without read_only and key: its address.
Json address_of(const Json& handle) {
  Json out = Json::object();
  for (const auto& [k, v] : handle.items())
    if (k != "read_only" && k != "key" && !v.is_object() && !v.is_array()) out[k] = v;
  return out;
}

void check_handle(const Json& h, bool read_only, const std::string& what) {
  expect(h.is_object(), what + " returned " + show(h) + ", not a handle object");
  expect(h.contains("address") && h["address"].is_string() && !h["address"].get<std::string>().empty(),
         what + " returned a handle without an 'address' string: " + show(h));
  if (h.contains("read_only"))
    expect(h["read_only"] == read_only, what + " returned a handle with read_only " + h["read_only"].dump());
}

void addressable(Fixture& fx) {
  Observed o = observe(fx);
  auto& be = fx.backend();
  auto v2 = be.verify(o.loc, o.s2, std::nullopt, false);
  expect(v2.status == sdk::VerifyStatus::Ok || v2.status == sdk::VerifyStatus::Unknown,
         std::string("verify(current state, no pin) is ") + sdk::verify_status_name(v2.status) + ": " + v2.message);
  auto v1 = be.verify(o.loc, o.s1, std::nullopt, true);
  expect(v1.status == sdk::VerifyStatus::Ok || v1.status == sdk::VerifyStatus::Unknown,
         std::string("the older recorded state must still deep-verify; verify says ") +
             sdk::verify_status_name(v1.status) + ": " + v1.message);
  Json h2 = be.open(o.loc, sdk::Source::of_state(o.s2), true);
  Json h1 = be.open(o.loc, sdk::Source::of_state(o.s1), true);
  check_handle(h2, true, "open(state, read-only)");
  check_handle(h1, true, "open(older state, read-only)");
  expect(address_of(h1) != address_of(h2),
         "handles on two states must name two addresses; both are " + show(address_of(h1)));
}

}  // namespace

void add_observe_cases(std::vector<Case>& out) {
  out.push_back({"fingerprint-stable", "Fingerprints agree while nothing changes and differ after a write.",
                 TETHER_CAP_FINGERPRINT, true, fingerprint_stable});
  out.push_back({"content-state", "A write survives dropping the volatile keys, and no volatile key is content.",
                 TETHER_CAP_FINGERPRINT, true, content_state});
  out.push_back({"identity-stable", "identity() is a non-empty object and the pin id of a state is reproducible.",
                 TETHER_CAP_FINGERPRINT, true, identity});
  out.push_back({"diff", "A state diffs empty against itself and non-empty across a write, with known change kinds.",
                 TETHER_CAP_DIFF, true, diff});
  out.push_back({"history", "History is newest first, its ids work as the locator's `at`, and limit is honoured.",
                 TETHER_CAP_HISTORY, true, history});
  out.push_back({"history-emit-stop", "history stops emitting when emit() says the host wants no more.",
                 TETHER_CAP_HISTORY, true, history_emit_stop});
  out.push_back({"addressable", "Recorded states verify and open read-only, at two distinct addresses.",
                 TETHER_CAP_ADDRESSABLE, true, addressable});
}

}  // namespace tether::conformance
