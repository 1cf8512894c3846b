// process.cpp: posix_spawn with three pipes, drained with poll() so neither side can block
// the other however much the child prints or reads.
#include "tether/support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

extern char** environ;

namespace tether::support {
namespace {

// Closes the descriptors it holds on every exit path.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ProcessError(std::string("cannot create a pipe: ") + std::strerror(errno));
  Pipe p;
  p.read = Fd(fds[0]);
  p.write = Fd(fds[1]);
  return p;
}

bool name_matches(std::string_view var, const std::string& pattern) {
  auto eq = var.find('=');
  std::string_view name = var.substr(0, eq);
  if (!pattern.empty() && pattern.back() == '*') return name.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1));
  return name == pattern;
}

std::vector<std::string> build_env(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view var(*e);
    bool drop = false;
    for (const auto& pattern : options.unset_env) drop = drop || name_matches(var, pattern);
    for (const auto& [name, value] : options.set_env) drop = drop || name_matches(var, name);
    if (!drop) env.emplace_back(var);
  }
  for (const auto& [name, value] : options.set_env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Writing to a child that already exited raises SIGPIPE; block it on this thread while we
// write and swallow one that we caused, so the caller's process is never killed by it.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pipe_set;
      sigemptyset(&pipe_set);
      sigaddset(&pipe_set, SIGPIPE);
      timespec zero{0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_{};
  bool was_pending_ = false;
};

// Feeds the child's stdin and drains its stdout and stderr, on non-blocking ends, until all
// three are closed.
void exchange(Pipe& in, Pipe& out, Pipe& err, const std::string* input, ProcessResult& result) {
  SigpipeGuard guard;
  std::size_t written = 0;
  if (input != nullptr && input->empty()) in.write.reset();
  char buffer[65536];
  while (out.read.get() >= 0 || err.read.get() >= 0 || in.write.get() >= 0) {
    pollfd fds[3] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}, {in.write.get(), POLLOUT, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    Fd* readers[2] = {&out.read, &err.read};
    std::string* sinks[2] = {&result.out, &result.err};
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      ssize_t n = ::read(readers[i]->get(), buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        readers[i]->reset();
      }
    }
    if (fds[2].revents != 0) {
      ssize_t n = ::write(in.write.get(), input->data() + written, input->size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      // EPIPE: the child stopped reading; what it printed still matters.
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == input->size()) in.write.reset();
    }
  }
}

}  // namespace

std::string join_argv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw ProcessError("run_process: empty command");
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  struct Cleanup {
    posix_spawn_file_actions_t* a;
    posix_spawnattr_t* s;
    ~Cleanup() {
      posix_spawn_file_actions_destroy(a);
      posix_spawnattr_destroy(s);
    }
  } cleanup{&actions, &attr};

  if (options.stdin_data) {
    posix_spawn_file_actions_adddup2(&actions, in.read.get(), STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), STDERR_FILENO);
  std::string cwd = options.cwd.string();
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());

  // The child starts with default signal dispositions and an empty mask, whatever ours are.
  sigset_t empty_set, all_set;
  sigemptyset(&empty_set);
  sigfillset(&all_set);
  posix_spawnattr_setsigmask(&attr, &empty_set);
  posix_spawnattr_setsigdefault(&attr, &all_set);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> args(argv.begin(), argv.end());
  std::vector<std::string> env = build_env(options);
  auto c_args = c_array(args);
  auto c_env = c_array(env);

  pid_t pid = 0;
  bool has_slash = argv[0].find('/') != std::string::npos;
  int rc = has_slash ? posix_spawn(&pid, c_args[0], &actions, &attr, c_args.data(), c_env.data())
                     : posix_spawnp(&pid, c_args[0], &actions, &attr, c_args.data(), c_env.data());
  if (rc != 0) {
    if (rc == ENOENT && !cwd.empty() && !std::filesystem::is_directory(options.cwd))
      throw ProcessError("cannot run " + argv[0] + ": no such directory " + cwd);
    if (rc == ENOENT || rc == ENOTDIR) throw ProcessError("executable not found: " + argv[0]);
    throw ProcessError("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  // The child holds its own copies; ours would keep the pipes open forever.
  in.read.reset();
  out.write.reset();
  err.write.reset();
  if (!options.stdin_data) in.write.reset();
  // Our ends never block: poll() says when each can move, a short write is resumed later.
  for (int fd : {in.write.get(), out.read.get(), err.read.get()})
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  ProcessResult result;
  exchange(in, out, err, options.stdin_data ? &*options.stdin_data : nullptr, result);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw ProcessError("cannot wait for " + argv[0] + ": " + std::strerror(errno));
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = 128 + result.signal;
  }
  return result;
}

}  // namespace tether::support
