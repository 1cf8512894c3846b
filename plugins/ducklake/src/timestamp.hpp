// timestamp: DuckLake snapshot times as text (docs/backends.md#ducklake). SQLite catalogs hold
// the text DuckDB prints for a TIMESTAMPTZ in the writer's session time zone; Postgres prints
// the same shape once the session is in UTC with DateStyle ISO. One parser serves both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tether::ducklake {

// Microseconds since the Unix epoch (DuckDB's epoch_us) of `YYYY-MM-DD[ T]HH:MM:SS[.f{1,9}]`
// with an optional zone `Z`, `±HH`, `±HH:MM`, `±HH:MM:SS` or `±HHMM[SS]` (none: UTC). Digits
// beyond microseconds are truncated. nullopt when the text is not such a timestamp.
std::optional<int64_t> parse_timestamp_us(std::string_view text);

// ISO-8601 UTC to the second, as Python's isoformat(timespec="seconds"):
// 2026-05-04T08:00:02+00:00 (the fraction truncated).
std::string iso_utc_seconds(int64_t epoch_us);

}  // namespace tether::ducklake
