// conformance/src/cases/pins.cpp: the PIN tier and the fork checks of PIN + FORK
// (docs/writing-a-backend.md: pin checks, fork checks, unpin checks).
#include <algorithm>

#include "../suite.hpp"

namespace tether::conformance {
namespace {

using sdk::Pin;
using sdk::Source;
using sdk::VerifyStatus;

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

struct Pinned {
  Json loc, s2;
  std::string pid;
  Pin pin;
};

// A fresh object written once (s2) and pinned.
Pinned pinned(Fixture& fx) {
  Pinned p;
  p.loc = fx.new_object();
  fx.mutate(p.loc);
  p.s2 = fx.fingerprint(p.loc);
  p.pid = fx.pin_id(p.loc, p.s2);
  p.pin = fx.backend().pin(p.loc, p.s2, p.pid);
  return p;
}

void expect_verify(Fixture& fx, const Json& loc, const Json& state, const Pin& pin, bool deep, VerifyStatus want,
                   const std::string& when) {
  auto r = fx.backend().verify(loc, state, pin, deep);
  expect(r.status == want, "verify(" + std::string(deep ? "deep" : "shallow") + ") of pin " + pin.ref + " " + when + " is " +
                               sdk::verify_status_name(r.status) + ", expected " + sdk::verify_status_name(want) +
                               (r.message.empty() ? "" : ": " + r.message));
}

void pin(Fixture& fx) {
  auto& be = fx.backend();
  Pinned p = pinned(fx);
  expect(p.pin.ref.rfind("tether.", 0) == 0, "pin ref '" + p.pin.ref + "' does not start with 'tether.'");
  expect(p.pin.created, "the first pin of a state says created = false");
  expect(contains(be.list_pins(p.loc), p.pid), "pin id " + p.pid + " is not in list_pins");
  expect_verify(fx, p.loc, p.s2, p.pin, false, VerifyStatus::Ok, "right after pinning");
  expect_verify(fx, p.loc, p.s2, p.pin, true, VerifyStatus::Ok, "right after pinning");

  Pin again = be.pin(p.loc, p.s2, p.pid);
  expect(again.ref == p.pin.ref, "pinning the same state again gave ref " + again.ref + ", not " + p.pin.ref);
  expect(!again.created, "pinning the same state again says created = true; it must find the existing pin");

  fx.mutate(p.loc);
  expect_verify(fx, p.loc, p.s2, p.pin, false, VerifyStatus::Ok, "after a later write (the pin protects the state)");

  Json other = fx.fingerprint(p.loc);
  expect(!fx.same(other, p.s2), "the fingerprint did not change after a write");
  expect_refused<BackendError>("pin(another state, the same pin id)", "BackendError (never move a pin)",
                               [&] { be.pin(p.loc, other, p.pid); });
  expect_verify(fx, p.loc, p.s2, p.pin, false, VerifyStatus::Ok, "after a refused re-pin");
}

void pin_ghost(Fixture& fx) {
  auto& be = fx.backend();
  Json loc = fx.new_object();
  Pin ghost{"0000000000000000", "tether.0000000000000000.ghost", true};
  expect_refused<BackendError>("open(a pin that does not exist)", "BackendError",
                               [&] { be.open(loc, Source::of_pin(ghost), true); });
  try {
    be.unpin(loc, ghost);
  } catch (const BackendError&) {
    // a no-op or a BackendError: both are allowed
  }
}

void fork(Fixture& fx) {
  auto& be = fx.backend();
  Pinned p = pinned(fx);
  Pin again = be.pin(p.loc, p.s2, p.pid);
  std::string wref = be.fork(p.loc, Source::of_pin(again), fx.working_ref("conformance"));
  expect(!wref.empty(), "fork returned an empty working ref");
  expect(fx.same(fx.fingerprint(p.loc, wref), p.s2), "the fork " + wref + " does not start at the pinned state");
  Json h = be.open(p.loc, Source::of_ref(wref), false);
  expect(h.is_object() && h.value("read_only", false) == false, "open(working ref, writable) returned a read-only handle");

  Json base = fx.fingerprint(p.loc);
  fx.mutate(p.loc, wref);
  expect(!fx.same(fx.fingerprint(p.loc, wref), p.s2), "a write on the fork " + wref + " did not change its state");
  expect(fx.same(fx.fingerprint(p.loc), base), "a write on the fork " + wref + " changed the base");

  std::string reset = be.fork(p.loc, Source::of_pin(again), fx.working_ref("conformance"));
  expect(fx.same(fx.fingerprint(p.loc, reset), p.s2),
         "forking onto an existing name must reset it to the source; " + reset + " is elsewhere");

  auto before = be.list_working_refs(p.loc);
  std::string same_name = be.fork(p.loc, Source::of_pin(again), reset);
  expect(same_name == reset, "forking onto a branch already at the source returned " + same_name + ", not " + reset);
  auto after = be.list_working_refs(p.loc);
  expect(after == before, "forking onto a branch already at the source changed list_working_refs");
  expect(fx.same(fx.fingerprint(p.loc, reset), p.s2), "the branch " + reset + " left the source");
  expect(contains(after, reset), "working ref " + reset + " is not in list_working_refs");

  be.delete_working_ref(p.loc, reset);
  expect(!contains(be.list_working_refs(p.loc), reset), "working ref " + reset + " is still listed after delete");

  std::string pinless = be.fork(p.loc, Source::of_state(p.s2), fx.working_ref("conformance-pinless"));
  expect(fx.same(fx.fingerprint(p.loc, pinless), p.s2), "a fork from a recorded state does not start at that state");
  be.delete_working_ref(p.loc, pinless);
}

void unpin(Fixture& fx) {
  auto& be = fx.backend();
  Pinned p = pinned(fx);
  Json h = be.open(p.loc, Source::of_pin(p.pin), true);
  expect(h.is_object() && h.value("read_only", true) == true, "open(pin, read-only) returned a writable handle");
  be.unpin(p.loc, p.pin);
  expect(!contains(be.list_pins(p.loc), p.pid), "pin id " + p.pid + " is still in list_pins after unpin");
  expect_verify(fx, p.loc, p.s2, p.pin, false, VerifyStatus::Missing, "after unpin");
  be.unpin(p.loc, p.pin);  // already gone is success
}

}  // namespace

void add_pin_cases(std::vector<Case>& out) {
  out.push_back({"pin", "Pins are created once, found again (created = false), protect their state and never move.",
                 TETHER_CAP_PIN, true, pin});
  out.push_back({"pin-ghost", "Opening a pin that does not exist is a BackendError; unpinning it is a no-op or one.",
                 TETHER_CAP_PIN, true, pin_ghost});
  out.push_back({"fork", "Forks start at the pin, are isolated from the base, reset onto the source and delete.",
                 TETHER_CAP_PIN | TETHER_CAP_FORK, true, fork});
  out.push_back({"unpin", "A pin opens read-only; unpin removes it (verify: missing) and is idempotent.", TETHER_CAP_PIN,
                 true, unpin});
}

}  // namespace tether::conformance
