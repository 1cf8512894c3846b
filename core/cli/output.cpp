#include "cli/output.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "cli/progress_line.hpp"
#include "tether/errors.hpp"
#include "tether/host/call.hpp"
#include "tether/model/json.hpp"
#include "tether/support/redact.hpp"

namespace tether::cli {
namespace {

std::mutex g_io;

bool colour(int fd) {
  static const bool no_colour = std::getenv("NO_COLOR") != nullptr;
  return !no_colour && isatty(fd);
}

// `s` in the SGR colour `code` ("32" green, "31" red, "33" yellow), into `out`.
void append_painted(std::string& out, const char* code, const std::string& s) {
  out.append("\033[").append(code).append("m").append(s).append("\033[0m");
}

std::string paint(int fd, const char* code, const std::string& s) {
  if (!colour(fd)) return s;
  std::string out;
  append_painted(out, code, s);
  return out;
}

}  // namespace

// Everything printed goes through the redactor: messages carry URLs and DSNs (a plugin's
// error, an import source, an op-log summary), and a token must not reach a terminal or a log.
void out(const std::string& line) {
  std::lock_guard lock(g_io);
  std::cout << support::redact_secrets(line) << '\n';
}

void out_unredacted(const std::string& line) {
  std::lock_guard lock(g_io);
  std::cout << line << '\n';
}

void print_json(const nlohmann::json& value) {
  std::lock_guard lock(g_io);
  std::cout << model::redacted_json(value).dump(2, ' ', true, nlohmann::json::error_handler_t::replace) << '\n';
}

void note(const std::string& text) {
  std::lock_guard lock(g_io);
  std::cout.flush();
  std::cerr << paint(2, "33", "note: " + support::redact_secrets(text)) << '\n';
}

void warning(const std::string& text) {
  std::lock_guard lock(g_io);
  std::cout.flush();
  std::cerr << paint(2, "33", "warning: " + support::redact_secrets(text)) << '\n';
}

void error_line(const std::string& text) {
  std::lock_guard lock(g_io);
  std::cout.flush();
  std::cerr << paint(2, "31", "error: " + support::redact_secrets(text)) << '\n';
}

void err(const std::string& line) {
  std::lock_guard lock(g_io);
  std::cout.flush();
  std::cerr << support::redact_secrets(line) << '\n';
}

std::string green(const std::string& s) { return paint(1, "32", s); }
std::string red(const std::string& s) { return paint(1, "31", s); }
std::string yellow(const std::string& s) { return paint(1, "33", s); }
std::string red_err(const std::string& s) { return paint(2, "31", s); }
std::string yellow_err(const std::string& s) { return paint(2, "33", s); }

StdoutLines::StdoutLines() : colour_(colour(1)) {}

StdoutLines::~StdoutLines() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; a failed write shows as the stream's error
  }
}

void StdoutLines::line(const std::string& text, Paint paint) {
  const std::string* plain = &text;
  if (colour_ && paint != Paint::None) {
    painted_.clear();
    append_painted(painted_, paint == Paint::Green ? "32" : "31", text);
    plain = &painted_;
  }
  support::append_redacted(block_, *plain);
  block_ += '\n';
  if (block_.size() >= 64 * 1024) flush();
}

void StdoutLines::flush() {
  if (block_.empty()) return;
  std::lock_guard lock(g_io);
  std::cout.write(block_.data(), static_cast<std::streamsize>(block_.size()));
  block_.clear();
}

void request_cancel() { host::set_cancelled(true); }

int guarded(const std::function<int()>& command) {
  try {
    int rc = command();
    std::cout.flush();
    return rc;
  } catch (const DatasetNotFound& e) {
    std::cout.flush();
    std::cerr << paint(2, "31", support::redact_secrets(e.what())) << '\n';
  } catch (const std::exception& e) {
    error_line(e.what());
  }
  return kExitFailure;
}

// ---- Progress ---------------------------------------------------------------------------
struct Progress::Shared {
  std::mutex mu;  // before g_io
  ProgressLine line;
  bool active = true;
  bool drawn = false;

  explicit Shared(ProgressLine l) : line(std::move(l)) {}

  // Caller holds mu.
  void draw(const std::string& text) {
    if (!active) return;
    // Control bytes could move the cursor; a line wider than the terminal would wrap and
    // leave a copy behind at every redraw.
    std::string clean;
    for (char c : text) clean += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    struct winsize ws{};
    if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && clean.size() >= ws.ws_col) clean.resize(ws.ws_col - 1);
    std::lock_guard lock(g_io);
    std::cerr << "\r\033[K" << clean << std::flush;
    drawn = true;
  }
};

namespace {

std::mutex g_sink_owner_mu;
const Progress::Shared* g_sink_owner = nullptr;  // whose state the host's progress sink reaches

// Tests only: TETHER_PROGRESS_DELAY_MS and TETHER_PROGRESS_INTERVAL_MS replace the second
// of quiet and the tenth of a second between redraws (docs/cli.md#progress).
ProgressClock::duration env_ms(const char* name, ProgressClock::duration fallback) {
  if (const char* v = std::getenv(name)) {
    char* end = nullptr;
    long ms = std::strtol(v, &end, 10);
    if (end != v && *end == '\0' && ms >= 0 && ms <= 600000) return std::chrono::milliseconds(ms);
  }
  return fallback;
}

}  // namespace

Progress::Progress(std::string label, bool enabled) {
  if (!enabled || !isatty(2)) return;
  shared_ = std::make_shared<Shared>(
      ProgressLine(std::move(label), env_ms("TETHER_PROGRESS_DELAY_MS", std::chrono::seconds(1)),
                   env_ms("TETHER_PROGRESS_INTERVAL_MS", std::chrono::milliseconds(100)), ProgressClock::now()));
  // The sink owns the state: a plugin thread may still report after finish().
  std::lock_guard owner(g_sink_owner_mu);
  g_sink_owner = shared_.get();
  host::set_progress_sink([shared = shared_](const host::ProgressEvent& e) {
    std::lock_guard lock(shared->mu);
    if (auto text = shared->line.inner(e, ProgressClock::now())) shared->draw(*text);
  });
}

Progress::~Progress() { finish(); }

void Progress::finish() {
  if (!shared_) return;
  {
    // A command with two lines (publish: reading, then writing) leaves the later one's sink.
    std::lock_guard owner(g_sink_owner_mu);
    if (g_sink_owner == shared_.get()) {
      host::set_progress_sink({});
      g_sink_owner = nullptr;
    }
  }
  std::lock_guard lock(shared_->mu);
  if (shared_->drawn) {
    std::lock_guard io(g_io);
    std::cerr << "\r\033[K" << std::flush;
  }
  shared_->active = false;
  shared_->drawn = false;
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!shared_) return;
  std::lock_guard lock(shared_->mu);
  if (auto text = shared_->line.objects(done, total, ProgressClock::now())) shared_->draw(*text);
}

std::function<void(std::size_t, std::size_t)> Progress::callback() {
  return [this](std::size_t d, std::size_t t) { update(d, t); };
}

}  // namespace tether::cli
