// Snapshot times as SQLite and Postgres catalogs hold them (docs/backends.md#ducklake).
#include <doctest/doctest.h>

#include "timestamp.hpp"

using tether::ducklake::iso_utc_seconds;
using tether::ducklake::parse_timestamp_us;

TEST_CASE("one instant in three session time zones") {
  CHECK(parse_timestamp_us("2026-05-04 08:00:02.702055+00") == 1777881602702055);
  CHECK(parse_timestamp_us("2026-05-04 13:30:02.702055+05:30") == 1777881602702055);
  CHECK(parse_timestamp_us("2026-05-04 04:00:02.702055-04") == 1777881602702055);
  CHECK(parse_timestamp_us("2026-05-04 08:00:00.5+00") == 1777881600500000);
}

TEST_CASE("fractions: trimmed zeros, none at all, up to nine digits truncated to microseconds") {
  CHECK(parse_timestamp_us("2026-05-04 08:00:00+00") == 1777881600000000);
  CHECK(parse_timestamp_us("2026-05-04 08:00:00.01725+00") == 1777881600017250);
  CHECK(parse_timestamp_us("2025-06-02 15:36:37.048+00") == 1748878597048000);
  CHECK(parse_timestamp_us("2026-05-04 08:00:00.123456789+00") == 1777881600123456);
  CHECK(parse_timestamp_us("2026-05-04 08:00:00.1234567+00") == 1777881600123456);
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:00:00.+00"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:00:00.1234567890+00"));
}

TEST_CASE("zones: Z, none (UTC), ±HH, ±HH:MM, ±HH:MM:SS, ±HHMM, historic LMT offsets") {
  const int64_t t = 1777881602000000;  // 2026-05-04 08:00:02 UTC
  CHECK(parse_timestamp_us("2026-05-04T08:00:02Z") == t);
  CHECK(parse_timestamp_us("2026-05-04 08:00:02") == t);
  CHECK(parse_timestamp_us("2026-05-04T08:00:02+00:00") == t);
  CHECK(parse_timestamp_us("2026-05-04 09:00:02+01") == t);
  CHECK(parse_timestamp_us("2026-05-04 13:45:02+0545") == t);
  CHECK(parse_timestamp_us("2026-05-04 02:30:02-05:30") == t);
  CHECK(parse_timestamp_us("2026-05-04 08:17:32+00:17:30") == t);
  CHECK(parse_timestamp_us("2026-05-04 08:17:32+001730") == t);
  CHECK(parse_timestamp_us("  2026-05-04 08:00:02+00\n") == t);
}

TEST_CASE("the calendar: day and year boundaries, leap days, before the epoch") {
  CHECK(parse_timestamp_us("1970-01-01 00:00:00+00") == 0);
  CHECK(parse_timestamp_us("1970-01-01 01:00:00+01") == 0);
  CHECK(parse_timestamp_us("1969-12-31 23:59:59.5+00") == -500000);
  CHECK(parse_timestamp_us("2024-02-29 00:00:00+00") == 1709164800000000);
  CHECK(parse_timestamp_us("2027-01-01 02:00:00+05") == 1798750800000000);  // 2026-12-31 21:00 UTC
  CHECK_FALSE(parse_timestamp_us("2026-02-29 00:00:00+00"));
  CHECK_FALSE(parse_timestamp_us("2026-13-01 00:00:00+00"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 24:00:00+00"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:60:00+00"));
}

TEST_CASE("not timestamps") {
  CHECK_FALSE(parse_timestamp_us(""));
  CHECK_FALSE(parse_timestamp_us("2026-05-04"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:00"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04x08:00:00"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:00:00+5"));
  CHECK_FALSE(parse_timestamp_us("2026-05-04 08:00:00+00 UTC"));
  CHECK_FALSE(parse_timestamp_us("1777881602702055"));
}

TEST_CASE("history times: ISO-8601 UTC to the second, the fraction truncated") {
  CHECK(iso_utc_seconds(1777881602702055) == "2026-05-04T08:00:02+00:00");
  CHECK(iso_utc_seconds(1777881600500000) == "2026-05-04T08:00:00+00:00");
  CHECK(iso_utc_seconds(0) == "1970-01-01T00:00:00+00:00");
  CHECK(iso_utc_seconds(-500000) == "1969-12-31T23:59:59+00:00");
  CHECK(iso_utc_seconds(1709164800000000) == "2024-02-29T00:00:00+00:00");
}
