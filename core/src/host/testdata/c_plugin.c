/* Deliberately broken or misbehaving test plugins in plain C, one per define:
 *   BAD_MAGIC   tether_entry.magic is wrong
 *   ABI_02      built for ABI 0.2
 *   NO_ENTRY    exports no tether_entry
 *   WRONG_KIND  entry kind "other" in a file named for another kind
 *   NO_VERIFY   the required verify slot is NULL
 *   MISBEHAVE   breaks the status protocol in several ops; replies 200,000-deep JSON
 * PLUGIN_KIND is the kind the file is named for. */
#include <string.h>

#include "tether/backend.h"

#ifndef PLUGIN_KIND
#error PLUGIN_KIND must name the kind
#endif

#ifdef WRONG_KIND
#define ENTRY_KIND "other"
#else
#define ENTRY_KIND PLUGIN_KIND
#endif

struct tether_backend {
  int unused;
};
static struct tether_backend the_instance;

static tether_status reply_text(tether_call *call, const char *text) {
  call->host->reply(call, text, strlen(text));
  return TETHER_OK;
}

static tether_status op_describe(tether_backend *self, tether_call *call, const char *req, size_t len) {
  (void)self, (void)req, (void)len;
  return reply_text(call, "{\"kind\":\"" ENTRY_KIND "\",\"capabilities\":7,\"thread_safe\":true}");
}

static tether_status op_fingerprint(tether_backend *self, tether_call *call, const char *req, size_t len) {
  (void)self, (void)req, (void)len;
#ifdef MISBEHAVE
  (void)call;
  return TETHER_E_IO; /* no fail() */
#else
  return reply_text(call, "{\"state\":{\"v\":1}}");
#endif
}

#ifndef NO_VERIFY
static tether_status op_verify(tether_backend *self, tether_call *call, const char *req, size_t len) {
  (void)self, (void)req, (void)len;
#ifdef MISBEHAVE
  call->host->fail(call, TETHER_E_CORRUPT, "verify: store is corrupt", NULL);
  return TETHER_OK; /* OK after fail() */
#else
  return reply_text(call, "{\"status\":\"ok\",\"message\":\"\"}");
#endif
}
#endif

static tether_status op_open(tether_backend *self, tether_call *call, const char *req, size_t len) {
  (void)self, (void)len;
#ifdef MISBEHAVE
  /* the request must be NUL-terminated and padded: report what follows it */
  int padded = req[len] == '\0';
  for (size_t i = 1; i <= TETHER_REQUEST_PADDING; ++i) padded = padded && req[len + i] == '\0';
  call->host->fail(call, TETHER_E_NOT_FOUND, padded ? "open: first failure (padded)" : "open: first failure", NULL);
  call->host->fail(call, TETHER_E_IO, "open: second failure", NULL);
  call->host->reply(call, "{}", 2);
  return TETHER_E_NOT_FOUND;
#else
  (void)req;
  return reply_text(call, "{\"handle\":{\"address\":\"c://x\"}}");
#endif
}

#ifdef MISBEHAVE
/* An unknown status value, with a message. */
static tether_status op_list_pins(tether_backend *self, tether_call *call, const char *req, size_t len) {
  (void)self, (void)req, (void)len;
  call->host->fail(call, 99, "list_pins: something new", "{\"hint\":1}");
  return 99;
}

/* A reply nested 200,000 levels deep: the host must refuse it, not overflow its stack. */
static tether_status op_identity(tether_backend *self, tether_call *call, const char *req, size_t len) {
  enum { kDepth = 200000 };
  static char text[2 * kDepth + 16];
  size_t n = 0;
  (void)self, (void)req, (void)len;
  memcpy(text, "{\"identity\":", 12);
  n = 12;
  memset(text + n, '[', kDepth);
  n += kDepth;
  memset(text + n, ']', kDepth);
  n += kDepth;
  text[n++] = '}';
  call->host->reply(call, text, n);
  return TETHER_OK;
}
#endif

static const tether_backend_vtable the_vtable = {
    .struct_size = sizeof(tether_backend_vtable),
    .describe = op_describe,
    .fingerprint = op_fingerprint,
#ifndef NO_VERIFY
    .verify = op_verify,
#endif
#ifdef MISBEHAVE
    .list_pins = op_list_pins,
    .identity = op_identity,
#endif
    .open = op_open,
};

static tether_status plugin_init(const tether_host *host) {
  (void)host;
  return TETHER_OK;
}
static void plugin_deinit(void) {}
static tether_status plugin_create(tether_call *call, const char *config, size_t len, tether_backend **out) {
  (void)call, (void)config, (void)len;
  *out = &the_instance;
  return TETHER_OK;
}
static void plugin_destroy(tether_backend *self) { (void)self; }

#ifdef NO_ENTRY
TETHER_EXPORT extern const tether_plugin_entry not_the_entry;
#define ENTRY_NAME not_the_entry
#else
#define ENTRY_NAME tether_entry
#endif

#ifdef BAD_MAGIC
#define MAGIC 0xdeadbeefu
#else
#define MAGIC TETHER_PLUGIN_MAGIC
#endif

#ifdef ABI_02
#define MINOR 2
#else
#define MINOR TETHER_ABI_MINOR
#endif

const tether_plugin_entry ENTRY_NAME = {
    MAGIC,           TETHER_ABI_MAJOR, MINOR,          sizeof(tether_plugin_entry), ENTRY_KIND, "0.0.1",
    plugin_init,     plugin_deinit,    plugin_create,  plugin_destroy,              &the_vtable,
};
