/* The checker's corrections of an M2 file's sentences, as token edits
 * (cmd_eval_m2.h): each sentence's text is its tokens joined by single
 * spaces, many sentences a call (one per line) so the checker batches them;
 * a match's first replacement is its correction, a match without one
 * proposes nothing. */
#include "cmd_eval_m2.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHUNK_SENTS 64 /* sentences per el__check_text call: a few batches' worth */

/* Sentences [first, first + n) joined by '\n' into buf (which fits them);
 * start[k]: where sentence first + k begins. */
static size_t join(const el__m2 *m, int first, int n, char *buf, size_t *start) {
  size_t w = 0;
  for (int k = 0; k < n; k++) {
    const el__m2_sent *s = &m->s[first + k];
    start[k] = w;
    memcpy(buf + w, s->text, s->len);
    w += s->len;
    buf[w++] = '\n';
  }
  return w;
}

/* Each match with a replacement as an edit of the sentence it falls in; a
 * match across a line break (no sentence's) proposes nothing. */
static int to_edits(const el__m2 *m, int first, int n, const size_t *start, const el__matches *ms,
                    el__m2_edits *prop, el_error *err) {
  for (int i = 0, k = 0; i < ms->n; i++) {
    const el__match *mt = &ms->m[i];
    while (k + 1 < n && start[k + 1] <= mt->offset) k++;
    const el__m2_sent *s = &m->s[first + k];
    if (!mt->n_repl || mt->offset < start[k] || mt->offset + mt->length > start[k] + s->len)
      continue;
    int rc = el__m2_add_byte_edit(s, mt->offset - start[k], mt->length, mt->repl[0],
                                  el__etype_name(mt->type), &prop[first + k], err);
    if (rc) return rc;
  }
  return EL_OK;
}

int el__eval_m2_check(el__checker *c, el__dict_variant v, const el__m2 *m, el__m2_edits *prop,
                      el_error *err) {
  int rc = EL_OK;
  size_t start[CHUNK_SENTS];
  for (int first = 0; rc == EL_OK && first < m->n; first += CHUNK_SENTS) {
    int n = m->n - first < CHUNK_SENTS ? m->n - first : CHUNK_SENTS;
    size_t cap = 0;
    for (int k = 0; k < n; k++) cap += m->s[first + k].len + 1;
    char *buf = malloc(cap);
    if (!buf) return el_error_set(err, EL_ENOMEM, "out of memory");
    size_t len = join(m, first, n, buf, start);
    el__matches ms = {0};
    rc = el__check_text(c, buf, len, v, &ms, err);
    if (rc == EL_OK) rc = to_edits(m, first, n, start, &ms, prop, err);
    el__matches_free(&ms);
    free(buf);
  }
  return rc;
}
