// What the progress line says and when it is redrawn, on a clock the test moves.
#include "cli/progress_line.hpp"

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using tether::cli::group_digits;
using tether::cli::human_bytes;
using tether::cli::ProgressClock;
using tether::cli::ProgressLine;
using tether::host::ProgressEvent;

namespace {

ProgressEvent hashing(uint64_t done, uint64_t total, uint64_t bytes, std::string_view key = "data") {
  ProgressEvent e;
  e.kind = "file";
  e.key = key;
  e.step = "hashing";
  e.unit = "files";
  e.done = done;
  e.total = total;
  e.bytes = bytes;
  return e;
}

}  // namespace

TEST_CASE("numbers: digits grouped by thousands, bytes in decimal units") {
  CHECK(group_digits(0) == "0");
  CHECK(group_digits(999) == "999");
  CHECK(group_digits(1000) == "1,000");
  CHECK(group_digits(41200) == "41,200");
  CHECK(group_digits(1234567) == "1,234,567");
  CHECK(group_digits(UINT64_MAX) == "18,446,744,073,709,551,615");
  CHECK(human_bytes(0) == "0 B");
  CHECK(human_bytes(999) == "999 B");
  CHECK(human_bytes(1000) == "1.0 kB");
  CHECK(human_bytes(1234567) == "1.2 MB");
  CHECK(human_bytes(310'000'000) == "310 MB");
  CHECK(human_bytes(999'990'000) == "1.0 GB");  // never "1000 MB"
  CHECK(human_bytes(1'200'000'000) == "1.2 GB");
  CHECK(human_bytes(UINT64_MAX) == "18.4 EB");
}

TEST_CASE("nothing before the delay, then at most one redraw per interval") {
  auto t0 = ProgressClock::time_point{} + 1h;
  ProgressLine line("fingerprinting", 1s, 100ms, t0);
  CHECK_FALSE(line.objects(0, 1, t0));
  CHECK_FALSE(line.inner(hashing(10, 100, 1000), t0 + 999ms));
  auto first = line.inner(hashing(20, 100, 2000), t0 + 1s);
  REQUIRE(first);
  CHECK(*first == "hashing data: 20/100 files, 2.0 kB");
  CHECK_FALSE(line.inner(hashing(30, 100, 3000), t0 + 1050ms));  // too soon
  CHECK_FALSE(line.objects(0, 1, t0 + 1099ms));
  CHECK(line.inner(hashing(40, 100, 4000), t0 + 1100ms));
  // Everything reported in between is kept: the next redraw shows the latest.
  CHECK(line.render(t0 + 1100ms).find("40/100") != std::string::npos);
}

TEST_CASE("the inner line: counts, bytes, rate, the object among several") {
  auto t0 = ProgressClock::time_point{} + 1h;
  ProgressLine line("fingerprinting", 0s, 0s, t0);
  CHECK(*line.objects(0, 1, t0) == "fingerprinting 0/1");
  CHECK(*line.inner(hashing(0, 100000, 0), t0) == "hashing data: 0/100,000 files");
  // 1.2 GB in 4 s since the step began: 300 MB/s.
  CHECK(*line.inner(hashing(41200, 100000, 1'200'000'000), t0 + 4s) ==
        "hashing data: 41,200/100,000 files, 1.2 GB, 300 MB/s");

  // Several objects: the counts lead; the object reported last is shown.
  CHECK(*line.objects(1, 3, t0 + 5s) == "fingerprinting 1/3");
  ProgressEvent listing;
  listing.kind = "file";
  listing.key = "raw";
  listing.step = "listing";
  listing.unit = "objects";
  listing.done = 5000;
  CHECK(*line.inner(listing, t0 + 6s) == "fingerprinting 1/3 | listing raw: 5,000 objects");

  // A plugin on the plain progress(): no step, no unit; no object key: the kind.
  ProgressEvent plain;
  plain.kind = "git";
  plain.done = 3;
  plain.total = 7;
  CHECK(*line.inner(plain, t0 + 7s) == "fingerprinting 1/3 | git: 3/7");
}

TEST_CASE("reports out of order never count backwards; a new total starts again") {
  auto t0 = ProgressClock::time_point{} + 1h;
  ProgressLine line("fingerprinting", 0s, 0s, t0);
  CHECK(*line.inner(hashing(576, 2000, 62000), t0) == "hashing data: 576/2,000 files, 62.0 kB");
  CHECK(*line.inner(hashing(128, 2000, 13900), t0) == "hashing data: 576/2,000 files, 62.0 kB");
  CHECK(*line.inner(hashing(3, 10, 30), t0) == "hashing data: 3/10 files, 30 B");
}

TEST_CASE("a new step restarts the rate") {
  auto t0 = ProgressClock::time_point{} + 1h;
  ProgressLine line("fingerprinting", 0s, 0s, t0);
  line.inner(hashing(0, 10, 0), t0);
  CHECK(*line.inner(hashing(5, 10, 5'000'000), t0 + 1s) == "hashing data: 5/10 files, 5.0 MB, 5.0 MB/s");
  ProgressEvent e = hashing(1, 0, 100);
  e.step = "scanning";
  CHECK(*line.inner(e, t0 + 2s) == "scanning data: 1 files, 100 B");  // no rate yet
  CHECK(*line.inner(hashing(1, 10, 100), t0 + 3s) == "hashing data: 1/10 files, 100 B");
}
