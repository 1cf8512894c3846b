/* cminimal.c: tether-backend-cexample.so, a backend plugin in plain C11 that needs nothing
 * but tether/backend.h. Kind "cexample", the Observed tier: an object is one local file,
 * {"path": "/abs/file"}, and its state is the file's size and modification time. It can tell
 * that a file changed, not bring an old version back.
 *
 * What it shows: the one exported entry, the vtable with the four required operations
 * (describe, fingerprint, verify, open) and NULL for everything else, replies pushed through
 * call->host, and errors reported with exactly one fail() (the conformance suite checks it). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mini_json.h"
#include "tether/backend.h"

/* The instance. The example keeps no state, but every instance is its own allocation. */
struct tether_backend {
  int unused;
};

static int g_init_count; /* init/deinit are never concurrent with anything (backend.h) */

/* Every error goes through CMINIMAL_FAIL: one fail() with the status, then return it.
 * conformance/broken/no_fail.c rebuilds this file with a version that forgets to tell the
 * host, and the conformance suite must catch that. */
#ifndef CMINIMAL_FAIL
static tether_status fail_call(tether_call *call, tether_status status, const char *message) {
  call->host->fail(call, status, message, NULL);
  return status;
}
#define CMINIMAL_FAIL(call, status, message) fail_call(call, status, message)
#endif

static tether_status reply(tether_call *call, const char *json) {
  call->host->reply(call, json, strlen(json));
  return TETHER_OK;
}

/* The request as an object span, or 0 after reporting it malformed. */
static int parse_request(tether_call *call, const char *request, size_t len, mj_span *out, tether_status *st) {
  if (!mj_is_object(request, len)) {
    *st = CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "request is not a well-formed JSON object");
    return 0;
  }
  out->p = request;
  out->n = len;
  return 1;
}

/* The locator's path (request.locator.path), or 0 after reporting what is wrong. */
static int locator_path(tether_call *call, mj_span req, char *path, size_t cap, tether_status *st) {
  mj_span loc = mj_member(req, "locator");
  if (!mj_is(loc, '{')) {
    *st = CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "request needs a 'locator' object");
    return 0;
  }
  if (mj_string(mj_member(loc, "path"), path, cap) != 0 || path[0] != '/') {
    *st = CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "cexample locator needs an absolute 'path' string");
    return 0;
  }
  return 1;
}

/* The state of `path` as JSON (keys sorted, as the host's canonical form has them). */
static int file_state(tether_call *call, const char *path, char *out, size_t cap, tether_status *st) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    *st = CMINIMAL_FAIL(call, TETHER_E_NOT_FOUND, "cexample: the file does not exist");
    return 0;
  }
  snprintf(out, cap, "{\"mtime_ns\":\"%lld%09ld\",\"size\":%lld}", (long long)sb.st_mtim.tv_sec,
           (long)sb.st_mtim.tv_nsec, (long long)sb.st_size);
  return 1;
}

static tether_status op_describe(tether_backend *self, tether_call *call, const char *request, size_t len) {
  mj_span req;
  tether_status st;
  (void)self;
  if (!parse_request(call, request, len, &req, &st)) return st;
  return reply(call,
               "{\"kind\":\"cexample\",\"maturity\":\"experimental\",\"capabilities\":17,"
               "\"volatile_keys\":[],\"local_path_keys\":[\"path\"],\"local_path_prefixes\":[],"
               "\"uri_keys\":[\"path\"],\"key_suffixes\":null,\"safe_config_keys\":[],"
               "\"safe_option_keys\":{},\"promote_hint\":\"\",\"thread_safe\":true}");
}

static tether_status op_fingerprint(tether_backend *self, tether_call *call, const char *request, size_t len) {
  mj_span req, ref;
  char path[4096], state[128], out[192];
  tether_status st;
  (void)self;
  if (!parse_request(call, request, len, &req, &st) || !locator_path(call, req, path, sizeof path, &st)) return st;
  ref = mj_member(req, "working_ref");
  if (ref.p && !(ref.n == 4 && memcmp(ref.p, "null", 4) == 0))
    return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "cexample has no working refs");
  if (!file_state(call, path, state, sizeof state, &st)) return st;
  snprintf(out, sizeof out, "{\"state\":%s}", state);
  return reply(call, out);
}

/* Same when the recorded size and mtime_ns are the current ones (compared as JSON text). */
static int same_state(mj_span recorded, const char *current) {
  mj_span cur = {current, strlen(current)};
  const char *keys[2] = {"size", "mtime_ns"};
  int i;
  for (i = 0; i < 2; ++i) {
    mj_span a = mj_member(recorded, keys[i]), b = mj_member(cur, keys[i]);
    if (!a.p || a.n != b.n || memcmp(a.p, b.p, a.n) != 0) return 0;
  }
  return 1;
}

static tether_status op_verify(tether_backend *self, tether_call *call, const char *request, size_t len) {
  mj_span req, state, pin;
  char path[4096], current[128];
  struct stat sb;
  tether_status st;
  (void)self;
  if (!parse_request(call, request, len, &req, &st) || !locator_path(call, req, path, sizeof path, &st)) return st;
  state = mj_member(req, "state");
  if (!mj_is(state, '{')) return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "verify needs a 'state' object");
  pin = mj_member(req, "pin");
  if (pin.p && !(pin.n == 4 && memcmp(pin.p, "null", 4) == 0))
    return CMINIMAL_FAIL(call, TETHER_E_UNSUPPORTED, "cexample has no pins");
  if (stat(path, &sb) != 0) return reply(call, "{\"status\":\"missing\",\"message\":\"the file is gone\"}");
  if (!file_state(call, path, current, sizeof current, &st)) return st;
  if (same_state(state, current)) return reply(call, "{\"status\":\"ok\",\"message\":\"\"}");
  return reply(call, "{\"status\":\"unknown\",\"message\":\"the file changed; an observed file keeps only its current state\"}");
}

static tether_status op_open(tether_backend *self, tether_call *call, const char *request, size_t len) {
  mj_span req, target, ro;
  char path[4096], quoted[8300], out[8400];
  tether_status st;
  (void)self;
  if (!parse_request(call, request, len, &req, &st) || !locator_path(call, req, path, sizeof path, &st)) return st;
  target = mj_member(req, "target");
  if (target.p && !mj_is(target, '{')) return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "'target' must be an object");
  if (target.p && (mj_member(target, "pin").p || mj_member(target, "state").p || mj_member(target, "ref").p))
    return CMINIMAL_FAIL(call, TETHER_E_UNSUPPORTED, "cexample opens only the current file");
  ro = mj_member(req, "read_only");
  if (ro.p && !(ro.n == 4 && memcmp(ro.p, "true", 4) == 0) && !(ro.n == 5 && memcmp(ro.p, "false", 5) == 0))
    return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "'read_only' must be a boolean");
  if (ro.p && ro.n == 5) return CMINIMAL_FAIL(call, TETHER_E_UNSUPPORTED, "cexample has no writable handles");
  if (mj_quote(path, quoted, sizeof quoted) < 0) return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "path too long");
  snprintf(out, sizeof out, "{\"handle\":{\"address\":%s,\"read_only\":true}}", quoted);
  return reply(call, out);
}

static tether_status plugin_init(const tether_host *host) {
  (void)host;
  ++g_init_count;
  return TETHER_OK;
}

static void plugin_deinit(void) { --g_init_count; }

static tether_status plugin_create(tether_call *call, const char *config, size_t len, tether_backend **out) {
  tether_backend *b;
  if (config && len && !mj_is_object(config, len))
    return CMINIMAL_FAIL(call, TETHER_E_INVALID_ARGUMENT, "config is not a JSON object");
  b = (tether_backend *)calloc(1, sizeof *b);
  if (!b) return CMINIMAL_FAIL(call, TETHER_E_INTERNAL, "out of memory");
  *out = b;
  return TETHER_OK;
}

static void plugin_destroy(tether_backend *self) { free(self); }

/* Designated initialisers: every slot not named is NULL, i.e. the operation is absent. */
static const tether_backend_vtable g_vtable = {
    .struct_size = sizeof(tether_backend_vtable),
    .describe = op_describe,
    .fingerprint = op_fingerprint,
    .verify = op_verify,
    .open = op_open,
};

const tether_plugin_entry tether_entry = {
    .magic = TETHER_PLUGIN_MAGIC,
    .abi_major = TETHER_ABI_MAJOR,
    .abi_minor = TETHER_ABI_MINOR,
    .struct_size = sizeof(tether_plugin_entry),
    .kind = "cexample",
    .plugin_version = "0.1.0",
    .init = plugin_init,
    .deinit = plugin_deinit,
    .create = plugin_create,
    .destroy = plugin_destroy,
    .vtable = &g_vtable,
};
