/* harness.c: tether-harness-cexample.so, the conformance harness of the C example. A new
 * object is a file in the case's scratch directory; each mutation appends a line, so the size
 * (and so the state) changes every time. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mini_json.h"
#include "tether/harness.h"

static int data_file(const char *workdir, char *path, size_t cap, char *err, size_t errcap) {
  if ((size_t)snprintf(path, cap, "%s/data.txt", workdir) >= cap) {
    snprintf(err, errcap, "workdir path too long");
    return 1;
  }
  return 0;
}

static int new_object(const char *workdir, char *out, size_t cap, char *err, size_t errcap) {
  char path[4096], quoted[8300];
  FILE *f;
  if (data_file(workdir, path, sizeof path, err, errcap)) return 1;
  f = fopen(path, "w");
  if (!f || fputs("v0\n", f) < 0 || fclose(f) != 0) {
    snprintf(err, errcap, "cannot write %s: %s", path, strerror(errno));
    return 1;
  }
  if (mj_quote(path, quoted, sizeof quoted) < 0 || (size_t)snprintf(out, cap, "{\"path\":%s}", quoted) >= cap) {
    snprintf(err, errcap, "locator does not fit");
    return 1;
  }
  return 0;
}

static int mutate(const char *workdir, const char *locator_json, const char *working_ref, char *err, size_t errcap) {
  char path[4096];
  mj_span loc = {locator_json, strlen(locator_json)};
  FILE *f;
  (void)workdir;
  if (working_ref) {
    snprintf(err, errcap, "cexample has no working refs");
    return 1;
  }
  if (mj_string(mj_member(loc, "path"), path, sizeof path) != 0) {
    snprintf(err, errcap, "locator has no 'path'");
    return 1;
  }
  f = fopen(path, "a");
  if (!f || fputs("more\n", f) < 0 || fclose(f) != 0) {
    snprintf(err, errcap, "cannot append to %s: %s", path, strerror(errno));
    return 1;
  }
  return 0;
}

const tether_harness_entry tether_harness = {
    .magic = TETHER_HARNESS_MAGIC,
    .struct_size = sizeof(tether_harness_entry),
    .kind = "cexample",
    .backend_config = NULL,
    .capabilities_override = 0,
    .new_object = new_object,
    .mutate = mutate,
    .fresh_locator = NULL,
    .cleanup = NULL,
};
