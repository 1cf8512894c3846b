// The synthetic fixture's expected results (the reference backend's diff scenario; the
// fixtures come from the `ducklake_fixtures` build option), asserted through the plugin for
// any catalog holding it: a SQLite file or a Postgres schema. `exec` runs SQL against that
// catalog, to expire and rewrite snapshots.
#pragma once

#include <functional>

#include "support.hpp"

namespace tether::ducklake::testing {

inline constexpr int64_t kS2 = 1777881600500000;  // 2026-05-04 08:00:00.5+00
inline constexpr int64_t kS7 = 1777881602702055;  // 2026-05-04 08:00:02.702055+00

inline void check_synthetic(Plugin& be, const Json& locator, const std::function<void(const std::string&)>& exec) {
  // Fingerprint: the newest snapshot, or the locator's `at`.
  CHECK(be->fingerprint(locator) == state(7, kS7));
  Json at2 = locator;
  at2["at"] = "2";
  CHECK(be->fingerprint(at2) == state(2, kS2));
  Json at99 = locator;
  at99["at"] = "99";
  CHECK(contains(error_of([&] { be->fingerprint(at99); }), "snapshot '99' is not in the catalog"));

  // History: newest first, the reference's words.
  auto h = be->history(locator, std::nullopt, 3);
  REQUIRE(h.size() == 3);
  CHECK(h[0].id == "7");
  CHECK(h[1].id == "6");
  CHECK(h[2].id == "5");
  CHECK(h[0].message == "dropped: main.gone");
  CHECK(h[1].message == "created: main.gone");
  CHECK(h[2].message == "created: main.u");
  CHECK(h[0].when == "2026-05-04T08:00:02+00:00");
  auto all = be->history(locator, std::nullopt, 100);
  REQUIRE(all.size() == 8);
  const char* messages[] = {"schema created: main", "created: main.t",      "rows inserted: main.t",
                            "rows inserted: main.t", "rows deleted: main.t", "created: main.u",
                            "created: main.gone",   "dropped: main.gone"};
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(all[static_cast<std::size_t>(7 - i)].id == std::to_string(i));
    CHECK(all[static_cast<std::size_t>(7 - i)].message == messages[i]);
  }
  auto from4 = be->history(locator, std::string("4"), 2);
  REQUIRE(from4.size() == 2);
  CHECK(from4[0].id == "4");
  CHECK(from4[1].id == "3");
  CHECK(be->history(locator, std::nullopt, 1).front().id == all.front().id);
  CHECK(be->history(at2, std::nullopt, 100).size() == 3);
  CHECK(be->fingerprint(at2)["snapshot_id"] == std::stoll(be->history(at2, std::nullopt, 1)[0].id));

  // Diff (2, 7]: the reference's expectations, row counts from metadata.
  auto d = be->diff(locator, state(2, kS2), state(7, kS7));
  CHECK(d.unit == "tables");
  CHECK(d.summary() == "+1 -1 ~1 tables");
  REQUIRE(d.entries.size() == 3);
  CHECK(d.entries[0].path == "main.gone");
  CHECK(d.entries[0].change == "removed");
  CHECK(d.entries[0].detail == "dropped");
  CHECK(d.entries[1].path == "main.t");
  CHECK(d.entries[1].change == "modified");
  CHECK(d.entries[1].detail == "+5000 rows, -2 rows");
  CHECK(d.entries[2].path == "main.u");
  CHECK(d.entries[2].change == "added");
  CHECK(d.entries[2].detail == "created");
  CHECK(d.note.empty());
  CHECK(be->diff(locator, state(2, kS2), state(2, kS2)).empty());
  auto same_id = be->diff(locator, state(2, kS2), state(2, kS2 + 1));
  CHECK(same_id.empty());
  CHECK(same_id.note == "catalog was recreated between the two states");
  auto back = be->diff(locator, state(7, kS7), state(2, kS2));
  CHECK(contains(back.note, "older"));
  CHECK(back.entries.size() == 3);
  auto created = be->diff(locator, state(0, 0), state(7, kS7));
  REQUIRE(created.entries.size() == 3);
  CHECK(created.entries[1].path == "main.t");
  CHECK(created.entries[1].change == "added");
  CHECK(created.entries[1].detail == "+5002 rows, -2 rows, created");
  auto inserts = be->diff(locator, state(1, 0), state(3, 0));
  REQUIRE(inserts.entries.size() == 1);
  CHECK(inserts.entries[0].detail == "+5002 rows");
  auto deletes = be->diff(locator, state(3, 0), state(4, 0));
  REQUIRE(deletes.entries.size() == 1);
  CHECK(deletes.entries[0].detail == "-2 rows");
  auto schema = be->diff(locator, state(7, kS7), state(0, 0));
  CHECK(contains(schema.note, "different commit time"));  // snapshot 0 was not recorded at time 0

  // Verify and open while everything is there.
  CHECK(be->verify(locator, state(7, kS7), std::nullopt).status == sdk::VerifyStatus::Ok);
  CHECK(be->verify(locator, state(2, kS2), std::nullopt).status == sdk::VerifyStatus::Ok);
  Json h7 = be->open(locator);
  CHECK(h7["snapshot_id"] == 7);
  CHECK(h7["read_only"] == true);
  CHECK(h7["attach_sql"].get<std::string>().find("SNAPSHOT_VERSION") == std::string::npos);
  Json h2 = be->open(locator, sdk::Source::of_state(state(2, kS2)));
  CHECK(h2["snapshot_id"] == 2);
  CHECK(contains(h2["attach_sql"].get<std::string>(), "SNAPSHOT_VERSION 2, READ_ONLY)"));
  CHECK(contains(h2["address"].get<std::string>(), "#snapshot=2"));
  CHECK(contains(error_of([&] { be->open(locator, sdk::Source::of_state(state(2, kS2 + 1))); }), "different commit time"));

  // Expire snapshot 2 as ducklake_expire_snapshots(versions => [2]) does here.
  exec("DELETE FROM ducklake_snapshot WHERE snapshot_id = 2; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 2;");
  auto gone = be->verify(locator, state(2, kS2), std::nullopt);
  CHECK(gone.status == sdk::VerifyStatus::Missing);
  CHECK(contains(gone.message, "snapshot 2 is not in the catalog"));
  CHECK(contains(gone.message, "retention removed it"));
  CHECK(be->verify(locator, state(7, kS7), std::nullopt).status == sdk::VerifyStatus::Ok);
  CHECK(contains(error_of([&] { be->open(locator, sdk::Source::of_state(state(2, kS2))); }), "retention removed it"));
  CHECK(contains(be->diff(locator, state(1, 0), state(3, 0)).note, "1 snapshot in between expired"));
  auto newer = be->verify(locator, state(9, kS7), std::nullopt);
  CHECK(newer.status == sdk::VerifyStatus::Missing);
  CHECK(contains(newer.message, "recreated"));

  // A catalog recreated with as many commits: the same id, another time.
  exec("UPDATE ducklake_snapshot SET snapshot_time = '2026-05-05 10:00:00+02' WHERE snapshot_id = 7;");
  auto drifted = be->verify(locator, state(7, kS7), std::nullopt);
  CHECK(drifted.status == sdk::VerifyStatus::Drifted);
  CHECK(contains(drifted.message, "different commit time"));
  CHECK(be->fingerprint(locator) == state(7, 1777968000000000));
}

}  // namespace tether::ducklake::testing
