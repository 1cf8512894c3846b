// core/cli/output.hpp: how commands talk to the terminal: results on stdout, notes, warnings
// and errors on stderr (coloured only on a terminal), JSON for --json, progress that shows
// on a terminal and stays quiet when piped.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tether::cli {

// Runs a command, turning errors into messages and exit codes.
int guarded(const std::function<int()>& command);

// Every function here prints through support::redact_secrets (print_json: every string).
void out(const std::string& line);                  // stdout line
void out_unredacted(const std::string& line);       // stdout line as it is: only what the user asked to see
void print_json(const nlohmann::json& value);        // indent 2, ASCII-only, like the reference
void note(const std::string& text);                  // stderr `note: ...` (yellow)
void warning(const std::string& text);               // stderr `warning: ...` (yellow)
void error_line(const std::string& text);            // stderr `error: ...` (red)
void err(const std::string& line);                   // stderr line, as it is
std::string green(const std::string& s);             // colour for stdout, when a terminal
std::string red(const std::string& s);
std::string yellow(const std::string& s);
std::string red_err(const std::string& s);           // colour for stderr, when a terminal
std::string yellow_err(const std::string& s);

// Many stdout lines, written in blocks of about 64 KB (and at flush() or destruction): each
// line as out(green(line)) or out(red(line)) would print it (painted, then redacted), with
// whether stdout is a colour terminal decided once, not once per line.
class StdoutLines {
 public:
  enum class Paint { None, Green, Red };
  StdoutLines();
  ~StdoutLines();
  StdoutLines(const StdoutLines&) = delete;
  StdoutLines& operator=(const StdoutLines&) = delete;
  void line(const std::string& text, Paint paint = Paint::None);
  void flush();

 private:
  std::string block_, painted_;
  bool colour_;
};

void request_cancel();

// Progress of long work on stderr when it is a terminal: `label done/total` over the
// command's objects and, while it is registered as the host's progress sink, what a plugin
// reports from inside the object in flight. Nothing before the command has run a second,
// then at most 10 redraws a second (for tests only, TETHER_PROGRESS_DELAY_MS and _INTERVAL_MS),
// the line cleared at the end; never on a pipe, never with --json, never in the op log.
class Progress {
 public:
  Progress(std::string label, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::size_t done, std::size_t total);
  // Clears the progress line before results are printed (the destructor does it too).
  void finish();
  std::function<void(std::size_t, std::size_t)> callback();

  struct Shared;  // the state plugin threads reach through the sink (output.cpp)

 private:
  std::shared_ptr<Shared> shared_;  // null when disabled
};

}  // namespace tether::cli
