// tether/engine/fanout.hpp: run one function per item on a small pool of threads (at most
// 16, and never more than there are items), returning results in item order. Each item's
// exception is captured, so one object's failure never hides another's result.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tether/errors.hpp"

namespace tether::engine {

inline constexpr std::size_t kMaxFanout = 16;

// `[key] text`, unless the text starts with that prefix already (a BackendError's does).
inline std::string with_key(const std::string& key, const std::string& text) {
  std::string prefix = "[" + key + "] ";
  return text.rfind(prefix, 0) == 0 ? text : prefix + text;
}

// One item's result: its value, or the exception it raised and that exception's texts (read
// once, where it was caught, so a caller never rethrows just to learn what it says).
template <class R>
struct Outcome {
  std::optional<R> value;
  std::exception_ptr error;
  bool ok() const { return !error; }
  // what() as raised (a BackendError's starts with `[key] `) and the message without that
  // prefix; "unknown error" for an exception that is not a std::exception.
  const std::string& what() const { return what_; }
  const std::string& message() const { return message_; }
  // The error as a user reads it about object `key`: `[key] message`.
  std::string keyed(const std::string& key) const { return with_key(key, what_); }

  // Records the exception being handled (called in a catch block) and its texts.
  void fail(std::string what, std::string message) {
    error = std::current_exception();
    what_ = std::move(what);
    message_ = std::move(message);
  }

 private:
  std::string what_, message_;
};

// fn(i) is called once for every i in [0, n). `on_done(done, n)` (optional) reports progress
// from whichever thread finished an item.
template <class R>
std::vector<Outcome<R>> fan_out(std::size_t n, const std::function<R(std::size_t)>& fn,
                                const std::function<void(std::size_t, std::size_t)>& on_done = {},
                                std::size_t max_threads = kMaxFanout) {
  std::vector<Outcome<R>> out(n);
  std::atomic<std::size_t> next{0}, done{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        out[i].value.emplace(fn(i));
      } catch (const BackendError& e) {
        out[i].fail(e.what(), e.bare_message());
      } catch (const std::exception& e) {
        out[i].fail(e.what(), e.what());
      } catch (...) {
        out[i].fail("unknown error", "unknown error");
      }
      std::size_t d = done.fetch_add(1) + 1;
      if (on_done) on_done(d, n);
    }
  };
  std::size_t threads = std::min(n, std::max<std::size_t>(1, max_threads));
  if (threads <= 1) {
    worker();
    return out;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace tether::engine
