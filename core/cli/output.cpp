#include "cli/output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include <nlohmann/json.hpp>

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

std::string paint(int fd, const char* code, const std::string& s) {
  if (!colour(fd)) return s;
  return std::string("\033[") + code + "m" + s + "\033[0m";
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

Progress::Progress(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled && isatty(2)) {}

Progress::~Progress() { finish(); }

void Progress::finish() {
  if (!drawn_) return;
  std::lock_guard lock(g_io);
  std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!enabled_) return;
  std::lock_guard lock(g_io);
  std::cerr << "\r\033[K" << label_ << " " << done << "/" << total << std::flush;
  drawn_ = true;
}

std::function<void(std::size_t, std::size_t)> Progress::callback() {
  return [this](std::size_t d, std::size_t t) { update(d, t); };
}

}  // namespace tether::cli
