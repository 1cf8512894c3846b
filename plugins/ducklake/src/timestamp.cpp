#include "timestamp.hpp"

#include <cstdio>

namespace tether::ducklake {
namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kSecondsPerDay = 86400;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t& y, int64_t& m, int64_t& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = yoe + era * 400 + (m <= 2);
}

bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t days_in_month(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// A cursor over the text; every reader returns false without consuming on a mismatch.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;

  bool done() const { return i >= s.size(); }
  char peek() const { return done() ? '\0' : s[i]; }
  bool digit() const { return !done() && s[i] >= '0' && s[i] <= '9'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i;
    return true;
  }
  // Between `min` and `max` digits.
  bool number(std::size_t min, std::size_t max, int64_t& out) {
    std::size_t start = i;
    out = 0;
    while (digit() && i - start < max) out = out * 10 + (s[i++] - '0');
    if (i - start < min) {
      i = start;
      return false;
    }
    return true;
  }
};

// The zone's offset east of UTC in seconds.
bool parse_zone(Cursor& c, int64_t& offset) {
  offset = 0;
  if (c.done()) return true;
  if (c.eat('Z') || c.eat('z')) return true;
  int64_t sign = 0;
  if (c.eat('+')) sign = 1;
  else if (c.eat('-')) sign = -1;
  else return false;
  int64_t hh = 0, mm = 0, ss = 0;
  if (!c.number(2, 2, hh)) return false;
  if (c.eat(':')) {
    if (!c.number(2, 2, mm)) return false;
    if (c.eat(':') && !c.number(2, 2, ss)) return false;
  } else if (c.digit()) {
    if (!c.number(2, 2, mm)) return false;
    if (c.digit() && !c.number(2, 2, ss)) return false;
  }
  if (hh > 23 || mm > 59 || ss > 59) return false;
  offset = sign * (hh * 3600 + mm * 60 + ss);
  return true;
}

}  // namespace

std::optional<int64_t> parse_timestamp_us(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  Cursor c{text};
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!c.number(4, 6, y) || !c.eat('-') || !c.number(1, 2, mo) || !c.eat('-') || !c.number(1, 2, d)) return std::nullopt;
  if (!c.eat(' ') && !c.eat('T') && !c.eat('t')) return std::nullopt;
  if (!c.number(1, 2, h) || !c.eat(':') || !c.number(1, 2, mi) || !c.eat(':') || !c.number(1, 2, s)) return std::nullopt;
  int64_t micros = 0;
  if (c.eat('.')) {
    std::size_t start = c.i;
    int64_t scale = 100000;
    while (c.digit()) {
      if (c.i - start >= 9) return std::nullopt;
      micros += (c.s[c.i] - '0') * scale;
      scale /= 10;
      ++c.i;
    }
    if (c.i == start) return std::nullopt;
  }
  c.eat(' ');
  int64_t offset = 0;
  if (!parse_zone(c, offset) || !c.done()) return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59) return std::nullopt;
  int64_t secs = days_from_civil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s - offset;
  return secs * kMicrosPerSecond + micros;
}

std::string iso_utc_seconds(int64_t epoch_us) {
  int64_t secs = epoch_us / kMicrosPerSecond;
  if (epoch_us % kMicrosPerSecond < 0) --secs;  // floor, as Python truncates towards the past
  int64_t days = secs / kSecondsPerDay, rem = secs % kSecondsPerDay;
  if (rem < 0) rem += kSecondsPerDay, --days;
  int64_t y = 0, m = 0, d = 0;
  civil_from_days(days, y, m, d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld+00:00", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(rem / 3600),
                static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60));
  return buf;
}

}  // namespace tether::ducklake
