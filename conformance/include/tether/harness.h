/* tether/harness.h: the conformance harness ABI. A backend author ships, beside the plugin,
 * a small harness .so exporting `tether_harness`: it makes fresh objects of the backend's
 * kind and writes to them, so `tether-conformance validate PLUGIN.so --harness HARNESS.so`
 * can drive every check of the suite. C11, like backend.h.
 *
 * Buffers: every function writes its JSON result (a NUL-terminated object) into `out`
 * (capacity `cap`) and an error message into `err` (capacity `errcap`); it returns 0 on
 * success and nonzero on failure. `workdir` is an empty scratch directory the runner made
 * for this case; the harness may create anything inside it. Called from one thread. */
#ifndef TETHER_HARNESS_H
#define TETHER_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TETHER_HARNESS_MAGIC 0x54484e53u /* "THNS" */

typedef struct tether_harness_entry {
  uint32_t magic;       /* TETHER_HARNESS_MAGIC */
  uint32_t struct_size; /* sizeof(tether_harness_entry) */
  const char *kind;     /* the backend kind this harness drives */
  /* JSON config handed to the plugin's create(); NULL means "{}". The runner replaces every
   * "${WORKDIR}" in it with the case's scratch directory, so plugin and harness can share a
   * store there (the memory harness: {"store": "${WORKDIR}/memory-store.json"}). */
  const char *backend_config;
  /* Nonzero: test as if the backend had exactly these capability bits (a lower tier). */
  uint32_t capabilities_override;
  /* A fresh, empty store with a `main` base branch: writes its locator to `out`. */
  int (*new_object)(const char *workdir, char *out, size_t cap, char *err, size_t errcap);
  /* Write something new at `working_ref` (NULL: the base). Two calls on different branches
   * write different units (a new file/key per call), so they merge without conflict. */
  int (*mutate)(const char *workdir, const char *locator_json, const char *working_ref, char *err,
                size_t errcap);
  /* CREATE backends: a locator where no store exists yet. NULL when not CREATE. */
  int (*fresh_locator)(const char *workdir, char *out, size_t cap, char *err, size_t errcap);
  /* Release what new_object made outside workdir (may be NULL). */
  void (*cleanup)(const char *workdir);
} tether_harness_entry;

#if defined(_WIN32)
#define TETHER_HARNESS_EXPORT __declspec(dllexport)
#else
#define TETHER_HARNESS_EXPORT __attribute__((visibility("default")))
#endif

TETHER_HARNESS_EXPORT extern const tether_harness_entry tether_harness;

#ifdef __cplusplus
}
#endif

#endif /* TETHER_HARNESS_H */
