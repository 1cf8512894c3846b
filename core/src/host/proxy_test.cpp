#include "tether/host/proxy.hpp"

#include <doctest/doctest.h>

#include <mutex>
#include <thread>

#include "test_support.hpp"

using namespace tether::host;
using tether::host::test::test_plugin;
namespace sdk = tether::sdk;
using sdk::Json;

namespace {
BackendProxy load(const std::string& kind) { return BackendProxy(Plugin::load(test_plugin(kind))); }

// Captures plugin log lines for one scope.
struct LogCapture {
  std::mutex mu;
  std::vector<std::string> lines;
  LogCapture() {
    set_log_sink([this](std::string_view kind, int level, std::string_view msg) {
      std::lock_guard lock(mu);
      lines.push_back(std::to_string(level) + " [" + std::string(kind) + "] " + std::string(msg));
    });
  }
  ~LogCapture() { set_log_sink(nullptr); }
  bool has(const std::string& part) {
    std::lock_guard lock(mu);
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};
}  // namespace

TEST_CASE("typed ops over the good plugin") {
  auto b = load("good");
  CHECK(b.kind() == "good");
  CHECK(std::string(b.tier()) == "forkable");
  CHECK(b.has_capability(TETHER_CAP_PIN | TETHER_CAP_MERGE));
  Json loc = {{"uri", "mem://a"}, {"v", 3}};

  sdk::State s = b.fingerprint(loc, std::string("tether.ws.x"));
  CHECK(s["v"] == 3);
  CHECK(s["working_ref"] == "tether.ws.x");
  CHECK(b.content_state(s).contains("lsn") == false);
  CHECK(b.same(Json{{"v", 1}, {"lsn", "a"}}, Json{{"v", 1}, {"lsn", "b"}}));
  CHECK_FALSE(b.same(Json{{"v", 1}}, Json{{"v", 2}}));

  sdk::VerifyReport unknown = b.verify(loc, s, std::nullopt, true);
  CHECK(unknown.status == sdk::VerifyStatus::Unknown);
  CHECK(unknown.message == "deep");
  CHECK(b.verify(loc, s, sdk::Pin{"c0fe5a1e.1", "tether.c0fe5a1e.1", true}).ok());

  Json handle = b.open(loc, sdk::Source::base(), false);
  CHECK(handle["address"] == "good://mem://a");
  CHECK(handle["read_only"] == false);

  sdk::Pin pin = b.pin(loc, s, "c0fe5a1e.0123456789abcdef");
  CHECK(pin.ref == "tether.c0fe5a1e.0123456789abcdef");
  CHECK(b.list_pins(loc) == std::vector<std::string>{"c0fe5a1e.0123456789abcdef"});
}

namespace {
// verify's answer alone, in verify_many's form.
sdk::VerifyOutcome alone(const BackendProxy& b, const sdk::VerifyRequest& r) {
  try {
    return sdk::VerifyOutcome::of(b.verify(r.locator, r.state, r.pin, r.deep));
  } catch (const tether::BackendError& e) {
    const Failure* f = failure_of(e);
    return sdk::VerifyOutcome::failed(f ? f->status() : TETHER_E_BACKEND, e.bare_message());
  }
}
std::string show(const sdk::VerifyOutcome& o) { return Json(o).dump(); }
}  // namespace

TEST_CASE("verify_many answers item by item as verify does, batched or through the per-item fallback") {
  Json loc = {{"uri", "mem://a"}};
  sdk::Pin pin{"c0fe5a1e.1", "tether.c0fe5a1e.1", true};
  std::vector<sdk::VerifyRequest> items{
      {loc, Json{{"v", 1}}, pin, false},
      {loc, Json{{"v", 1}}, std::nullopt, true},
      {Json{{"fail", "cannot reach https://ann:hunter2@store.example/x\nsecond line"}}, Json{{"v", 1}}, pin, false},
      {loc, Json{{"v", 2}}, sdk::Pin{"../../etc/passwd", "tether.../../etc/passwd", true}, false},
  };

  SUBCASE("an SDK plugin without its own verify_many: the SDK's slot loops over verify") {
    auto b = load("good");
    CHECK(b.has_op(Op::VerifyMany));
    CHECK_FALSE(b.description().batch_verify);  // asked item by item: verify keeps many batches
    auto got = b.verify_many(items);
    REQUIRE(got.size() == items.size());
    for (std::size_t i = 0; i < items.size(); ++i) CHECK(show(got[i]) == show(alone(b, items[i])));
    CHECK(got[0].report->ok());
    CHECK(got[1].report->message == "deep");
    // The failing item fails alone, with its status, redacted and on one line.
    REQUIRE_FALSE(got[2].ok());
    CHECK(got[2].status == TETHER_E_IO);
    CHECK(got[2].message.find("hunter2") == std::string::npos);
    CHECK(got[2].message.find('\n') == std::string::npos);
    CHECK(got[3].ok());
    CHECK(b.verify_many({}).empty());
  }
  SUBCASE("exceptions that are not the SDK's: BACKEND with the message, INTERNAL for a non-exception") {
    auto b = load("good");
    std::vector<sdk::VerifyRequest> odd{{Json{{"throw", "std"}}, Json{{"v", 1}}, pin, false},
                                        {Json{{"throw", "int"}}, Json{{"v", 1}}, pin, false}};
    auto got = b.verify_many(odd);
    REQUIRE(got.size() == 2);
    for (std::size_t i = 0; i < odd.size(); ++i) CHECK(show(got[i]) == show(alone(b, odd[i])));
    CHECK(got[0].status == TETHER_E_BACKEND);
    CHECK(got[0].message == "a plain std::exception");
    CHECK(got[1].status == TETHER_E_INTERNAL);
    CHECK(got[1].message == "unknown exception in backend");
  }
  SUBCASE("a plugin built before the slot (NULL): the host calls verify once per item") {
    auto b = load("misbehave");
    CHECK_FALSE(b.has_op(Op::VerifyMany));
    auto got = b.verify_many(items);
    REQUIRE(got.size() == items.size());
    for (std::size_t i = 0; i < items.size(); ++i) CHECK(show(got[i]) == show(alone(b, items[i])));
  }
}

TEST_CASE("history stops at the limit through emit()") {
  auto b = load("good");
  auto all = b.history(Json::object(), std::nullopt, 20);
  REQUIRE(all.size() == 5);
  CHECK(all[0].id == "c5");
  CHECK(all[0].message == "commit 5");
  CHECK(b.history(Json::object(), std::nullopt, 2).size() == 2);
}

TEST_CASE("statuses map to the engine's exceptions, with details") {
  auto b = load("good");
  Json loc = {{"uri", "mem://a"}};

  SUBCASE("REF_MOVED -> RefMovedError with expected/actual") {
    try {
      b.fork(loc, sdk::Source::of_state(Json{{"v", 1}}), "tether.ws.c0fe5a1e.x", sdk::Expected::at(Json{{"v", 1}}),
             "data/raw");
      FAIL("no error");
    } catch (const tether::RefMovedError& e) {
      CHECK(std::string(e.what()) == R"([data/raw] fork: tether.ws.c0fe5a1e.x is at {"v":2}, expected {"v":1})");
      CHECK(e.key() == "data/raw");
      CHECK(e.kind() == "good");
      const Failure* f = failure_of(e);
      REQUIRE(f != nullptr);
      CHECK(f->status() == TETHER_E_REF_MOVED);
      CHECK(f->op() == "fork");
      CHECK(f->details()["ref"] == "tether.ws.c0fe5a1e.x");
      CHECK(f->details()["expected"] == Json{{"v", 1}});
      CHECK(f->details()["actual"] == Json{{"v", 2}});
    }
  }
  SUBCASE("MERGE_CONFLICT -> MergeConflict with the conflicts") {
    try {
      b.merge(loc, sdk::Source::of_ref("tether.ws.x"), "land it");
      FAIL("no error");
    } catch (const tether::MergeConflict& e) {
      CHECK(std::string(e.what()) == "[good] merge stopped on 2 conflicts");
      CHECK(e.conflicts() == std::vector<std::string>{"a.txt", "b.txt"});
    }
  }
  SUBCASE("UNSUPPORTED from the plugin -> CapabilityError") {
    CHECK_THROWS_WITH_AS(b.delete_working_ref(loc, "tether.ws.x", "k"), "[k] this store cannot delete branches",
                         tether::CapabilityError);
  }
  SUBCASE("other statuses -> BackendError keeping the status") {
    try {
      b.unpin(loc, sdk::Pin{"p", "tether.p", true}, "obj");
      FAIL("no error");
    } catch (const tether::BackendError& e) {
      CHECK(dynamic_cast<const tether::RefMovedError*>(&e) == nullptr);
      CHECK(std::string(e.what()) == "[obj] pin tether.p is gone");
      CHECK(failure_of(e)->status() == TETHER_E_NOT_FOUND);
    }
  }
}

TEST_CASE("a NULL capability slot is a CapabilityError, without calling") {
  auto b = load("good");
  Json loc = Json::object();
  CHECK_THROWS_WITH_AS(b.diff(loc, Json{{"v", 1}}, Json{{"v", 2}}), "[good] good backend cannot diff",
                       tether::CapabilityError);
  CHECK_THROWS_WITH_AS(b.promote(loc, sdk::Source::base(), sdk::Expected::none(), "k"),
                       "[k] good backend cannot promote", tether::CapabilityError);
  CHECK_THROWS_AS(b.create(loc, "c0fe5a1e"), tether::CapabilityError);
  CHECK_THROWS_AS(b.owner(loc), tether::CapabilityError);
  CHECK_THROWS_AS(b.is_ref_empty(loc), tether::CapabilityError);
  CHECK_THROWS_AS(b.delete_store(loc), tether::CapabilityError);
  try {
    b.diff(loc, Json::object(), Json::object());
  } catch (const tether::CapabilityError& e) {
    CHECK(failure_of(e)->details()["capability"] == "diff");
  }
  // The plugin saw none of these: its call counter moved only for this fingerprint.
  int before = b.fingerprint(loc)["calls"].get<int>();
  CHECK_THROWS_AS(b.diff(loc, Json::object(), Json::object()), tether::CapabilityError);
  CHECK(b.fingerprint(loc)["calls"].get<int>() == before + 1);
}

TEST_CASE("NULL helper slots get the documented defaults") {
  auto b = load("good");
  Json loc = {{"uri", "mem://é"}, {"branch", "dev"}, {"a", {{"z", 1}, {"b", 2}}}};
  CHECK(b.identity(loc) == loc);
  CHECK_NOTHROW(b.validate_locator(loc));
  CHECK(b.base_branch(loc) == "dev");
  CHECK(b.base_branch(Json{{"uri", "x"}}) == "main");
  CHECK(b.base_branch(Json{{"branch", ""}}) == "main");
  CHECK(b.branch_scope(loc) == R"({"a":{"b":2,"z":1},"branch":"dev","uri":"mem://é"})");
  CHECK(b.ref_namespace(loc) == b.branch_scope(loc));
  CHECK(b.default_key(loc) == std::nullopt);
  CHECK(b.state_addressable(loc, Json{{"v", 1}}));
  CHECK(b.effective_capabilities(loc) == b.capabilities());
  CHECK(b.effective_capabilities(loc, Json{{"pin", "record"}}) == (b.capabilities() & ~uint32_t{TETHER_CAP_PIN}));
  CHECK(b.list_working_refs(loc).empty());
  CHECK(b.working_ref_blockers(loc, "tether.ws.x") == std::nullopt);
  CHECK(b.listing(loc, Json{{"v", 1}}) == std::nullopt);
  CHECK(b.ancestor_of(loc, Json{{"v", 1}}, sdk::Source::base()) == std::nullopt);
  CHECK_NOTHROW(b.check_quiescence(loc));
  // rename_pin's default pins under the new id, then unpins the old (which this plugin refuses).
  CHECK_THROWS_WITH_AS(b.rename_pin(loc, sdk::Pin{"old", "tether.old", true}, Json{{"v", 1}}, "new"),
                       "[good] pin tether.old is gone", tether::BackendError);
}

TEST_CASE("protocol breaches are normalised and logged") {
  LogCapture log;
  auto b = load("misbehave");
  SUBCASE("non-OK without fail()") {
    CHECK_THROWS_WITH_AS(b.fingerprint(Json::object(), std::nullopt, "k"),
                         "[k] backend returned IO without a message", tether::BackendError);
    CHECK(log.has("2 [misbehave] plugin protocol breach: returned IO without calling fail()"));
  }
  SUBCASE("OK after fail() is a failure") {
    try {
      b.verify(Json::object(), Json{{"v", 1}}, std::nullopt);
      FAIL("no error");
    } catch (const tether::BackendError& e) {
      CHECK(std::string(e.what()) == "[misbehave] verify: store is corrupt");
      CHECK(failure_of(e)->status() == TETHER_E_CORRUPT);
    }
    CHECK(log.has("returned OK after fail()"));
  }
  SUBCASE("fail twice, reply after fail: the first fail wins; the request was padded") {
    CallResult r = b.plugin().call(Op::Open, R"({"locator":{}})");
    CHECK(r.status == TETHER_E_NOT_FOUND);
    CHECK(r.message == "open: first failure (padded)");
    CHECK(r.fails == 2);
    CHECK(r.replies == 1);
    CHECK(r.problems.size() == 2);
    CHECK(log.has("fail() called more than once"));
    CHECK(log.has("reply() after fail()"));
  }
  SUBCASE("a reply nested beyond the limit is a BackendError, not a stack overflow") {
    CHECK_THROWS_WITH_AS(b.identity(Json{{"uri", "x"}}, "k"),
                         "[k] identity sent a malformed reply: nesting deeper than 160 levels", tether::BackendError);
  }
  SUBCASE("an unknown status is a BackendError") {
    try {
      b.list_pins(Json::object());
      FAIL("no error");
    } catch (const tether::BackendError& e) {
      CHECK(dynamic_cast<const tether::CapabilityError*>(&e) == nullptr);
      CHECK(std::string(e.what()) == "[misbehave] list_pins: something new");
      CHECK(failure_of(e)->status() == 99);
      CHECK(failure_of(e)->details()["hint"] == 1);
    }
  }
}

TEST_CASE("plugin log lines go to the sink") {
  LogCapture log;
  auto b = load("good");
  b.fingerprint(Json{{"log", 1}});
  CHECK(log.has("1 [good] hello from good"));
}

namespace {
// Max concurrent fingerprint calls seen by the plugin after 4 threads x 3 slow calls.
int max_concurrency(BackendProxy& b) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&b] {
      for (int j = 0; j < 3; ++j) b.fingerprint(Json{{"sleep_ms", 15}});
    });
  for (auto& t : threads) t.join();
  return b.fingerprint(Json::object())["max_active"].get<int>();
}
}  // namespace

TEST_CASE("progress reaches the sink from any thread, named by the object, its words made printable") {
  struct Seen {
    std::string kind, key, step, unit;
    uint64_t done, total, bytes;
  };
  auto seen = std::make_shared<std::vector<Seen>>();
  auto mu = std::make_shared<std::mutex>();
  set_progress_sink([seen, mu](const ProgressEvent& e) {
    std::lock_guard lock(*mu);
    seen->push_back({std::string(e.kind), std::string(e.key), std::string(e.step), std::string(e.unit), e.done, e.total,
                     e.bytes});
  });
  auto b = load("goodmt");
  b.fingerprint(Json{{"progress", Json::array({"hashing", "files"})}}, std::nullopt, "data");
  // A hostile or careless word: control bytes (a terminal escape) and no end in sight.
  b.fingerprint(Json{{"progress", Json::array({"\x1b[2Jwipe\nline", std::string(100, 'u')})}}, std::nullopt, "raw");
  set_progress_sink(nullptr);
  b.fingerprint(Json{{"progress", Json::array({"unseen", "files"})}}, std::nullopt, "data");  // no sink: dropped
  REQUIRE(seen->size() == 4);
  const Seen& a = (*seen)[0];
  CHECK((a.kind == "goodmt" && a.key == "data" && a.step == "hashing" && a.unit == "files"));
  CHECK((a.done == 1 && a.total == 2 && a.bytes == 100));
  const Seen& plain = (*seen)[1];  // the plain progress(), from the plugin's own thread
  CHECK((plain.key == "data" && plain.step.empty() && plain.unit.empty() && plain.done == 2 && plain.bytes == 0));
  CHECK((*seen)[2].key == "raw");
  CHECK((*seen)[2].step == "?[2Jwipe?line");
  CHECK((*seen)[2].unit == std::string(24, 'u'));
  // Outside any call the key is empty again.
  {
    ObjectScope scope("outer");
    { ObjectScope inner("inner"); }
    set_progress_sink([seen, mu](const ProgressEvent& e) {
      std::lock_guard lock(*mu);
      seen->push_back({std::string(e.kind), std::string(e.key), "", "", e.done, 0, 0});
    });
    b.fingerprint(Json{{"progress", Json::array({"x", "y"})}});  // the proxy's own key ("") wins inside the call
    set_progress_sink(nullptr);
  }
  REQUIRE(seen->size() == 6);
  CHECK((*seen)[4].key.empty());
}

TEST_CASE("calls on a non-thread-safe plugin are serialised; a thread-safe one runs concurrently") {
  auto serial = load("good");
  CHECK(max_concurrency(serial) == 1);
  auto parallel = load("goodmt");
  CHECK(parallel.description().thread_safe);
  CHECK(max_concurrency(parallel) > 1);
}

TEST_CASE("cancellation flag is visible to plugins") {
  set_cancelled(true);
  CHECK(cancelled());
  CHECK(host_services()->cancelled(nullptr) == 1);
  set_cancelled(false);
  CHECK(host_services()->cancelled(nullptr) == 0);
}
