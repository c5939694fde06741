/* Form-urlencoded decoding (lt_form.h). */
#include "lt_form.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_api.h"

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes s[0..n) (no '&' inside) into d, returning the decoded length, or
 * -1 with msg set. d has room for n bytes: decoding only shrinks. */
static ptrdiff_t unescape(const char *s, size_t n, char *d, char *msg, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '+') {
      d[k++] = ' ';
      continue;
    }
    if (s[i] != '%') {
      d[k++] = s[i];
      continue;
    }
    int hi = i + 1 < n ? hexval(s[i + 1]) : -1;
    int lo = hi >= 0 && i + 2 < n ? hexval(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) return snprintf(msg, cap, "bad %%-escape in the form body"), -1;
    if (!hi && !lo) return snprintf(msg, cap, "%%00 (a NUL byte) in the form body"), -1;
    d[k++] = (char)(hi * 16 + lo);
    i += 2;
  }
  return (ptrdiff_t)k;
}

/* A decoded, NUL-terminated copy of s[0..n), valid UTF-8; NULL with msg set. */
static char *decode(const char *s, size_t n, size_t *out_len, char *msg, size_t cap) {
  char *d = malloc(n + 1);
  int32_t *cps = malloc((n + 1) * sizeof *cps);
  ptrdiff_t k = d && cps ? unescape(s, n, d, msg, cap) : -1;
  if (!d || !cps) snprintf(msg, cap, "out of memory");
  size_t bad_at = 0;
  const char *why = NULL;
  if (k >= 0 && el__utf8_decode(d, (size_t)k, cps, &bad_at, &why) < 0) {
    snprintf(msg, cap, "the form body decodes to invalid UTF-8 (%s)", why ? why : "malformed");
    k = -1;
  }
  free(cps);
  if (k < 0) {
    free(d);
    return NULL;
  }
  d[k] = 0;
  *out_len = (size_t)k;
  return d;
}

/* Appends the pair s[0..n) ("key=value", "key" alone is an empty value). */
static int add_pair(el__form *f, const char *s, size_t n, char *msg, size_t cap) {
  if (f->n == EL__FORM_MAX_FIELDS)
    return snprintf(msg, cap, "more than %d fields in the form body", EL__FORM_MAX_FIELDS), -1;
  const char *eq = memchr(s, '=', n);
  size_t kn = eq ? (size_t)(eq - s) : n, klen = 0;
  if (!kn) return snprintf(msg, cap, "a field without a name in the form body"), -1;
  el__form_field *fld = &f->f[f->n];
  fld->key = decode(s, kn, &klen, msg, cap);
  if (!fld->key) return -1;
  fld->value = decode(eq ? eq + 1 : s + n, eq ? n - kn - 1 : 0, &fld->value_len, msg, cap);
  if (!fld->value) {
    free(fld->key);
    return -1;
  }
  f->n++;
  return 0;
}

int el__form_parse(const char *body, size_t len, el__form *out, char *msg, size_t cap) {
  memset(out, 0, sizeof *out);
  out->f = calloc(EL__FORM_MAX_FIELDS, sizeof *out->f);
  if (!out->f) return snprintf(msg, cap, "out of memory"), -1;
  size_t i = 0;
  while (i < len) {
    const char *amp = memchr(body + i, '&', len - i);
    size_t n = amp ? (size_t)(amp - (body + i)) : len - i;
    /* "a=1&&b=2" and a trailing '&' are tolerated, as browsers' forms are */
    if (n && add_pair(out, body + i, n, msg, cap) < 0) {
      el__form_free(out);
      return -1;
    }
    i += n + 1;
  }
  return 0;
}

const el__form_field *el__form_get(const el__form *f, const char *key, int *count) {
  const el__form_field *first = NULL;
  int c = 0;
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->f[i].key, key)) {
      if (!first) first = &f->f[i];
      c++;
    }
  if (count) *count = c;
  return first;
}

void el__form_free(el__form *f) {
  if (!f) return;
  for (int i = 0; i < f->n; i++) {
    free(f->f[i].key);
    free(f->f[i].value);
  }
  free(f->f);
  memset(f, 0, sizeof *f);
}
