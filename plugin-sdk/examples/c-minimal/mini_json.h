/* mini_json.h: just enough JSON for a C plugin whose requests are simple. It checks that a
 * request is one well-formed JSON value, finds a member of an object and copies out a string
 * value. No allocation; every span points into the caller's text. Not a general parser: a
 * real plugin would use a JSON library (the C++ SDK uses nlohmann/json). */
#ifndef TETHER_EXAMPLE_MINI_JSON_H
#define TETHER_EXAMPLE_MINI_JSON_H

#include <stddef.h>
#include <string.h>

typedef struct mj_span {
  const char *p; /* first byte of the value, NULL when absent */
  size_t n;      /* its length in bytes */
} mj_span;

static inline const char *mj_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  return p;
}

/* Skips one value starting at p (after whitespace); returns the byte after it or NULL when
 * the text is not well-formed. `depth` bounds nesting. */
static inline const char *mj_skip(const char *p, const char *end, int depth) {
  p = mj_ws(p, end);
  if (p >= end || depth > 64) return NULL;
  if (*p == '"') {
    for (++p; p < end; ++p) {
      if (*p == '\\') {
        if (++p >= end) return NULL;
      } else if (*p == '"') {
        return p + 1;
      } else if ((unsigned char)*p < 0x20) {
        return NULL;
      }
    }
    return NULL;
  }
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    int first = 1;
    p = mj_ws(p + 1, end);
    if (p < end && *p == close) return p + 1;
    for (;;) {
      if (!first) {
        p = mj_ws(p, end);
        if (p < end && *p == close) return p + 1;
        if (p >= end || *p != ',') return NULL;
        ++p;
      }
      first = 0;
      if (close == '}') {
        p = mj_ws(p, end);
        if (p >= end || *p != '"') return NULL;
        p = mj_skip(p, end, depth + 1);
        if (!p) return NULL;
        p = mj_ws(p, end);
        if (p >= end || *p != ':') return NULL;
        ++p;
      }
      p = mj_skip(p, end, depth + 1);
      if (!p) return NULL;
    }
  }
  if (end - p >= 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0)) return p + 4;
  if (end - p >= 5 && memcmp(p, "false", 5) == 0) return p + 5;
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    const char *q = p + (*p == '-');
    if (q >= end || *q < '0' || *q > '9') return NULL;
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-')) ++q;
    return q;
  }
  return NULL;
}

/* Nonzero when [text, text+len) is exactly one JSON object (surrounding whitespace allowed). */
static inline int mj_is_object(const char *text, size_t len) {
  const char *end = text + len, *p = mj_ws(text, end), *q;
  if (p >= end || *p != '{') return 0;
  q = mj_skip(p, end, 0);
  return q && mj_ws(q, end) == end;
}

/* The value of member `key` of the object `obj` (a well-formed object span), or {NULL, 0}. */
static inline mj_span mj_member(mj_span obj, const char *key) {
  mj_span none = {NULL, 0};
  const char *end = obj.p + obj.n, *p = mj_ws(obj.p, end);
  size_t klen = strlen(key);
  if (!obj.p || p >= end || *p != '{') return none;
  p = mj_ws(p + 1, end);
  while (p < end && *p == '"') {
    const char *kend = mj_skip(p, end, 0), *v, *vend;
    if (!kend) return none;
    v = mj_ws(kend, end);
    if (v >= end || *v != ':') return none;
    v = mj_ws(v + 1, end);
    vend = mj_skip(v, end, 0);
    if (!vend) return none;
    if ((size_t)(kend - p) == klen + 2 && memcmp(p + 1, key, klen) == 0) {
      mj_span s = {v, (size_t)(vend - v)};
      return s;
    }
    p = mj_ws(vend, end);
    if (p < end && *p == ',') p = mj_ws(p + 1, end);
  }
  return none;
}

static inline int mj_is(mj_span s, char first) { return s.p && s.n > 0 && s.p[0] == first; }

/* Copies the string value `s` (escapes \" \\ \/ \n \t \r \b \f decoded) into out[cap].
 * Returns 0, or -1 when `s` is not a string, uses \u escapes, or does not fit. */
static inline int mj_string(mj_span s, char *out, size_t cap) {
  size_t i, o = 0;
  if (!mj_is(s, '"') || s.n < 2 || cap == 0) return -1;
  for (i = 1; i + 1 < s.n; ++i) {
    char c = s.p[i];
    if (c == '\\') {
      char e = s.p[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
      if (e == 'u') return -1;
    }
    if (o + 1 >= cap) return -1;
    out[o++] = c;
  }
  out[o] = '\0';
  return 0;
}

/* Writes `s` as a JSON string literal into out[cap]; returns the length or -1 if it does not fit. */
static inline int mj_quote(const char *s, char *out, size_t cap) {
  size_t o = 0;
  if (cap < 3) return -1;
  out[o++] = '"';
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (o + 7 >= cap) return -1;
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out[o++] = '\\';
      out[o++] = 'u';
      out[o++] = '0';
      out[o++] = '0';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    } else {
      out[o++] = (char)c;
    }
  }
  out[o++] = '"';
  out[o] = '\0';
  return (int)o;
}

#endif /* TETHER_EXAMPLE_MINI_JSON_H */
