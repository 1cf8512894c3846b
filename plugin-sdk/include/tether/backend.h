/* tether/backend.h: the tether backend plugin ABI, version 0.1.
 *
 * UNSTABLE while 0.x: a host loads a plugin only when abi_major AND abi_minor match its own.
 * This file is the whole contract for a plugin written in C: it compiles as C11 and C++20
 * with -Wall -Wextra -pedantic -Werror, and includes only <stddef.h> and <stdint.h>.
 *
 * Shape
 *   A plugin is a shared object named tether-backend-<kind>.so that exports exactly one
 *   symbol, `tether_entry` (a constant tether_plugin_entry). The entry creates backend
 *   instances; each instance serves every object of its kind, so every per-object
 *   argument (the locator, a state, a pin) travels in the request of each call.
 *
 * Requests and replies are JSON
 *   Every operation has the signature of tether_op: a UTF-8 JSON object in, results pushed
 *   back through the host services of the call. Field names are snake_case. Integers that
 *   can exceed 2^53 travel as strings. Both sides ignore fields they do not know, so
 *   payloads may grow without an ABI bump. The request text is NUL-terminated, and at
 *   least TETHER_REQUEST_PADDING readable bytes follow its end (a plugin may run simdjson
 *   on it without copying).
 *
 * Ownership
 *   - Borrowed in: the request text, `call` and every pointer the host passes are valid
 *     only until the operation returns. Copy what you keep. Never keep `call`.
 *   - Pushed out: reply(), emit() and fail() copy their arguments before returning, so a
 *     plugin may pass stack or temporary buffers. No plugin-allocated memory crosses the
 *     boundary and there is no free function.
 *   - Static strings in the entry (kind, plugin_version) live as long as the .so is loaded.
 *
 * Errors
 *   An operation returns TETHER_OK after at most one reply(), or a non-OK status after
 *   exactly one fail() with that same status. Messages are one line, for people and logs.
 *   C++ exceptions, longjmp and signals never cross this boundary.
 *
 * Threads
 *   The host fans out across objects on a pool. When describe() reports
 *   "thread_safe": true the host may call any operation of one instance from several threads
 *   at once; otherwise it serialises calls per instance. init/deinit/create/destroy are never
 *   concurrent with anything else.
 *
 * Rationale: JSON payloads keep the C signature fixed while locators and states (which are
 * JSON-shaped already) grow; named slots keep NULL-means-unsupported and a readable table;
 * pushed results remove every question of who frees what.
 */
#ifndef TETHER_BACKEND_H
#define TETHER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TETHER_ABI_MAJOR 0
#define TETHER_ABI_MINOR 1
#define TETHER_PLUGIN_MAGIC 0x54544852u /* "TTHR" */
#define TETHER_REQUEST_PADDING 64

#if defined(_WIN32)
#define TETHER_EXPORT __declspec(dllexport)
#else
#define TETHER_EXPORT __attribute__((visibility("default")))
#endif

/* ---- status categories -------------------------------------------------------------- */
typedef int32_t tether_status;
enum {
  TETHER_OK = 0,
  TETHER_E_BACKEND = 1,          /* generic backend failure                                  */
  TETHER_E_UNSUPPORTED = 2,      /* capability absent; details {"capability": "merge"}       */
  TETHER_E_REF_MOVED = 3,        /* compare-and-swap lost; details {"ref","expected","actual"}*/
  TETHER_E_MERGE_CONFLICT = 4,   /* nothing written; details {"conflicts": ["path", ...]}    */
  TETHER_E_NOT_FOUND = 5,        /* the store, ref, pin or state does not exist              */
  TETHER_E_INVALID_ARGUMENT = 6, /* malformed request, bad locator                           */
  TETHER_E_IO = 7,
  TETHER_E_AUTH = 8,
  TETHER_E_TIMEOUT = 9,
  TETHER_E_CANCELLED = 10,
  TETHER_E_CORRUPT = 11,
  TETHER_E_INTERNAL = 12
  /* 0..127 reserved for tether; a host maps unknown values to TETHER_E_BACKEND. */
};

/* ---- capability bits (fixed values; describe() reports "capabilities" as their OR) ----- */
enum {
  TETHER_CAP_FINGERPRINT = 1u << 0,       /* can read the current state (every backend)       */
  TETHER_CAP_ADDRESSABLE = 1u << 1,       /* a recorded state can be read back without a ref  */
  TETHER_CAP_PIN = 1u << 2,               /* can create/delete durable native refs            */
  TETHER_CAP_FORK = 1u << 3,              /* can create writable branches                     */
  TETHER_CAP_CHEAP_FINGERPRINT = 1u << 4, /* fingerprint reads metadata only                  */
  TETHER_CAP_RETENTION_BOUND = 1u << 5,   /* recorded states expire with retention            */
  TETHER_CAP_NEEDS_QUIESCENCE = 1u << 6,  /* commit calls check_quiescence first              */
  TETHER_CAP_ATOMIC_REF = 1u << 7,        /* pin is create-if-absent                          */
  TETHER_CAP_DIFF = 1u << 8,              /* native diff between two states                   */
  TETHER_CAP_HISTORY = 1u << 9,           /* native history listing                           */
  TETHER_CAP_BRANCH_IS_STORAGE = 1u << 10,/* deleting a branch reclaims data                  */
  TETHER_CAP_PROMOTE = 1u << 11,          /* fast-forward the base branch                     */
  TETHER_CAP_MERGE = 1u << 12,            /* three-way merge into the base branch             */
  TETHER_CAP_CREATE = 1u << 13,           /* can create an empty store                        */
  TETHER_CAP_CONDITIONAL_REF = 1u << 14   /* expected-checks are atomic with the move         */
};

typedef struct tether_backend tether_backend; /* plugin-owned instance, opaque to the host */
typedef struct tether_call tether_call;       /* one operation in flight, owned by the host */
typedef struct tether_host tether_host;

/* ---- host services -------------------------------------------------------------------- */
/* Every function is thread-safe and may be called only during the operation that received
 * `call`. Each copies its arguments before returning. */
struct tether_host {
  uint32_t struct_size; /* sizeof(tether_host) as the host compiled it */
  uint16_t abi_major;
  uint16_t abi_minor;
  /* The operation's result: one JSON object. At most once per call. */
  void (*reply)(tether_call *call, const char *json, size_t len);
  /* One list item (history entries): a JSON object. Returns nonzero when the host wants no
   * more items; the plugin then stops and returns TETHER_OK. */
  int (*emit)(tether_call *call, const char *json, size_t len);
  /* The operation's error. Exactly once when it returns non-OK. `details_json` may be NULL. */
  void (*fail)(tether_call *call, tether_status status, const char *message,
               const char *details_json);
  /* Diagnostics: level 0 debug, 1 info, 2 warning. Never secrets. */
  void (*log)(tether_call *call, int level, const char *message);
  /* Nonzero when the user interrupted; return TETHER_E_CANCELLED soon after. */
  int (*cancelled)(tether_call *call);
  /* Progress of long work, shown on a terminal. total 0 = unknown. */
  void (*progress)(tether_call *call, uint64_t done, uint64_t total);
  /* ---- ABI 0.2: appended below this line, never above ---- */
  /* Progress with what is being done. Appended after the first 0.1 services, so a host
   * built before it has a smaller struct_size: call it only when `struct_size >=
   * offsetof(tether_host, progress_step) + sizeof(void *)` and the slot is non-NULL, else
   * call progress() (the C++ SDK's Call::progress does both).
   * `step` ("hashing", "listing") and `unit` ("files", "objects", "commits") are short
   * ASCII words, NULL for none; the host shows at most 24 printable characters of each.
   * `done` / `total` count units (total 0 = unknown); `bytes` is the bytes processed so far
   * (0 = not counted), from which the host shows a rate. Cheap but not free: call it every
   * few hundred items or megabytes, not per item; the host redraws at most 10 times a
   * second. Thread-safe like every service: worker threads of the call may report. */
  void (*progress_step)(tether_call *call, const char *step, const char *unit, uint64_t done,
                        uint64_t total, uint64_t bytes);
};

/* The call handle. The host places its own data after `host`; a plugin reads only `host`. */
struct tether_call {
  const tether_host *host;
};

/* Every operation. `request` is a JSON object of `len` bytes (NUL-terminated, padded). */
typedef tether_status (*tether_op)(tether_backend *self, tether_call *call, const char *request,
                                   size_t len);

/* ---- the operation table (plugin -> host) ----------------------------------------------
 * Append-only. The host copies min(plugin struct_size, host struct_size) bytes into a zeroed
 * table and never calls past the plugin's size. A NULL slot means the operation is absent:
 * for an optional capability op the host raises a capability error without calling; for
 * the locator helpers (identity ... state_addressable) the host applies the default stated.
 *
 * Common request fields:
 *   "locator": {..}     the object's locator (always present for per-object ops)
 *   "state":   {..}     a full state, volatile keys included
 *   "pin":     {"id": "<ds8>.<hash16>", "ref": "tether.<id>"}
 *   "source" / "target": exactly one of {"pin": {..}} | {"state": {..}} | {"ref": "name"};
 *                       an empty object {} means the base (or working) branch
 *   "expected": absent = move unconditionally; {} = the branch must not exist (ABSENT);
 *               a state = the head the caller reviewed. A mismatch (compared without
 *               volatile keys) fails TETHER_E_REF_MOVED and moves nothing. Every plugin
 *               honours it; CONDITIONAL_REF says the check and the move are atomic.
 * "tri-state" replies use true / false / null (unknown).
 */
typedef struct tether_backend_vtable {
  uint32_t struct_size; /* sizeof(tether_backend_vtable) as the plugin compiled it */
  uint32_t reserved;    /* zero */

  /* ---- ABI 0.1 ---- */
  /* [required] {} -> {"kind", "maturity": "stable"|"experimental", "capabilities": N,
   *   "volatile_keys": [..], "local_path_keys": [..], "local_path_prefixes": [..],
   *   "uri_keys": [..], "key_suffixes": [..]|null, "safe_config_keys": [..],
   *   "safe_option_keys": {"table": [..]}, "promote_hint": "", "thread_safe": bool,
   *   "batch_verify": bool (optional, false: verify_many answers a batch in one pass, so the
   *   host sends one batch per core rather than many concurrent ones)} */
  tether_op describe;
  /* [optional] {"cache_dir", "checkout", "defaults": {..}, "rules": {"<uri prefix>": {..}}}
   *   -> {}. Called once after create, before any per-object op. `defaults` and `rules`
   *   come from the untracked secrets file and the allowlisted committed config. */
  tether_op configure;

  /* Locator helpers: NULL means the default shown. */
  tether_op identity;               /* {locator} -> {"identity": {..}}; default: the locator  */
  tether_op validate_locator;       /* {locator} -> {}; default: accept                       */
  tether_op effective_capabilities; /* {locator, "policy": {"file","pin"}} -> {"capabilities"}
                                       default: describe's capabilities                      */
  tether_op base_branch;            /* {locator} -> {"branch"}; default locator.branch|"main" */
  tether_op branch_scope;           /* {locator} -> {"scope"}; default canonical identity     */
  tether_op ref_namespace;          /* {locator} -> {"namespace"}; default canonical identity */
  tether_op default_key;            /* {locator} -> {"key": str|null}; default null           */
  tether_op state_addressable;      /* {locator, state} -> {"addressable": bool}; default true*/

  /* [required] {locator, "working_ref": str|null} -> {"state": {..}} */
  tether_op fingerprint;
  /* [required] {locator, state, "pin": {..}|null, "deep": bool}
   *   -> {"status": "ok"|"drifted"|"missing"|"unknown", "message": ""} */
  tether_op verify;

  /* PIN */
  tether_op pin;       /* {locator, state, "pin_id"} -> {"pin": {"id","ref","created"}}        */
  tether_op unpin;     /* {locator, pin} -> {}; already gone is success                        */
  tether_op list_pins; /* {locator} -> {"pins": ["<id>", ..]} every dataset's, prefix stripped */

  /* FORK */
  tether_op fork;                 /* {locator, source, "name", expected?} -> {"ref"}          */
  tether_op delete_working_ref;   /* {locator, "ref"} -> {}                                   */
  tether_op list_working_refs;    /* {locator} -> {"refs": ["tether.ws.*", ..]}               */
  tether_op working_ref_blockers; /* {locator, "ref"} -> {"blocker": str|null}                */

  /* open: {locator, target, "read_only": bool} -> {"handle": {"address": str, ...}} [required] */
  tether_op open;

  /* DIFF */
  tether_op listing; /* {locator, state} -> {"listing": str|null}                             */
  tether_op diff;    /* {locator, "a": state, "b": state, "listing_a": str|null,
                        "listing_b": str|null} -> {"unit", "added", "removed", "modified",
                        "truncated", "note", "entries": [{"path","change","detail"}]}         */
  /* HISTORY: {locator, "ref": str|null, "limit": N} -> emit({"id","when","message","refs"})
   * newest first, then reply {} */
  tether_op history;

  /* PROMOTE / MERGE */
  tether_op promote;     /* {locator, source, expected?} -> {"state"}                          */
  tether_op merge;       /* {locator, source, "message", expected?} -> {"state"}              */
  tether_op ancestor_of; /* {locator, "ancestor": state, "descendant": source}
                            -> {"result": bool|null}                                          */

  /* NEEDS_QUIESCENCE: {locator, "working_ref"} -> {} or TETHER_E_BACKEND naming the writers */
  tether_op check_quiescence;

  /* CREATE */
  tether_op create;       /* {locator, "owner": "<ds8>"} -> {"state"}                         */
  tether_op owner;        /* {locator} -> {"owner": str|null}                                 */
  tether_op is_ref_empty; /* {locator, "ignoring": [..]} -> {"result": bool|null}             */
  tether_op delete_store; /* {locator} -> {}                                                  */

  /* upgrade helpers (optional; the host has defaults built from pin/unpin and fork) */
  tether_op rename_pin;         /* {locator, "old": pin, state, "new_id"} -> {"pin"}         */
  tether_op rename_working_ref; /* {locator, "old", "new"} -> {"ref"}                        */

  /* ---- ABI 0.2: appended below this line, never above ---- */
  /* PROMOTE / MERGE, optional (NULL: nothing blocks, and a promote cannot be undone):
   * promote_blockers: {locator, source, "merge": bool, expected?}
   *   -> {"blocker": str|null, "conflicts": [..]}: why promote (or merge) of `source` into
   *   the base would refuse right now, asked for every object before a bookmark's first
   *   move so that a refusal moves nothing. Reads only.
   * rewind: {locator, "to": state, expected} -> {"state"}: moves the base back to `to`, an
   *   ancestor of its head, conditional on `expected` (undo of a promote). */
  tether_op promote_blockers;
  tether_op rewind;
  /* verify_many, optional (NULL: the host calls verify once per item, so a plugin built
   * before this slot keeps working unchanged):
   *   {"items": [{locator, state, "pin": {..}|null, "deep": bool}, ..]}
   *   -> {"results": [r, ..]}: exactly one r per item, in the items' order. r is what verify
   *   would have replied for that item alone ({"status", "message"}), or, where verify would
   *   have failed, {"error": {"status": N, "message": ""}} with the status and one-line
   *   message it would have failed with; one item's failure never fails the others. The
   *   items may name many objects and many pins of one store: answer them in one pass where
   *   the store allows (list the refs once, not one lookup per pin). A non-OK return fails
   *   every item of the call. The host may send several batches concurrently when describe
   *   says thread_safe: up to 16 (each one a store round trip per item), or one per core
   *   when describe says batch_verify. */
  tether_op verify_many;
} tether_backend_vtable;

/* ---- the one exported symbol ---------------------------------------------------------- */
typedef struct tether_plugin_entry {
  uint32_t magic;     /* TETHER_PLUGIN_MAGIC                          */
  uint16_t abi_major; /* TETHER_ABI_MAJOR                             */
  uint16_t abi_minor; /* TETHER_ABI_MINOR                             */
  uint32_t struct_size; /* sizeof(tether_plugin_entry)                */
  const char *kind;           /* "file", "git", ...: the .so is tether-backend-<kind>.so */
  const char *plugin_version; /* semver of the plugin                                    */
  /* Counted: called once per host load before anything else; deinit once per init.
   * Return TETHER_OK or a status (the host then refuses the plugin). Never concurrent. */
  tether_status (*init)(const tether_host *host);
  void (*deinit)(void);
  /* Make an instance from `config` (a JSON object, may be {}); on failure call
   * call->host->fail() and return its status. The instance lives until destroy(). */
  tether_status (*create)(tether_call *call, const char *config, size_t len,
                          tether_backend **out);
  void (*destroy)(tether_backend *self);
  /* The operation table, constant for the life of the .so. */
  const tether_backend_vtable *vtable;
} tether_plugin_entry;

/* Named unlike the typedef: in C, typedefs and objects share one namespace. */
TETHER_EXPORT extern const tether_plugin_entry tether_entry;

#ifdef __cplusplus
}
#endif

#endif /* TETHER_BACKEND_H */
