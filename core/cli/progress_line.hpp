// core/cli/progress_line.hpp: what the progress line of a long command says and when it is
// redrawn, apart from the terminal (output.cpp draws it; progress_line_test.cpp tests it).
// The line counts the command's objects and, while a plugin reports from inside one, shows
// that: `hashing data: 41,200/100,000 files, 1.2 GB, 310 MB/s`.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tether/host/call.hpp"

namespace tether::cli {

using ProgressClock = std::chrono::steady_clock;

// 41200 -> "41,200".
std::string group_digits(uint64_t n);
// Decimal units, as `du --si` and network rates read: 999 -> "999 B", 1234567 -> "1.2 MB".
std::string human_bytes(uint64_t n);

class ProgressLine {
 public:
  // Nothing is drawn before `delay` has passed since `start` (a quick command prints
  // nothing), then at most once per `interval`.
  ProgressLine(std::string label, ProgressClock::duration delay, ProgressClock::duration interval,
               ProgressClock::time_point start);

  // Each returns the line to draw now, or nothing when it is too early or too soon.
  // The command finished `done` of its `total` objects: the line goes back to the counts
  // until a plugin reports again.
  std::optional<std::string> objects(std::size_t done, std::size_t total, ProgressClock::time_point now);
  // A plugin reported from inside an object.
  std::optional<std::string> inner(const host::ProgressEvent& e, ProgressClock::time_point now);

  // The line as it stands.
  std::string render(ProgressClock::time_point now) const;

 private:
  struct Inner {
    std::string kind, step, unit;
    uint64_t done = 0, total = 0, bytes = 0;
    ProgressClock::time_point first_at;  // of this step: the rate is measured from here
    uint64_t first_bytes = 0;
  };
  std::optional<std::string> due(ProgressClock::time_point now);
  std::string render_inner(const std::string& key, const Inner& in, ProgressClock::time_point now) const;

  std::string label_;
  ProgressClock::duration delay_, interval_;
  ProgressClock::time_point start_;
  std::optional<ProgressClock::time_point> drawn_at_;
  std::size_t done_ = 0, total_ = 0;
  std::map<std::string, Inner, std::less<>> inner_;  // by object key: the objects in flight
  std::optional<std::string> current_;               // the key reported last, if shown
};

}  // namespace tether::cli
