/* Dynamic masking (rules in masking.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "masking.h"

int el__max_predictions(float mask_prob, int seq_len) {
  return (int)(((double)mask_prob + 0.005) * (double)seq_len);
}

int el__mask_count(int length, float mask_prob, int max_pred) {
  /* tf.round(float32(num_tokens) * mask_prob): float32 product, rintf rounds
   * half to even in the default rounding mode. */
  float prod = (float)length * mask_prob;
  int n = (int)rintf(prod);
  if (n > max_pred) n = max_pred;
  if (n < 1) n = 1;
  return n;
}

static int is_candidate(const el__mask_cfg *c, int id) {
  return id != c->cls_id && id != c->sep_id && id != c->mask_id && id != c->pad_id;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Selects positions of one sequence starting at packed offset base into
 * out; returns how many. cand is scratch of len ints; skip (packed, may be
 * NULL) excludes positions. */
static int select_seq(const el__mask_cfg *c, const int *ids, const uint8_t *skip, int base,
                      int len, el__rng *rng, int *cand, int *out) {
  int nc = 0;
  for (int i = 0; i < len; i++)
    if (is_candidate(c, ids[base + i]) && !(skip && skip[base + i])) cand[nc++] = base + i;
  if (!nc) return 0;
  int n = el__mask_count(len, c->mask_prob, c->max_pred);
  if (n > nc) n = nc;
  for (int k = 0; k < n; k++) {
    int j = k + (int)el__rng_below(rng, (uint32_t)(nc - k));
    int t = cand[k];
    cand[k] = cand[j];
    cand[j] = t;
    out[k] = cand[k];
  }
  qsort(out, (size_t)n, sizeof *out, cmp_int);
  return n;
}

static int max_len_of(const el_batch *b) {
  int m = 0;
  for (int s = 0; s < b->n_seqs; s++)
    if (b->seq_len[s] > m) m = b->seq_len[s];
  return m;
}

int el__mask_electra(const el__mask_cfg *c, const el_batch *b, el__rng *rng, int *pos,
                     uint8_t *use_mask) {
  return el__mask_electra_skip(c, b, NULL, rng, 0, pos, use_mask);
}

int el__mask_electra_skip(const el__mask_cfg *c, const el_batch *b, const uint8_t *skip,
                          el__rng *rng, uint64_t seq0, int *pos, uint8_t *use_mask) {
  int *cand = malloc((size_t)(max_len_of(b) + 1) * sizeof *cand);
  if (!cand) return -1;
  int n = 0, base = 0;
  for (int s = 0; s < b->n_seqs; s++) {
    el__rng sr = el__rng_split(rng, seq0 + (uint64_t)s);
    int k = select_seq(c, b->ids, skip, base, b->seq_len[s], &sr, cand, pos + n);
    for (int i = 0; i < k; i++) use_mask[n + i] = el__rng_uniform(&sr) < 0.85f;
    n += k;
    base += b->seq_len[s];
  }
  el__rng_u64(rng); /* the next call draws afresh */
  free(cand);
  return n;
}

static int random_token(const el__mask_cfg *c, el__rng *rng) {
  for (;;) {
    int t = (int)el__rng_below(rng, (uint32_t)c->vocab_size);
    if (t != c->pad_id && t != c->unk_id && t != c->cls_id && t != c->sep_id && t != c->mask_id)
      return t;
  }
}

int el__mask_mlm(const el__mask_cfg *c, const el_batch *b, el__rng *rng, uint64_t seq0,
                 int *ids_out, int *pos, int *target, uint8_t *kind) {
  int *cand = malloc((size_t)(max_len_of(b) + 1) * sizeof *cand);
  if (!cand) return -1;
  int total = 0;
  for (int s = 0; s < b->n_seqs; s++) total += b->seq_len[s];
  memcpy(ids_out, b->ids, (size_t)total * sizeof *ids_out);
  int n = 0, base = 0;
  for (int s = 0; s < b->n_seqs; s++) {
    el__rng sr = el__rng_split(rng, seq0 + (uint64_t)s);
    int k = select_seq(c, b->ids, NULL, base, b->seq_len[s], &sr, cand, pos + n);
    for (int i = n; i < n + k; i++) {
      int p = pos[i];
      target[i] = b->ids[p];
      float r = el__rng_uniform(&sr);
      int kd = r < 0.8f ? 0 : r < 0.9f ? 1 : 2;
      if (kd == 0) ids_out[p] = c->mask_id;
      else if (kd == 2) ids_out[p] = random_token(c, &sr);
      if (kind) kind[i] = (uint8_t)kd;
    }
    n += k;
    base += b->seq_len[s];
  }
  el__rng_u64(rng); /* the next call draws afresh */
  free(cand);
  return n;
}
