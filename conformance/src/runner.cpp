// conformance/src/runner.cpp
#include "runner.hpp"

#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>

#include "tether/host/call.hpp"

namespace tether::conformance {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string make_workdir(const std::string& id) {
  fs::path base = fs::temp_directory_path();
  std::string tmpl = (base / ("tether-conformance-" + id + "-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot make a scratch directory: " + std::string(std::strerror(errno)));
  return tmpl;
}

std::string missing_capabilities(uint32_t want, uint32_t have) {
  std::string s;
  for (const auto& n : sdk::capability_names(want & ~have)) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

struct Pattern::Compiled {
  regex_t re;
};

Pattern::Pattern(const std::string& expression) : compiled_(std::make_unique<Compiled>()) {
  int rc = ::regcomp(&compiled_->re, expression.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char msg[256];
    ::regerror(rc, &compiled_->re, msg, sizeof msg);
    compiled_.reset();
    throw std::runtime_error("'" + expression + "' is not a regular expression (" + msg + ")");
  }
}

Pattern::~Pattern() {
  if (compiled_) ::regfree(&compiled_->re);
}

bool Pattern::found_in(const std::string& text) const { return ::regexec(&compiled_->re, text.c_str(), 0, nullptr, 0) == 0; }

std::vector<const Case*> select_cases(const RunOptions& options) {
  std::vector<const Case*> out;
  for (const auto& c : all_cases()) {
    if (options.include && !options.include->found_in(c.id)) continue;
    if (options.exclude && options.exclude->found_in(c.id)) continue;
    out.push_back(&c);
  }
  return out;
}

Outcome run_here(const Case& c, const Options& options) {
  std::string workdir;
  try {
    workdir = make_workdir(c.id);
  } catch (const std::exception& e) {
    return Outcome{c.id, Verdict::Fail, e.what(), 0};
  }
  Outcome o = run_in(c, options, workdir);
  std::error_code ec;
  fs::remove_all(workdir, ec);
  return o;
}

Outcome run_in(const Case& c, const Options& options, const std::string& workdir) {
  Outcome o;
  o.id = c.id;
  auto t0 = Clock::now();
  {
    Fixture fx(options, workdir);
    // Breaches the host notices in any call of this case fail the case; other plugin
    // warnings go to stderr as the host would print them.
    host::set_log_sink([&fx](std::string_view kind, int level, std::string_view message) {
      if (message.rfind(host::kProtocolBreachPrefix, 0) == 0)
        fx.note_breach(std::string(message.substr(host::kProtocolBreachPrefix.size())));
      else if (level >= 2) std::cerr << "warning: [" << kind << "] " << message << "\n";
    });
    try {
      if (c.needs_harness && !fx.has_harness()) skip("needs a harness (--harness HARNESS.so)");
      if (c.needs != 0 && !fx.has(c.needs))
        skip("the backend lacks " + missing_capabilities(c.needs, fx.caps()));
      c.run(fx);
      o.verdict = Verdict::Pass;
    } catch (const CaseSkipped& e) {
      o.verdict = Verdict::Skip;
      o.reason = e.what();
    } catch (const CaseFailed& e) {
      o.verdict = Verdict::Fail;
      o.reason = e.what();
    } catch (const host::LoadError& e) {
      o.verdict = Verdict::Fail;
      o.reason = std::string("cannot load: ") + e.what();
    } catch (const std::exception& e) {
      o.verdict = Verdict::Fail;
      o.reason = "unexpected " + describe_error(e) + ": " + e.what();
    } catch (...) {
      o.verdict = Verdict::Fail;
      o.reason = "unexpected exception of unknown type";
    }
    auto breaches = fx.breaches();
    if (!breaches.empty()) {
      o.verdict = Verdict::Fail;
      o.reason = "status protocol breach: " + breaches.front() +
                 (breaches.size() > 1 ? " (and " + std::to_string(breaches.size() - 1) + " more)" : "");
    }
    host::set_log_sink(nullptr);
  }  // ~Fixture: destroy the instance, then the harness cleans up
  o.seconds = seconds_since(t0);
  return o;
}

Outcome run_isolated(const Case& c, const Options& options, double timeout_seconds) {
  Outcome o;
  o.id = c.id;
  auto t0 = Clock::now();
  std::string workdir;
  try {
    workdir = make_workdir(c.id);
  } catch (const std::exception& e) {
    return Outcome{c.id, Verdict::Fail, e.what(), 0};
  }
  o = run_child(c, options, workdir, timeout_seconds);
  std::error_code ec;
  fs::remove_all(workdir, ec);
  o.seconds = seconds_since(t0);
  return o;
}

namespace {

// Runs `fn` in a forked child in its own process group; waits at most `timeout_seconds`.
// Returns what the child wrote to the pipe, and its wait status (or nullopt on a timeout).
struct ChildEnd {
  std::string output;
  std::optional<int> status;  // nullopt: killed after the timeout
  std::string error;          // pipe/fork failures
};

ChildEnd in_child(const std::function<std::string()>& fn, double timeout_seconds) {
  ChildEnd end;
  auto t0 = Clock::now();
  int fds[2];
  if (::pipe(fds) != 0) {
    end.error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return end;
  }
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    end.error = std::string("cannot fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return end;
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group, so a timeout also stops what the plugin started
    ::close(fds[0]);
    // A fault must end the child with its signal, not run a handler the parent installed
    // (a test framework's, say), so the parent can name it.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::signal(sig, SIG_DFL);
    std::string line = fn();
    for (size_t off = 0; off < line.size();) {
      ssize_t n = ::write(fds[1], line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    std::cout.flush();
    std::cerr.flush();
    ::_exit(0);  // no static destructors: plugin libraries may still run threads
  }
  ::setpgid(pid, pid);
  ::close(fds[1]);
  int status = 0;
  bool timed_out = false;
  auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  for (bool done = false; !done;) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      char buf[4096];
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) end.output.append(buf, static_cast<size_t>(n));
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      done = true;
    } else if (Clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      timed_out = done = true;
    }
  }
  for (;;) {  // what is left in the pipe
    char buf[4096];
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    end.output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  ::kill(-pid, SIGKILL);  // anything the case left behind in its group
  if (!timed_out) end.status = status;
  return end;
}

}  // namespace

Outcome run_child(const Case& c, const Options& options, const std::string& workdir, double timeout_seconds) {
  Outcome o;
  o.id = c.id;
  ChildEnd end = in_child([&] { return outcome_to_json(run_in(c, options, workdir)).dump() + "\n"; }, timeout_seconds);
  bool reported = false;
  if (!end.error.empty()) {
    o.verdict = Verdict::Fail;
    o.reason = end.error;
    return o;  // no child ran
  }
  if (!end.status) {
    std::ostringstream t;
    t << "timed out after " << timeout_seconds << " s";
    o.verdict = Verdict::Fail;
    o.reason = t.str();
  } else if (WIFSIGNALED(*end.status)) {
    o.verdict = Verdict::Crash;
    o.reason = signal_name(WTERMSIG(*end.status));
  } else if (auto nl = end.output.find('\n'); nl != std::string::npos) {
    try {
      o = outcome_from_json(nlohmann::json::parse(end.output.substr(0, nl)));
      reported = true;
    } catch (const std::exception& e) {
      o.verdict = Verdict::Crash;
      o.reason = std::string("the case reported garbage: ") + e.what();
    }
  } else {
    o.verdict = Verdict::Crash;
    o.reason = "exited with status " + std::to_string(WIFEXITED(*end.status) ? WEXITSTATUS(*end.status) : -1) +
               " before reporting a result";
  }
  if (!reported) cleanup_after_crash(options, workdir);
  return o;
}

void cleanup_after_crash(const Options& options, const std::string& workdir) {
  if (!options.harness) return;
  // In a child too: the harness is plugin-side code and the parent stays clean.
  in_child(
      [&] {
        try {
          Harness::load(*options.harness)->cleanup(workdir);
        } catch (const std::exception& e) {
          std::cerr << "warning: harness cleanup of " << workdir << " failed: " << e.what() << "\n";
        }
        return std::string();
      },
      30);
}

std::vector<Outcome> run_suite(const RunOptions& options, std::ostream& out) {
  std::vector<Outcome> outcomes;
  for (const Case* c : select_cases(options)) {
    Outcome o = options.in_process ? run_here(*c, options.suite) : run_isolated(*c, options.suite, options.timeout_seconds);
    out << outcome_line(o) << std::endl;
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

}  // namespace tether::conformance
