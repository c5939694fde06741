/* Growable buffer (srv_sbuf.h). */
#include "srv_sbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(el__sb *b, size_t extra) {
  if (b->oom) return -1;
  if (b->len + extra + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

void el__sb_put(el__sb *b, const char *s, size_t n) {
  if (reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void el__sb_puts(el__sb *b, const char *s) { el__sb_put(b, s, strlen(s)); }

void el__sb_printf(el__sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    el__sb_put(b, small, (size_t)n);
    return;
  }
  if (reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void el__sb_json_str(el__sb *b, const char *s, size_t n) {
  if (reserve(b, n + 2)) return;
  b->data[b->len++] = '"';
  size_t run = 0; /* bytes copied verbatim in one go */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    el__sb_put(b, s + run, i - run);
    run = i + 1;
    char esc[8];
    switch (c) {
      case '"': el__sb_put(b, "\\\"", 2); break;
      case '\\': el__sb_put(b, "\\\\", 2); break;
      case '\n': el__sb_put(b, "\\n", 2); break;
      case '\r': el__sb_put(b, "\\r", 2); break;
      case '\t': el__sb_put(b, "\\t", 2); break;
      default:
        snprintf(esc, sizeof esc, "\\u%04x", c);
        el__sb_put(b, esc, 6);
    }
  }
  el__sb_put(b, s + run, n - run);
  el__sb_put(b, "\"", 1);
}

void el__sb_json_num(el__sb *b, double v) {
  if (!isfinite(v)) {
    el__sb_put(b, "null", 4);
    return;
  }
  el__sb_printf(b, "%.9g", v);
}

void el__sb_json_float(el__sb *b, float v) {
  if (!isfinite(v)) {
    el__sb_put(b, "null", 4);
    return;
  }
  char buf[32];
  for (int prec = 6; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
    if (strtof(buf, NULL) == v) break;
  }
  el__sb_puts(b, buf);
}

char *el__sb_take(el__sb *b, size_t *len) {
  if (b->oom) {
    el__sb_free(b);
    return NULL;
  }
  if (!b->data && reserve(b, 0)) return NULL;
  char *d = b->data;
  if (len) *len = b->len;
  b->data = NULL;
  b->len = b->cap = 0;
  return d;
}

void el__sb_free(el__sb *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}
