/* Held-out validation and the exact AUC (pretrain_eval.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pretrain_eval.h"
#include "progress.h"
#include "trainer_api.h"

#define VAL_STREAM 0x7A11DA7EULL

typedef struct scored {
  float s;
  uint8_t l;
} scored;

static int cmp_scored(const void *a, const void *b) {
  float x = ((const scored *)a)->s, y = ((const scored *)b)->s;
  return (x > y) - (x < y);
}

double el__auc(const float *score, const uint8_t *label, size_t n) {
  scored *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return NAN;
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    v[i].s = score[i];
    v[i].l = label[i] ? 1 : 0;
    pos += v[i].l;
  }
  size_t neg = n - pos;
  if (!pos || !neg) {
    free(v);
    return NAN;
  }
  qsort(v, n, sizeof *v, cmp_scored);
  /* Sum of the (1-based, tie-averaged) ranks of the positives. */
  double rank_sum = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    size_t p = 0;
    while (j < n && v[j].s == v[i].s) p += v[j++].l;
    double avg = 0.5 * ((double)(i + 1) + (double)j);
    rank_sum += avg * (double)p;
    i = j;
  }
  free(v);
  double u = rank_sum - (double)pos * ((double)pos + 1) / 2;
  return u / ((double)pos * (double)neg);
}

/* Growable scratch shared by both validations: every buffer only grows
 * (el__grow), and each batch overwrites what it uses. */
typedef struct vbuf {
  int *pos, *targets, *ids;
  uint8_t *use_mask;
  float *prob;
  uint8_t *label;
  size_t cap_pos, cap_targets, cap_ids, cap_use_mask, cap_prob, cap_label;
  float *all_prob; /* every scored token's P(replaced) and label, for the AUC */
  uint8_t *all_label;
  size_t n_all, cap_all_prob, cap_all_label;
  long *counts;
} vbuf;

static void vbuf_free(vbuf *b) {
  free(b->pos);
  free(b->targets);
  free(b->ids);
  free(b->use_mask);
  free(b->prob);
  free(b->label);
  free(b->all_prob);
  free(b->all_label);
  free(b->counts);
}

/* Room for n_pos masked positions and n_tok tokens. 0, or -1 when out of
 * memory. */
static int vbuf_reserve(vbuf *b, int n_pos, int n_tok) {
  const size_t np = (size_t)n_pos, nt = (size_t)n_tok;
  if (el__grow((void **)&b->pos, &b->cap_pos, np, sizeof *b->pos) ||
      el__grow((void **)&b->targets, &b->cap_targets, np, sizeof *b->targets) ||
      el__grow((void **)&b->use_mask, &b->cap_use_mask, np, sizeof *b->use_mask) ||
      el__grow((void **)&b->ids, &b->cap_ids, nt, sizeof *b->ids) ||
      el__grow((void **)&b->prob, &b->cap_prob, nt, sizeof *b->prob) ||
      el__grow((void **)&b->label, &b->cap_label, nt, sizeof *b->label))
    return -1;
  return 0;
}

static int push_scores(vbuf *b, const float *p, const uint8_t *l, const int *ids, int T,
                       const el__mask_cfg *mc) {
  const size_t need = b->n_all + (size_t)T;
  if (el__grow((void **)&b->all_prob, &b->cap_all_prob, need, sizeof *b->all_prob) ||
      el__grow((void **)&b->all_label, &b->cap_all_label, need, sizeof *b->all_label))
    return -1;
  for (int t = 0; t < T; t++) {
    if (ids[t] == mc->cls_id || ids[t] == mc->sep_id) continue;
    b->all_prob[b->n_all] = p[t];
    b->all_label[b->n_all] = l[t];
    b->n_all++;
  }
  return 0;
}

/* How both validations start: *out zeroed, empty scratch, the counts of the
 * masked tokens' ids (for the unigram baseline), the held-out stream. */
static int val_begin(vbuf *b, el__packed *pk, el__rng *rng, const el__mask_cfg *mc,
                     uint64_t seed, el__val_result *out, el_error *err) {
  memset(out, 0, sizeof *out);
  memset(b, 0, sizeof *b);
  memset(pk, 0, sizeof *pk);
  b->counts = calloc((size_t)mc->vocab_size, sizeof *b->counts);
  if (!b->counts) return el_error_set(err, EL_ENOMEM, "validation: out of memory");
  el__rng_seed(rng, seed ^ VAL_STREAM);
  return EL_OK;
}

/* The held-out batch from example `first` on, and room for its masks. */
static int val_batch(el__dataset *d, uint64_t first, int batch_size, const el__mask_cfg *mc,
                     el__packed *pk, vbuf *b, el_batch *bt, el_error *err) {
  int rc = el__dataset_val(d, first, batch_size, pk, err);
  if (rc) return rc;
  *bt = el__packed_batch(pk);
  if (vbuf_reserve(b, pk->n_seqs * mc->max_pred, pk->n_tokens))
    return el_error_set(err, EL_ENOMEM, "validation: out of memory");
  return EL_OK;
}

static double unigram(const vbuf *b, int V, long n) {
  long best = 0;
  for (int i = 0; i < V; i++)
    if (b->counts[i] > best) best = b->counts[i];
  return n ? (double)best / (double)n : NAN;
}

int el__validate_electra(el__electra *e, el__dataset *d, const el__mask_cfg *mc,
                         const el__electra_opts *o, int batch_size, uint64_t seed,
                         el__val_result *out, el_error *err) {
  vbuf b;
  el__packed pk;
  el__rng rng;
  int rc = val_begin(&b, &pk, &rng, mc, seed, out, err);
  if (rc) return rc;
  el__electra_opts vo = *o;
  vo.train = 0;
  vo.backward = 0;
  double gl = 0, dl = 0;
  long gc = 0, dc = 0, nrep = 0, ncontent = 0, nscored = 0;
  for (uint64_t first = 0; first < d->n_val && !rc; first += (uint64_t)batch_size) {
    el_batch bt;
    if ((rc = val_batch(d, first, batch_size, mc, &pk, &b, &bt, err))) break;
    /* every batch from copies of the same two streams, each sequence keyed
     * by its held-out index: the numbers do not depend on the batch size */
    el__rng mrng = el__rng_split(&rng, 1), srng = el__rng_split(&rng, 2);
    vo.seq0 = first;
    int n = el__mask_electra_skip(mc, &bt, NULL, &mrng, first, b.pos, b.use_mask);
    if (n < 0) {
      rc = el_error_set(err, EL_ENOMEM, "validation: out of memory");
      break;
    }
    if (n == 0) continue;
    el__mask_plan plan = {n, b.pos, b.use_mask, NULL};
    el__electra_result r;
    el__electra_outputs outs = {b.prob, b.label, NULL, NULL};
    if ((rc = el__electra_step(e, &bt, &plan, &vo, &srng, &r, &outs, err))) break;
    gl += r.mlm_loss * r.n_selected;
    dl += r.disc_loss * r.n_scored;
    nscored += r.n_scored;
    gc += r.gen_correct;
    dc += r.disc_correct;
    out->n_masked += r.n_selected;
    out->n_tokens += r.n_tokens;
    out->n_seqs += pk.n_seqs;
    for (int i = 0; i < n; i++) b.counts[pk.ids[b.pos[i]]]++;
    for (int t = 0; t < pk.n_tokens; t++)
      if (pk.ids[t] != mc->cls_id && pk.ids[t] != mc->sep_id) {
        ncontent++;
        nrep += b.label[t];
      }
    if (push_scores(&b, b.prob, b.label, pk.ids, pk.n_tokens, mc)) {
      rc = el_error_set(err, EL_ENOMEM, "validation: out of memory");
      break;
    }
  }
  if (!rc) {
    out->gen_loss = out->n_masked ? gl / (double)out->n_masked : NAN;
    out->gen_acc = out->n_masked ? (double)gc / (double)out->n_masked : NAN;
    out->disc_loss = nscored ? dl / (double)nscored : NAN;
    out->disc_acc = nscored ? (double)dc / (double)nscored : NAN;
    out->disc_auc = el__auc(b.all_prob, b.all_label, b.n_all);
    out->unigram_acc = unigram(&b, mc->vocab_size, out->n_masked);
    out->replaced_frac = ncontent ? (double)nrep / (double)ncontent : NAN;
    /* [CLS]/[SEP] are never replaced, so nrep also counts the replaced
     * tokens among the scored ones, whichever --disc-special says */
    double q = nscored ? (double)nrep / (double)nscored : NAN;
    out->disc_base_loss = el__base_rate_loss(q);
  }
  el__packed_free(&pk);
  vbuf_free(&b);
  return rc;
}

int el__validate_mlm(el__tmodel *m, el__dataset *d, const el__mask_cfg *mc, int batch_size,
                     uint64_t seed, el__val_result *out, el_error *err) {
  vbuf b;
  el__packed pk;
  el__rng rng;
  int rc = val_begin(&b, &pk, &rng, mc, seed, out, err);
  if (rc) return rc;
  double gl = 0;
  long gc = 0;
  for (uint64_t first = 0; first < d->n_val && !rc; first += (uint64_t)batch_size) {
    el_batch bt;
    if ((rc = val_batch(d, first, batch_size, mc, &pk, &b, &bt, err))) break;
    el__rng mrng = el__rng_split(&rng, 1); /* as in el__validate_electra */
    int n = el__mask_mlm(mc, &bt, &mrng, first, b.ids, b.pos, b.targets, NULL);
    if (n < 0) {
      rc = el_error_set(err, EL_ENOMEM, "validation: out of memory");
      break;
    }
    if (n == 0) continue;
    el_batch cb = bt;
    cb.ids = b.ids;
    double loss;
    int correct;
    if ((rc = el__mlm_step(m, &cb, b.pos, b.targets, n, 0, 0, 0, NULL, &loss, &correct, err))) break;
    gl += loss * n;
    gc += correct;
    out->n_masked += n;
    out->n_tokens += pk.n_tokens;
    out->n_seqs += pk.n_seqs;
    for (int i = 0; i < n; i++) b.counts[b.targets[i]]++;
  }
  if (!rc) {
    out->gen_loss = out->n_masked ? gl / (double)out->n_masked : NAN;
    out->gen_acc = out->n_masked ? (double)gc / (double)out->n_masked : NAN;
    out->disc_loss = out->disc_acc = out->disc_auc = out->replaced_frac = NAN;
    out->disc_base_loss = NAN;
    out->unigram_acc = unigram(&b, mc->vocab_size, out->n_masked);
  }
  el__packed_free(&pk);
  vbuf_free(&b);
  return rc;
}
