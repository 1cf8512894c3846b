// Host services and the per-call object. The plugin sees a tether_call; the host keeps its
// bookkeeping in a CallState reached through the HostCall wrapper, so the struct the plugin
// holds stays standard-layout with `tether_call` first.
#include "tether/host/call.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "tether/host/ops.hpp"
#include "tether/support/redact.hpp"

namespace tether::host {
namespace {

struct CallState {
  std::mutex mu;  // host services are thread-safe: a plugin may emit from its own threads
  std::string_view kind;
  std::string key;  // the ObjectScope of the invoking thread, for progress events
  const ItemSink* on_item = nullptr;
  bool stop = false;
  tether_status fail_status = TETHER_OK;
  CallResult result;

  void problem(std::string p) { result.problems.push_back(std::move(p)); }
};

struct HostCall {
  tether_call base;  // first: the plugin's tether_call* is a HostCall*
  CallState* state;
};
static_assert(std::is_standard_layout_v<HostCall>);

CallState* state_of(tether_call* call) {
  if (call == nullptr) return nullptr;
  return reinterpret_cast<HostCall*>(call)->state;
}

// ---- process-wide sinks ----------------------------------------------------------------
std::mutex g_sink_mu;
LogSink g_log_sink;
ProgressSink g_progress_sink;
// Read without the lock on every progress call: no sink (a pipe, --json) costs one load.
std::atomic<bool> g_has_progress_sink{false};
thread_local std::string_view t_object_key;
std::atomic<bool> g_cancelled{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void log_line(std::string_view kind, int level, std::string_view message) {
  LogSink sink;
  {
    std::lock_guard lock(g_sink_mu);
    sink = g_log_sink;
  }
  if (sink) {
    sink(kind, level, message);
    return;
  }
  if (level >= 2)
    std::fprintf(stderr, "warning: [%.*s] %.*s\n", static_cast<int>(kind.size()), kind.data(),
                 static_cast<int>(message.size()), message.data());
}

// ---- the services ------------------------------------------------------------------------
// Each service is noexcept: an exception must never unwind through plugin (C) frames.
void svc_reply(tether_call* call, const char* json, size_t len) noexcept try {
  CallState* s = state_of(call);
  if (s == nullptr) return;
  std::lock_guard lock(s->mu);
  ++s->result.replies;
  if (s->result.fails > 0) s->problem("reply() after fail()");
  if (s->result.replies == 2) s->problem("reply() called more than once");
  if (!s->result.reply) s->result.reply.emplace(json ? json : "", json ? len : 0);
} catch (...) {
}

int svc_emit(tether_call* call, const char* json, size_t len) noexcept try {
  CallState* s = state_of(call);
  if (s == nullptr) return 1;
  std::lock_guard lock(s->mu);
  if (s->result.fails > 0 || s->result.replies > 0) {
    s->problem("emit() after reply() or fail()");
    return 1;
  }
  if (s->stop) return 1;
  std::string_view item(json ? json : "", json ? len : 0);
  if (s->on_item && *s->on_item) {
    if (!(*s->on_item)(item)) s->stop = true;
  } else {
    s->result.items.emplace_back(item);
  }
  return s->stop ? 1 : 0;
} catch (...) {
  return 1;
}

void svc_fail(tether_call* call, tether_status status, const char* message, const char* details_json) noexcept try {
  CallState* s = state_of(call);
  if (s == nullptr) return;
  std::lock_guard lock(s->mu);
  if (++s->result.fails > 1) {
    s->problem("fail() called more than once");
    return;
  }
  if (status == TETHER_OK) s->problem("fail() with status OK");
  s->fail_status = status == TETHER_OK ? TETHER_E_BACKEND : status;
  // Plugins quote URLs and DSNs in their errors; the host hides their credentials once for
  // all of them, before the message reaches the engine, the op log or the terminal.
  s->result.message = support::redact_secrets(message ? message : "");
  for (char& c : s->result.message)
    if (c == '\n' || c == '\r') c = ' ';
  s->result.details = support::redact_secrets(details_json ? details_json : "");
} catch (...) {
}

void svc_log(tether_call* call, int level, const char* message) noexcept try {
  CallState* s = state_of(call);
  log_line(s ? s->kind : std::string_view("plugin"), level, support::redact_secrets(message ? message : ""));
} catch (...) {
}

int svc_cancelled(tether_call*) noexcept { return g_cancelled.load(std::memory_order_relaxed) ? 1 : 0; }

// A plugin's word for its step or unit as the terminal may show it: printable ASCII, short.
std::string_view progress_word(const char* word, char (&buf)[25]) {
  std::size_t n = 0;
  for (const char* p = word; p && *p && n < sizeof(buf) - 1; ++p)
    buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
  return {buf, n};
}

void report_progress(tether_call* call, const char* step, const char* unit, uint64_t done, uint64_t total,
                     uint64_t bytes) {
  if (!g_has_progress_sink.load(std::memory_order_relaxed)) return;
  CallState* s = state_of(call);
  ProgressSink sink;
  {
    std::lock_guard lock(g_sink_mu);
    sink = g_progress_sink;
  }
  if (!sink) return;
  char step_buf[25], unit_buf[25];
  ProgressEvent e;
  e.kind = s ? s->kind : std::string_view("plugin");
  if (s) e.key = s->key;
  e.step = progress_word(step, step_buf);
  e.unit = progress_word(unit, unit_buf);
  e.done = done;
  e.total = total;
  e.bytes = bytes;
  sink(e);
}

void svc_progress(tether_call* call, uint64_t done, uint64_t total) noexcept try {
  report_progress(call, nullptr, nullptr, done, total, 0);
} catch (...) {
}

void svc_progress_step(tether_call* call, const char* step, const char* unit, uint64_t done, uint64_t total,
                       uint64_t bytes) noexcept try {
  report_progress(call, step, unit, done, total, bytes);
} catch (...) {
}

const tether_host kHost = {
    sizeof(tether_host), TETHER_ABI_MAJOR, TETHER_ABI_MINOR, &svc_reply, &svc_emit,
    &svc_fail,           &svc_log,         &svc_cancelled,   &svc_progress, &svc_progress_step,
};

// Settles the status and records breaches once the op has returned.
void settle(CallState& s, tether_status returned) {
  CallResult& r = s.result;
  r.called = true;
  r.returned = returned;
  if (returned != TETHER_OK) {
    r.status = returned;
    if (r.fails == 0) {
      r.message = "backend returned " + status_name(returned) + " without a message";
      r.problems.push_back("returned " + status_name(returned) + " without calling fail()");
    } else if (s.fail_status != returned) {
      r.problems.push_back("returned " + status_name(returned) + " but fail() said " + status_name(s.fail_status));
    }
  } else if (r.fails > 0) {
    r.status = s.fail_status;
    r.problems.push_back("returned OK after fail()");
  } else {
    r.status = TETHER_OK;
  }
  for (const auto& p : r.problems) log_line(s.kind, 2, std::string(kProtocolBreachPrefix) + p);
}

std::string padded(std::string_view text) {
  std::string buf;
  buf.reserve(text.size() + TETHER_REQUEST_PADDING + 1);
  buf.append(text);
  buf.append(TETHER_REQUEST_PADDING, '\0');  // with the terminator: NUL + >= 64 readable bytes
  return buf;
}

}  // namespace

CallResult invoke(tether_op op, tether_backend* self, std::string_view kind, std::string_view request,
                  const ItemSink& on_item) {
  CallState state;
  state.kind = kind;
  state.key = t_object_key;
  state.on_item = &on_item;
  if (op == nullptr) {
    state.result.status = TETHER_E_UNSUPPORTED;
    state.result.returned = TETHER_E_UNSUPPORTED;
    return std::move(state.result);
  }
  HostCall call{{&kHost}, &state};
  std::string buf = padded(request);
  tether_status returned = op(self, &call.base, buf.c_str(), request.size());
  settle(state, returned);
  return std::move(state.result);
}

CallResult invoke_create(const tether_plugin_entry& entry, std::string_view kind, std::string_view config,
                         tether_backend** out) {
  CallState state;
  state.kind = kind;
  HostCall call{{&kHost}, &state};
  std::string buf = padded(config);
  tether_status returned = entry.create(&call.base, buf.c_str(), config.size(), out);
  settle(state, returned);
  return std::move(state.result);
}

const tether_host* host_services() { return &kHost; }

void set_log_sink(LogSink sink) {
  std::lock_guard lock(g_sink_mu);
  g_log_sink = std::move(sink);
}

void set_progress_sink(ProgressSink sink) {
  std::lock_guard lock(g_sink_mu);
  g_has_progress_sink.store(static_cast<bool>(sink), std::memory_order_relaxed);
  g_progress_sink = std::move(sink);
}

ObjectScope::ObjectScope(std::string_view key) : previous_(t_object_key) { t_object_key = key; }
ObjectScope::~ObjectScope() { t_object_key = previous_; }

void set_cancelled(bool on) noexcept { g_cancelled.store(on, std::memory_order_relaxed); }
bool cancelled() noexcept { return g_cancelled.load(std::memory_order_relaxed); }

}  // namespace tether::host
