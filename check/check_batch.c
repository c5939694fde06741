/* Packed sequences for the engine's batched calls (check_internal.h). */
#include <string.h>
#include <stdlib.h>

#include "check_internal.h"
#include "support_api.h"

void el__seqs_reset(el__seqs *s) {
  s->n = 0;
  s->n_ids = 0;
  s->open = 0;
}

int el__seqs_put(el__seqs *s, const int *ids, int n, el_error *err) {
  if (n <= 0) return 0;
  if (el__grow((void **)&s->ids, &s->ids_cap, s->n_ids + (size_t)n, sizeof *s->ids))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  memcpy(s->ids + s->n_ids, ids, (size_t)n * sizeof *ids);
  s->n_ids += (size_t)n;
  return 0;
}

int el__seqs_close(el__seqs *s, el_error *err) {
  if (el__grow((void **)&s->len, &s->len_cap, (size_t)s->n + 1, sizeof *s->len))
    return el_error_set(err, EL_ENOMEM, "check: out of memory");
  s->len[s->n++] = (int)(s->n_ids - s->open);
  s->open = s->n_ids;
  return 0;
}

void el__seqs_free(el__seqs *s) {
  free(s->len);
  free(s->ids);
  memset(s, 0, sizeof *s);
}

/* Calls run over consecutive runs of c->seqs that fit the workspace: at most
 * max_seqs sequences (and max_per_call, if > 0) and max_tokens ids each. */
int el__seqs_chunks(el__checker *c, int max_per_call, el__chunk_fn run, el_error *err) {
  size_t id0 = 0, tokens = 0;
  int s0 = 0;
  const el__seqs *q = &c->seqs;
  for (int s = 0; s <= q->n; s++) {
    int full = s == q->n || s - s0 >= c->max_seqs || (max_per_call > 0 && s - s0 >= max_per_call) ||
               tokens + (size_t)q->len[s] > (size_t)c->max_tokens;
    if (full && s > s0) {
      int rc = run(c, s0, s, id0, err);
      if (rc) return rc;
      id0 += tokens;
      tokens = 0;
      s0 = s;
    }
    if (s < q->n) tokens += (size_t)q->len[s];
  }
  return 0;
}
