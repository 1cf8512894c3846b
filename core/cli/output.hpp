// core/cli/output.hpp: how commands talk to the terminal: results on stdout, notes, warnings
// and errors on stderr (coloured only on a terminal), JSON for --json, progress that shows
// on a terminal and stays quiet when piped.
#pragma once

#include <cstddef>
#include <functional>
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

void request_cancel();

// Progress of long work: `label done/total` redrawn on stderr when it is a terminal.
class Progress {
 public:
  Progress(std::string label, bool enabled);
  ~Progress();
  void update(std::size_t done, std::size_t total);
  // Clears the progress line before results are printed (the destructor does it too).
  void finish();
  std::function<void(std::size_t, std::size_t)> callback();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace tether::cli
