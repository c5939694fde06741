/* Token edits in minimal form (m2.h): from a token span or from bytes of
 * the sentence's text, as a checker reports its corrections. */
#include "m2.h"

#include <stdlib.h>
#include <string.h>

#include "trainer_api.h"

typedef struct span {
  size_t b, e;
} span;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The whitespace-separated tokens of s[0, n) into *out (malloc'd); how many,
 * or -1 when out of memory. */
static int split(const char *s, size_t n, span **out) {
  *out = malloc((n / 2 + 1) * sizeof **out);
  if (!*out) return -1;
  int k = 0;
  for (size_t i = 0; i < n;) {
    while (i < n && is_space(s[i])) i++;
    size_t b = i;
    while (i < n && !is_space(s[i])) i++;
    if (i > b) (*out)[k++] = (span){b, i};
  }
  return k;
}

int el__m2_push_edit(el__m2_edits *out, int start, int end, const char *repl, size_t repl_len,
                     const char *type, el_error *err) {
  size_t cap = (size_t)out->cap;
  span *r = NULL;
  int k = split(repl, repl_len, &r);
  char *joined = malloc(repl_len + 1);
  if (k < 0 || !joined || el__grow((void **)&out->e, &cap, (size_t)out->n + 1, sizeof *out->e)) {
    free(r);
    free(joined);
    return el_error_set(err, EL_ENOMEM, "M2 edits: out of memory");
  }
  out->cap = (int)cap;
  size_t w = 0;
  for (int i = 0; i < k; i++) {
    if (i) joined[w++] = ' ';
    memcpy(joined + w, repl + r[i].b, r[i].e - r[i].b);
    w += r[i].e - r[i].b;
  }
  joined[w] = 0;
  free(r);
  el__m2_edit *e = &out->e[out->n++];
  e->start = start;
  e->end = end;
  e->repl = joined;
  snprintf(e->type, sizeof e->type, "%s", type ? type : "");
  return EL_OK;
}

/* Token t of s equals repl[sp]. */
static int same_tok(const el__m2_sent *s, int t, const char *repl, span sp) {
  return (size_t)s->tlen[t] == sp.e - sp.b && !memcmp(s->text + s->off[t], repl + sp.b, sp.e - sp.b);
}

/* The last edit of es equals an earlier one. */
static int repeats_last(const el__m2_edits *es) {
  const el__m2_edit *l = &es->e[es->n - 1];
  for (int i = 0; i < es->n - 1; i++)
    if (es->e[i].start == l->start && es->e[i].end == l->end && !strcmp(es->e[i].repl, l->repl))
      return 1;
  return 0;
}

int el__m2_add_edit(const el__m2_sent *s, int start, int end, const char *repl, const char *type,
                    el__m2_edits *out, el_error *err) {
  if (start < 0 || end < start || end > s->n_tok)
    return el_error_set(err, EL_EINVAL, "M2 edit: span %d %d outside the sentence's %d tokens",
                        start, end, s->n_tok);
  span *r = NULL;
  int k = split(repl, strlen(repl), &r);
  if (k < 0) return el_error_set(err, EL_ENOMEM, "M2 edits: out of memory");
  int pre = 0, suf = 0, n = end - start;
  while (pre < n && pre < k && same_tok(s, start + pre, repl, r[pre])) pre++;
  while (suf < n - pre && suf < k - pre && same_tok(s, end - 1 - suf, repl, r[k - 1 - suf])) suf++;
  start += pre;
  end -= suf;
  k -= pre + suf;
  size_t b = k ? r[pre].b : 0, e = k ? r[pre + k - 1].e : 0;
  free(r);
  if (start == end && k == 0) return EL_OK; /* changes nothing */
  int rc = el__m2_push_edit(out, start, end, repl + b, e - b, type, err);
  if (rc == EL_OK && repeats_last(out)) free(out->e[--out->n].repl);
  return rc;
}

static int byte_edit(const el__m2_sent *s, size_t off, size_t len, const char *repl,
                     const char *type, el__m2_edits *out, el_error *err);

/* The tokens [*first, *last] that the byte span [off, off + len) touches: for
 * a non-empty span those overlapping it or adjacent to it (a span of the
 * space between two tokens joins them), for an insertion the token it falls
 * strictly inside. 0 when none. */
static int touched(const el__m2_sent *s, size_t off, size_t len, int *first, int *last) {
  *first = -1;
  for (int i = 0; i < s->n_tok; i++) {
    size_t b = (size_t)s->off[i], e = b + (size_t)s->tlen[i];
    int hit = len ? b <= off + len && e >= off : b < off && off < e;
    if (!hit) continue;
    if (*first < 0) *first = i;
    *last = i;
  }
  return *first >= 0;
}

/* Whole words the replacement keeps at either end of the span, cut from
 * both: a checker's match for a comma ("However I": bytes " I" -> ", I") is
 * the comma's insertion after "However", a token of its own as in the M2
 * files, not "However" rewritten as "However,". Only runs that start (end)
 * at a space are cut, so "go" -> "goes" stays a rewrite of the token. */
static void cut_kept(const char *text, size_t *off, size_t *len, const char **repl, size_t *rl) {
  const char *t = text + *off;
  size_t keep = 0; /* the longest common tail that starts at a space */
  for (size_t k = 1; k <= *len && k <= *rl && t[*len - k] == (*repl)[*rl - k]; k++)
    if (is_space(t[*len - k])) keep = k;
  *len -= keep, *rl -= keep;
  keep = 0; /* the longest common head that ends at a space */
  for (size_t k = 1; k <= *len && k <= *rl && t[k - 1] == (*repl)[k - 1]; k++)
    if (is_space(t[k - 1])) keep = k;
  *off += keep, *len -= keep, *repl += keep, *rl -= keep;
}

int el__m2_add_byte_edit(const el__m2_sent *s, size_t off, size_t len, const char *repl_in,
                         const char *type, el__m2_edits *out, el_error *err) {
  if (off > s->len || len > s->len - off)
    return el_error_set(err, EL_EINVAL, "M2 edit: bytes %zu..%zu outside the sentence's %zu",
                        off, off + len, s->len);
  size_t rl = strlen(repl_in);
  cut_kept(s->text, &off, &len, &repl_in, &rl);
  char *repl = malloc(rl + 1);
  if (!repl) return el_error_set(err, EL_ENOMEM, "M2 edits: out of memory");
  memcpy(repl, repl_in, rl);
  repl[rl] = 0;
  int rc = byte_edit(s, off, len, repl, type, out, err);
  free(repl);
  return rc;
}

/* el__m2_add_byte_edit's edit once the kept words are cut. */
static int byte_edit(const el__m2_sent *s, size_t off, size_t len, const char *repl,
                     const char *type, el__m2_edits *out, el_error *err) {
  int first, last;
  if (!touched(s, off, len, &first, &last)) {
    /* an insertion between tokens: a new token before the next one */
    int k = 0;
    while (k < s->n_tok && (size_t)s->off[k] < off) k++;
    return el__m2_add_edit(s, k, k, repl, type, out, err);
  }
  size_t b = (size_t)s->off[first], e = (size_t)(s->off[last] + s->tlen[last]);
  size_t rl = strlen(repl), n = (off - b) + rl + (e - off - len);
  char *whole = malloc(n + 1);
  if (!whole) return el_error_set(err, EL_ENOMEM, "M2 edits: out of memory");
  memcpy(whole, s->text + b, off - b);
  memcpy(whole + (off - b), repl, rl);
  memcpy(whole + (off - b) + rl, s->text + off + len, e - off - len);
  whole[n] = 0;
  int rc = el__m2_add_edit(s, first, last + 1, whole, type, out, err);
  free(whole);
  return rc;
}

void el__m2_edits_free(el__m2_edits *es) {
  if (!es) return;
  for (int i = 0; i < es->n; i++) free(es->e[i].repl);
  free(es->e);
  memset(es, 0, sizeof *es);
}
