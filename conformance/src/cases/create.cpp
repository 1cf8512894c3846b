// conformance/src/cases/create.cpp: the store lifecycle of CREATE (docs/writing-a-backend.md,
// "Proving it"): create with an owner marker, refuse to re-create, emptiness, delete.
#include "../suite.hpp"

namespace tether::conformance {
namespace {

using sdk::Source;

std::string show_opt(const std::optional<bool>& b) { return b ? (*b ? "true" : "false") : "none"; }

void create(Fixture& fx) {
  auto& be = fx.backend();
  Json loc = fx.fresh_locator();
  if (!(be.effective_capabilities(loc) & TETHER_CAP_CREATE))
    skip("effective_capabilities of a fresh locator lacks create");

  Json state = be.create(loc, "0a1b2c3d");
  expect(state.is_object(), "create returned " + show(state) + ", not a state object");
  auto owner = be.owner(loc);
  expect(owner == "0a1b2c3d", "owner() after create is " + owner.value_or("none") + ", expected 0a1b2c3d");
  auto empty = be.is_ref_empty(loc);
  expect(empty == true, "is_ref_empty() of a new store is " + show_opt(empty) + ", expected true");
  expect(fx.same(fx.fingerprint(loc), state), "the fingerprint of a new store is not the state create returned");

  expect_refused<BackendError>("create where a store exists", "BackendError (never adopt a store)",
                               [&] { be.create(loc, "ffffffff"); });
  owner = be.owner(loc);
  expect(owner == "0a1b2c3d", "a refused create re-owned the store: owner() is " + owner.value_or("none"));

  if (be.capabilities() & TETHER_CAP_FORK) {
    std::string probe = be.fork(loc, Source::of_state(state), fx.working_ref("create-probe"));
    fx.mutate(loc, probe);
    empty = be.is_ref_empty(loc);
    expect(empty == false, "is_ref_empty() with a written branch " + probe + " is " + show_opt(empty) + ", expected false");
    empty = be.is_ref_empty(loc, {probe});
    expect(empty == true, "is_ref_empty(ignoring " + probe + ") is " + show_opt(empty) + ", expected true");
    be.delete_working_ref(loc, probe);
    empty = be.is_ref_empty(loc);
    expect(empty == true, "is_ref_empty() after deleting " + probe + " is " + show_opt(empty) + ", expected true");
  } else {
    fx.mutate(loc);
    empty = be.is_ref_empty(loc);
    expect(empty == false, "is_ref_empty() after a write is " + show_opt(empty) + ", expected false");
  }

  if (be.is_ref_empty(loc) == true) {
    be.delete_store(loc);
    owner = be.owner(loc);
    expect(!owner, "owner() of a deleted store is " + owner.value_or("") + ", expected none");
    expect_refused<BackendError>("fingerprint of a deleted store", "BackendError", [&] { be.fingerprint(loc); });
    Json again = be.create(loc, "0a1b2c3d");
    expect(fx.same(again, state), "re-creating a deleted store gave " + show(again) + ", not the initial state " + show(state));
    be.delete_store(loc);
  }
}

}  // namespace

void add_create_cases(std::vector<Case>& out) {
  out.push_back({"create", "create marks a new store as ours, never adopts one, reports emptiness and deletes cleanly.",
                 TETHER_CAP_CREATE, true, create});
}

}  // namespace tether::conformance
