// tether/host/call.hpp: the host side of one plugin operation. `invoke` pads the request,
// runs the op with a fresh per-call object, collects what the plugin pushed through the
// tether_host services (reply / emit / fail / log / cancelled / progress) and notes every
// breach of the status protocol. No exceptions here: BackendProxy maps a CallResult to one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tether/backend.h"

namespace tether::host {

// What one operation produced.
struct CallResult {
  // The status the host acts on, after the protocol fixes below.
  tether_status status = TETHER_OK;
  // What the op function itself returned.
  tether_status returned = TETHER_OK;
  bool called = false;               // false when the slot was NULL
  std::optional<std::string> reply;  // the first reply() text
  std::vector<std::string> items;    // emit() texts (when no item sink was given)
  std::string message;               // from the first fail(), or synthesised
  std::string details;               // the first fail()'s details JSON ("" when NULL)
  int replies = 0;                   // reply() calls
  int fails = 0;                     // fail() calls
  // Protocol breaches, one line each ("returned IO without calling fail()").
  std::vector<std::string> problems;

  bool ok() const { return status == TETHER_OK; }
};

// Receives each emitted item; return false to ask the plugin to stop.
using ItemSink = std::function<bool(std::string_view item)>;

// Each breach of the status protocol is also logged, at warning level, as this prefix plus
// the problem; the conformance runner counts them through its log sink.
inline constexpr std::string_view kProtocolBreachPrefix = "plugin protocol breach: ";

// Runs `op` on `self`. `request` is copied into a NUL-terminated buffer followed by
// TETHER_REQUEST_PADDING zero bytes. `kind` labels log lines. Normalisation:
//   non-OK without fail()  -> message "backend returned <STATUS> without a message"
//   OK after fail()        -> the fail()'s status (the op is treated as failed)
//   fail() twice, reply() after fail(), reply() twice, emit() after reply()/fail()
//                          -> kept as the first, noted in `problems`
// Each problem is also logged at warning level.
CallResult invoke(tether_op op, tether_backend* self, std::string_view kind, std::string_view request,
                  const ItemSink& on_item = nullptr);

// entry->create through the same per-call machinery (create reports errors with fail()).
CallResult invoke_create(const tether_plugin_entry& entry, std::string_view kind, std::string_view config,
                         tether_backend** out);

// The host services table handed to plugins (init and every call).
const tether_host* host_services();

// ---- process-wide settings --------------------------------------------------------------
// Where plugin log lines go. Level 0 debug, 1 info, 2 warning. The default prints level >= 2
// to stderr as `warning: [kind] message`. An empty function restores the default.
using LogSink = std::function<void(std::string_view kind, int level, std::string_view message)>;
void set_log_sink(LogSink sink);

// One progress report of a plugin call. `key` is the object the call is for (ObjectScope;
// "" when none), `step` and `unit` what the plugin said it is doing (progress_step; "" from
// the plain progress()), already cut to at most 24 printable ASCII characters.
struct ProgressEvent {
  std::string_view kind;
  std::string_view key;
  std::string_view step;
  std::string_view unit;
  uint64_t done = 0;
  uint64_t total = 0;  // 0 = unknown
  uint64_t bytes = 0;  // 0 = not counted
};

// Progress of long plugin work; the default ignores it. Called on whatever thread the plugin
// reported from, possibly several at once, and possibly once more just after it was replaced:
// a sink owns what it refers to (a shared_ptr), never a pointer to a local.
using ProgressSink = std::function<void(const ProgressEvent&)>;
void set_progress_sink(ProgressSink sink);

// The object the plugin calls made on this thread are for, while it lives (nestable): their
// progress events carry its key. BackendProxy sets it around every call.
class ObjectScope {
 public:
  explicit ObjectScope(std::string_view key);
  ~ObjectScope();
  ObjectScope(const ObjectScope&) = delete;
  ObjectScope& operator=(const ObjectScope&) = delete;

 private:
  std::string_view previous_;
};

// The user interrupted: plugins polling cancelled() see it. Async-signal-safe (a lock-free
// atomic store), so the CLI's SIGINT handler may call set_cancelled(true).
void set_cancelled(bool on) noexcept;
bool cancelled() noexcept;

}  // namespace tether::host
