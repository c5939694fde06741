/* Word frequencies (word_freq.h). */
#include "word_freq.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainer_api.h"
#include "strmap.h"

/* A table of a few hundred thousand words is a few MB; a larger file is
 * not a word-count table. */
#define MAX_FILE ((size_t)256 << 20)
#define WORD_MAX 100
#define COUNT_MAX 1000000000000000LL

struct el__word_freq {
  el__strmap map; /* lower-cased word -> count */
  double total;
};

static int bad_line(el_error *err, const char *path, long line, const char *what) {
  return el_error_set(err, EL_EFORMAT, "%s:%ld: %s (a word-count line is: word, tab, count)", path,
                      line, what);
}

/* One "word\tcount" line of n bytes into f. */
static int add_line(el__word_freq *f, const char *s, size_t n, const char *path, long line,
                    el_error *err) {
  const char *tab = memchr(s, '\t', n);
  if (!tab || tab == s) return bad_line(err, path, line, "no word and tab");
  size_t wlen = (size_t)(tab - s);
  if (wlen > WORD_MAX) return bad_line(err, path, line, "word longer than 100 bytes");
  char word[WORD_MAX + 1], num[24];
  for (size_t i = 0; i < wlen; i++) word[i] = (char)tolower((unsigned char)s[i]);
  size_t clen = n - wlen - 1;
  if (clen == 0 || clen >= sizeof num) return bad_line(err, path, line, "no count");
  memcpy(num, tab + 1, clen);
  num[clen] = 0;
  char *end;
  errno = 0;
  long long c = strtoll(num, &end, 10);
  if (*end || c <= 0 || errno) return bad_line(err, path, line, "the count is not a positive integer");
  /* no text has 10^15 words: a count past it is no count, and sums stay far from overflow */
  if (c > COUNT_MAX || f->total + (double)c > (double)COUNT_MAX)
    return bad_line(err, path, line, "counts past 10^15 in all");
  int i = el__strmap_get(&f->map, word, (int)wlen, NULL);
  if (i < 0) return el_error_set(err, EL_ENOMEM, "%s: out of memory", path);
  f->map.value[i] += c;
  f->total += (double)c;
  return EL_OK;
}

static int parse(el__word_freq *f, const char *buf, size_t len, const char *path, el_error *err) {
  long line = 0;
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(buf + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
    line++;
    size_t m = n && buf[at + n - 1] == '\r' ? n - 1 : n;
    if (m) {
      int rc = add_line(f, buf + at, m, path, line, err);
      if (rc) return rc;
    }
    at += n + 1;
  }
  return f->total > 0 ? EL_OK : el_error_set(err, EL_EFORMAT, "%s: no word counts in the file", path);
}

int el__word_freq_parse(const char *buf, size_t len, const char *name, el__word_freq **out,
                        el_error *err) {
  *out = NULL;
  el__word_freq *f = calloc(1, sizeof *f);
  int rc = f ? parse(f, buf, len, name, err) : el_error_set(err, EL_ENOMEM, "%s: out of memory", name);
  if (rc) {
    el__word_freq_free(f);
    return rc;
  }
  *out = f;
  return EL_OK;
}

int el__word_freq_load(const char *path, el__word_freq **out, el_error *err) {
  *out = NULL;
  char *buf = NULL;
  size_t len = 0;
  int rc = el__read_file(path, MAX_FILE, &buf, &len, err);
  if (!rc) rc = el__word_freq_parse(buf, len, path, out, err);
  free(buf);
  return rc;
}

void el__word_freq_free(el__word_freq *f) {
  if (!f) return;
  el__strmap_free(&f->map);
  free(f);
}

static float word_logp(const el__word_freq *f, const char *w, size_t n) {
  char low[WORD_MAX + 1];
  double c = 0.5;
  if (n <= WORD_MAX) {
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)w[i]);
    int i = el__strmap_find(&f->map, low, (int)n);
    if (i >= 0) c = (double)f->map.value[i];
  }
  return (float)log(c / (f->total + 0.5));
}

float el__word_freq_logp(const el__word_freq *f, const char *text) {
  float lp = 0;
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, " -");
    if (n) lp += word_logp(f, p, n);
    p += n + (p[n] != 0);
  }
  return lp;
}
