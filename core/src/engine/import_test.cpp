// Unit tests of `import` (import.cpp): rows of a CSV or JSONL source become add / update /
// remove actions, a dry run writes nothing, --sync removes what the source does not list, and
// nothing records a state (only commit does). Real git, the memory backend in process.
#include <doctest/doctest.h>

#include "engine/testing/dataset.hpp"
#include "tether/engine/import.hpp"
#include "tether/testing/errors.hpp"
#include "tether/testing/temp_dir.hpp"

using namespace tether::engine;
using tether::engine::testing::Dataset;
using tether::testing::contains;

namespace {

ImportResult import_from(const Dataset& ds, const std::filesystem::path& source, bool sync = false,
                         bool dry_run = false) {
  ImportOptions o;
  o.source = source.string();
  o.sync = sync;
  o.dry_run = dry_run;
  o.cwd = ds.root();
  return tether::engine::import_objects(*ds.open(), o);
}

}  // namespace

TEST_CASE("import registers the rows of a CSV, plans first and records no state") {
  Dataset ds;
  tether::testing::TempDir src;
  const auto csv = src.file("objects.csv", "key,kind,uri\r\ndb,memory,sys1\r\nlog,memory,sys2\r\n");
  const std::string head = ds.head();

  const auto dry = import_from(ds, csv, false, true);
  CHECK_FALSE(dry.applied);
  CHECK(dry.plan.actions.size() == 2);
  CHECK(ds.open()->manifests().empty());

  const auto r = import_from(ds, csv);
  CHECK(r.applied);
  CHECK(r.added == std::vector<std::string>{"db", "log"});
  const auto manifests = ds.open()->manifests();
  REQUIRE(manifests.count("db") == 1);
  CHECK(manifests.at("db").kind == "memory");
  CHECK_FALSE(manifests.at("db").state);  // nothing recorded until commit
  CHECK(ds.head() == head);
  CHECK(ds.tags("sys1").empty());

  // The same rows again change nothing.
  const auto again = import_from(ds, csv);
  CHECK(again.added.empty());
  CHECK(again.unchanged.size() == 2);
}

TEST_CASE("import --sync removes what the source no longer lists; JSONL updates a locator") {
  Dataset ds;
  tether::testing::TempDir src;
  import_from(ds, src.file("a.csv", "key,kind,uri\ndb,memory,sys1\nlog,memory,sys2\n"));
  const auto jsonl = src.file("b.jsonl", R"({"key": "db", "kind": "memory", "uri": "sys9"})"
                                         "\n");
  const auto kept = import_from(ds, jsonl);
  CHECK(kept.updated == std::vector<std::string>{"db"});
  CHECK(kept.removed.empty());
  CHECK(ds.open()->manifests().count("log") == 1);

  const auto synced = import_from(ds, jsonl, /*sync=*/true);
  CHECK(synced.removed == std::vector<std::string>{"log"});
  CHECK(ds.open()->manifests().count("log") == 0);
}

TEST_CASE("import refuses a row with an unsafe key and registers nothing") {
  Dataset ds;
  tether::testing::TempDir src;
  const auto csv = src.file("bad.csv", "key,kind,uri\nok,memory,sys1\n../escape,memory,sys2\n");
  const std::string error = tether::testing::error_of([&] { import_from(ds, csv); });
  CHECK(contains(error, "../escape"));
  CHECK(ds.open()->manifests().empty());
}
