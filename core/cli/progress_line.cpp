#include "cli/progress_line.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace tether::cli {

std::string group_digits(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_bytes(uint64_t n) {
  if (n < 1000) return std::to_string(n) + " B";
  static const char* units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(n);
  int u = -1;
  while (v >= 999.95 && u < 5) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

ProgressLine::ProgressLine(std::string label, ProgressClock::duration delay, ProgressClock::duration interval,
                           ProgressClock::time_point start)
    : label_(std::move(label)), delay_(delay), interval_(interval), start_(start) {}

std::optional<std::string> ProgressLine::due(ProgressClock::time_point now) {
  if (now - start_ < delay_) return std::nullopt;
  if (drawn_at_ && now - *drawn_at_ < interval_) return std::nullopt;
  drawn_at_ = now;
  return render(now);
}

std::optional<std::string> ProgressLine::objects(std::size_t done, std::size_t total, ProgressClock::time_point now) {
  done_ = done;
  total_ = total;
  current_.reset();
  return due(now);
}

std::optional<std::string> ProgressLine::inner(const host::ProgressEvent& e, ProgressClock::time_point now) {
  auto it = inner_.find(e.key);
  if (it == inner_.end()) it = inner_.emplace(std::string(e.key), Inner{}).first;
  Inner& in = it->second;
  // A new step of the object (another word, or another total) restarts the counts and rate.
  if (in.first_at == ProgressClock::time_point{} || in.step != e.step || in.total != e.total) {
    in.step.assign(e.step);
    in.first_at = now;
    in.first_bytes = e.bytes;
    in.done = 0;
    in.bytes = 0;
  }
  in.kind.assign(e.kind);
  in.unit.assign(e.unit);
  in.total = e.total;
  // Worker threads report out of order: the line never counts backwards.
  in.done = std::max(in.done, e.done);
  in.bytes = std::max(in.bytes, e.bytes);
  current_ = it->first;
  return due(now);
}

std::string ProgressLine::render_inner(const std::string& key, const Inner& in, ProgressClock::time_point now) const {
  std::string s = in.step.empty() ? std::string() : in.step + " ";
  s += key.empty() ? in.kind : key;
  s += ": " + group_digits(in.done);
  if (in.total > 0) s += "/" + group_digits(in.total);
  if (!in.unit.empty()) s += " " + in.unit;
  if (in.bytes > 0) {
    s += ", " + human_bytes(in.bytes);
    double seconds = std::chrono::duration<double>(now - in.first_at).count();
    if (seconds >= 0.5 && in.bytes > in.first_bytes)
      s += ", " + human_bytes(static_cast<uint64_t>(static_cast<double>(in.bytes - in.first_bytes) / seconds)) + "/s";
  }
  return s;
}

std::string ProgressLine::render(ProgressClock::time_point now) const {
  std::string counts = label_ + " " + std::to_string(done_) + "/" + std::to_string(total_);
  if (!current_) return counts;
  auto it = inner_.find(*current_);
  if (it == inner_.end()) return counts;
  std::string detail = render_inner(it->first, it->second, now);
  return total_ > 1 ? counts + " | " + detail : detail;
}

}  // namespace tether::cli
