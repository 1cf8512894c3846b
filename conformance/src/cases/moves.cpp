// conformance/src/cases/moves.cpp: conditional ref moves (docs/writing-a-backend.md: the
// conditional-fork checks, the CONDITIONAL_REF race, ancestry, promote and merge). In the
// C ABI every plugin honours `expected`; CONDITIONAL_REF says the check and the move are one
// atomic step, which the race proves with real threads.
#include <atomic>
#include <barrier>
#include <thread>

#include "../suite.hpp"

namespace tether::conformance {
namespace {

using sdk::Expected;
using sdk::Source;

// A fresh object (written once first when `written_base`) with a branch forked from its
// base state and written once: the setup of every check below.
struct Forked {
  Json loc, source, head;
  std::string wref;
};
Forked forked(Fixture& fx, const std::string& bookmark, bool written_base = false) {
  Forked f;
  f.loc = fx.new_object();
  if (written_base) fx.mutate(f.loc);
  f.source = fx.fingerprint(f.loc);
  f.wref = fx.backend().fork(f.loc, Source::of_state(f.source), fx.working_ref(bookmark));
  fx.mutate(f.loc, f.wref);
  f.head = fx.fingerprint(f.loc, f.wref);
  expect(!fx.same(f.head, f.source), "a write on " + f.wref + " did not change it");
  return f;
}

// fork(expected=...) that must be refused with RefMovedError carrying expected/actual, and
// leave the branch where it was.
void expect_stale_fork(Fixture& fx, const Json& loc, const Json& source, const std::string& wref, const Expected& e,
                       const Json& head, const std::string& what) {
  try {
    fx.backend().fork(loc, Source::of_state(source), wref, e);
    fail("fork(" + what + ") moved " + wref + "; a stale expected must be refused with REF_MOVED");
  } catch (const RefMovedError& err) {
    const host::Failure* f = host::failure_of(err);
    expect(f && f->details().contains("expected") && f->details().contains("actual"),
           "REF_MOVED from fork carries no expected/actual details: " + (f ? show(f->details()) : std::string("{}")));
  } catch (const CaseFailed&) {
    throw;
  } catch (const std::exception& err) {
    fail("fork(" + what + ") raised " + describe_error(err) + " (" + err.what() + "), expected REF_MOVED");
  }
  expect(fx.same(fx.fingerprint(loc, wref), head), "a refused fork(" + what + ") moved " + wref);
}

void fork_conditional(Fixture& fx) {
  auto& be = fx.backend();
  // Named copies, not a structured binding: lambdas below capture them (clang 14 cannot
  // capture bindings).
  const Forked forked_ = forked(fx, "conformance-cas");
  const auto& loc = forked_.loc;
  const auto& source = forked_.source;
  const auto& head = forked_.head;
  const auto& wref = forked_.wref;

  expect_stale_fork(fx, loc, source, wref, Expected::at(source), head, "expected = the stale head");
  expect_stale_fork(fx, loc, source, wref, Expected::absent(), head, "expected = absent, on an existing branch");

  std::string fresh = be.fork(loc, Source::of_state(source), fx.working_ref("conformance-cas-fresh"), Expected::absent());
  expect(fx.same(fx.fingerprint(loc, fresh), source), "fork(expected = absent) of a new branch does not start at the source");
  be.delete_working_ref(loc, fresh);

  std::string moved = be.fork(loc, Source::of_state(source), wref, Expected::at(head));
  expect(fx.same(fx.fingerprint(loc, moved), source), "fork(expected = the current head) did not move " + wref + " to the source");
  be.delete_working_ref(loc, moved);
}

// kRacers threads wait on a barrier, then all fork with the same `expected`: count the winners.
int race(Fixture& fx, const Json& loc, const Json& source, const std::string& name, const Expected& e,
         std::vector<std::string>& odd) {
  std::barrier start(kRacers);
  std::atomic<int> wins{0};
  std::mutex mu;
  std::vector<std::thread> threads;
  for (int i = 0; i < kRacers; ++i)
    threads.emplace_back([&] {
      start.arrive_and_wait();
      try {
        fx.backend().fork(loc, Source::of_state(source), name, e);
        ++wins;
      } catch (const BackendError&) {
        // a refusal (REF_MOVED or another backend error)
      } catch (const std::exception& ex) {
        std::lock_guard lock(mu);
        odd.push_back(ex.what());
      }
    });
  for (auto& t : threads) t.join();
  return wins.load();
}

bool conditional(Fixture& fx, const Json& loc) {
  if (fx.has(TETHER_CAP_CONDITIONAL_REF)) return true;
  return (fx.backend().effective_capabilities(loc) & TETHER_CAP_CONDITIONAL_REF) != 0;
}

void fork_race(Fixture& fx) {
  Json loc = fx.new_object();
  if (!conditional(fx, loc)) skip("the backend lacks conditional_ref");
  Json source = fx.fingerprint(loc);
  std::string name = fx.working_ref("conformance-race");
  std::vector<std::string> odd;

  int wins = race(fx, loc, source, name, Expected::absent(), odd);
  expect(odd.empty(), "a racing fork failed with an unexpected error: " + (odd.empty() ? "" : odd.front()));
  expect(wins == 1, std::to_string(wins) + " of " + std::to_string(kRacers) +
                        " racing forks that create one branch from the same `expected` went through; a conditional "
                        "move lets exactly one");
  expect(fx.same(fx.fingerprint(loc, name), source), "after the create race " + name + " is not at the source");

  fx.mutate(loc, name);
  Json head = fx.fingerprint(loc, name);
  wins = race(fx, loc, source, name, Expected::at(head), odd);
  expect(odd.empty(), "a racing fork failed with an unexpected error: " + (odd.empty() ? "" : odd.front()));
  expect(wins == 1, std::to_string(wins) + " of " + std::to_string(kRacers) +
                        " racing forks that reset one branch from the same `expected` went through; a conditional "
                        "move lets exactly one");
  expect(fx.same(fx.fingerprint(loc, name), source), "after the reset race " + name + " is not at the source");
  fx.backend().delete_working_ref(loc, name);
}

void ancestry(Fixture& fx) {
  if (!fx.has(TETHER_CAP_PROMOTE) && !fx.has(TETHER_CAP_MERGE)) skip("the backend lacks promote and merge");
  auto& be = fx.backend();
  // Named copies, not a structured binding: lambdas below capture them (clang 14 cannot
  // capture bindings).
  const Forked forked_ = forked(fx, "conformance-ancestry");
  const auto& loc = forked_.loc;
  const auto& source = forked_.source;
  const auto& head = forked_.head;
  const auto& wref = forked_.wref;
  auto forward = be.ancestor_of(loc, source, Source::of_ref(wref));
  auto backward = be.ancestor_of(loc, head, Source::of_state(source));
  auto name = [](const std::optional<bool>& b) { return b ? (*b ? std::string("true") : std::string("false")) : "none"; };
  if (!be.has_op(host::Op::AncestorOf)) {
    expect(!forward && !backward, "the default ancestor_of must answer none");
  } else {
    expect(forward == true, "ancestor_of(fork point, fork) is " + name(forward) + ", expected true");
    expect(backward == false, "ancestor_of(fork head, fork point) is " + name(backward) + ", expected false");
  }
  be.delete_working_ref(loc, wref);
}

void promote(Fixture& fx) {
  auto& be = fx.backend();
  // Named copies, not a structured binding: lambdas below capture them (clang 14 cannot
  // capture bindings).
  const Forked forked_ = forked(fx, "conformance-promote", true);
  const auto& loc = forked_.loc;
  const auto& base = forked_.source;
  const auto& fork_head = forked_.head;
  const auto& wref = forked_.wref;

  expect_refused<RefMovedError>("promote(expected = the fork's head, not the base's)", "REF_MOVED",
                                [&] { be.promote(loc, Source::of_ref(wref), Expected::at(fork_head)); });
  expect(fx.same(fx.fingerprint(loc), base), "a refused promote moved the base");
  Json moved = be.promote(loc, Source::of_ref(wref), Expected::at(base));
  expect(fx.same(moved, fx.fingerprint(loc)), "promote returned " + show(moved) + ", not the base's new state");
  expect(!fx.same(moved, base), "promote of a written fork left the base where it was");
  auto kept = be.ancestor_of(loc, base, Source::of_state(moved));
  expect(kept != false, "after promote the old base is not an ancestor of the new one: history was discarded");

  if (fx.same(moved, fork_head)) {
    Json again = be.promote(loc, Source::of_ref(wref));
    expect(fx.same(again, moved), "promoting a branch the base already holds is not a no-op");
  }

  fx.mutate(loc);
  fx.mutate(loc, wref);
  Json diverged = fx.fingerprint(loc);
  expect_refused<BackendError>("promote after the base and the fork diverged", "BackendError (not a fast-forward)",
                               [&] { be.promote(loc, Source::of_ref(wref)); });
  expect(fx.same(fx.fingerprint(loc), diverged), "a refused promote moved the base");
  expect_refused<RefMovedError>("promote(expected = a stale base)", "REF_MOVED",
                                [&] { be.promote(loc, Source::of_ref(wref), Expected::at(moved)); });
  expect(fx.same(fx.fingerprint(loc), diverged), "a refused promote moved the base");
  be.delete_working_ref(loc, wref);
}

void merge(Fixture& fx) {
  auto& be = fx.backend();
  // Named copies, not a structured binding: lambdas below capture them (clang 14 cannot
  // capture bindings).
  const Forked forked_ = forked(fx, "conformance-merge");
  const auto& loc = forked_.loc;
  const auto& base = forked_.source;
  const auto& fork_head = forked_.head;
  const auto& wref = forked_.wref;
  fx.mutate(loc);
  Json before = fx.fingerprint(loc);

  expect_refused<RefMovedError>("merge(expected = a stale base)", "REF_MOVED",
                                [&] { be.merge(loc, Source::of_ref(wref), "conformance merge", Expected::at(base)); });
  expect(fx.same(fx.fingerprint(loc), before), "a refused merge moved the base");
  Json merged = be.merge(loc, Source::of_ref(wref), "conformance merge", Expected::at(before));
  expect(fx.same(merged, fx.fingerprint(loc)), "merge returned " + show(merged) + ", not the base's new state");
  expect(!fx.same(merged, before), "merge of a diverged fork left the base where it was");
  expect(!fx.same(merged, fork_head), "merge of a diverged fork is the fork's head, not a new state");
  auto kept = be.ancestor_of(loc, before, Source::of_state(merged));
  expect(kept != false, "after merge the old base is not an ancestor of the result: history was discarded");

  expect_refused<RefMovedError>("merge again with the pre-merge expected", "REF_MOVED",
                                [&] { be.merge(loc, Source::of_ref(wref), "conformance merge", Expected::at(before)); });
  expect(fx.same(fx.fingerprint(loc), merged), "a refused merge moved the base");
  be.delete_working_ref(loc, wref);
}

}  // namespace

void add_move_cases(std::vector<Case>& out) {
  out.push_back({"fork-conditional", "fork honours `expected`: a stale head or an existing branch is REF_MOVED and moves nothing.",
                 TETHER_CAP_FORK, true, fork_conditional});
  out.push_back({"fork-race", "8 threads fork with the same `expected` at once: exactly one wins, twice.",
                 TETHER_CAP_FORK, true, fork_race});
  out.push_back({"ancestry", "ancestor_of sees the fork point under the fork's head and not the other way round.",
                 TETHER_CAP_FORK, true, ancestry});
  out.push_back({"promote", "promote fast-forwards the base, honours `expected` and refuses a diverged base.",
                 TETHER_CAP_FORK | TETHER_CAP_PROMOTE, true, promote});
  out.push_back({"merge", "merge makes a new state on a diverged base, honours `expected` and keeps history.",
                 TETHER_CAP_FORK | TETHER_CAP_MERGE, true, merge});
}

}  // namespace tether::conformance
