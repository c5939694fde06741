/* One pretraining optimizer step on the next global batch (pretrain_run.h):
 * this rank's share of the batch over its model copies (replicas.h), each
 * in --accumulate micro-batches, the losses divided by the global batch's
 * counts, the gradient block summed over the copies and the ranks (dist.h),
 * one AdamW step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dist.h"
#include "pretrain_run.h"

/* This rank's share of the global batch (sequences [rank x share, ...)):
 * packed into pk, --corruption's learner errors added (keyed by the global
 * index), masked (likewise); *b the batch the models see, *forced its forced
 * tokens or NULL. Returns the number of selected positions, or -1 (err). */
static int share_prepare(el__pt_run *r, el__packed *pk, el__rng *mrng, el_batch *b,
                         const uint8_t **forced, el_error *err) {
  el__pt_opts *o = r->o;
  const int share = r->micro * r->accumulate * r->copies;
  const uint64_t seq0 = (uint64_t)r->rank * (uint64_t)share;
  if (el__dataset_next_slice(&r->data, (int)o->batch_size, (int)seq0, share, pk, err)) return -1;
  *b = el__packed_batch(pk);
  *forced = NULL;
  int n;
  if (o->mlm) {
    n = el__mask_mlm(&r->mc, b, mrng, seq0, r->corrupt, r->pos, r->targets, NULL);
  } else {
    /* --corruption: learner errors in the ids before masking (their own
     * stream split off the masking one, so masking draws are unchanged) */
    if (r->lids) {
      el__rng lrng = el__rng_split(mrng, 0x1EA4E4ULL);
      if (el__lids_corrupt_keyed(r->lids, b, o->corruption_rate, el__rng_u64(&lrng), seq0, &r->lb,
                                 err))
        return -1;
      *b = el__lids_batch_view(&r->lb);
      *forced = r->lb.forced;
    }
    n = el__mask_electra_skip(&r->mc, b, *forced, mrng, seq0, r->pos, r->use_mask);
  }
  if (n < 0) el_error_set(err, EL_ENOMEM, "out of memory masking");
  return n;
}

/* Tokens of b the discriminator loss scores ([CLS]/[SEP] left out with
 * --disc-special exclude). */
static long scored_tokens(const el__pt_run *r, const el_batch *b) {
  long n = 0;
  int T = 0;
  for (int s = 0; s < b->n_seqs; s++) T += b->seq_len[s];
  for (int t = 0; t < T; t++)
    n += !(b->ids[t] == r->eo.skip_cls_id || b->ids[t] == r->eo.skip_sep_id);
  return n;
}

/* Micro-batch k of the share b: sequences [k micro, (k+1) micro), its
 * tokens from *tok and selected positions from *sel on (both advanced),
 * positions made relative to the micro-batch. */
typedef struct micro {
  el_batch b;
  int tok0, sel0, n_sel;
  const uint8_t *forced;
} micro;

static micro micro_at(const el__pt_run *r, const el_batch *b, const uint8_t *forced, int k,
                      int n_sel_share, int *tok, int *sel) {
  micro m;
  const int s0 = k * r->micro;
  int T = 0;
  for (int s = s0; s < s0 + r->micro; s++) T += b->seq_len[s];
  m.b.n_seqs = r->micro;
  m.b.seq_len = b->seq_len + s0;
  m.b.ids = b->ids + *tok;
  m.b.type_ids = b->type_ids ? b->type_ids + *tok : NULL;
  m.tok0 = *tok;
  m.forced = forced ? forced + *tok : NULL;
  m.sel0 = *sel;
  int e = *sel;
  while (e < n_sel_share && r->pos[e] < *tok + T) e++; /* positions ascend */
  m.n_sel = e - *sel;
  for (int i = *sel; i < e; i++) r->pos[i] -= *tok;
  *tok += T;
  *sel = e;
  return m;
}

/* Forward + backward of one micro-batch on copy c into its gradients; adds
 * its statistics to st. */
static int micro_step(const el__pt_run *r, int c, const micro *m, const el__rng *srng_step,
                      uint64_t seq0, const double *norm, double *st, el_error *err) {
  el__rng srng = *srng_step; /* every micro-batch the same draws, keyed by seq0 */
  int rc;
  if (r->o->mlm) {
    el_batch cb = m->b;
    cb.ids = r->corrupt + m->tok0;
    double gen_loss;
    int gen_correct;
    el__tmodel_set_seq0(r->mlm[c], seq0);
    rc = el__mlm_step(r->mlm[c], &cb, r->pos + m->sel0, r->targets + m->sel0, m->n_sel, (int)norm[0],
                      1, 1, &srng, &gen_loss, &gen_correct, err);
    st[EL_PT_ST_LOSS] += gen_loss;
    st[EL_PT_ST_GEN_LOSS] += gen_loss;
    st[EL_PT_ST_GEN_CORRECT] += gen_correct;
    return rc;
  }
  el__mask_plan plan = {m->n_sel, r->pos + m->sel0, r->use_mask + m->sel0, m->forced};
  el__electra_opts eo = r->eo;
  eo.seq0 = seq0;
  eo.norm_pos = (int)norm[0];
  eo.norm_scored = (int)norm[1];
  el__electra_result res;
  rc = el__electra_step(r->electra[c], &m->b, &plan, &eo, &srng, &res, NULL, err);
  st[EL_PT_ST_LOSS] += res.loss;
  st[EL_PT_ST_GEN_LOSS] += res.mlm_loss;
  st[EL_PT_ST_DISC_LOSS] += res.disc_loss;
  st[EL_PT_ST_GEN_CORRECT] += res.gen_correct;
  st[EL_PT_ST_DISC_CORRECT] += res.disc_correct;
  st[EL_PT_ST_N_REPLACED] += res.n_replaced;
  return rc;
}

/* The micro-batches of a rank's share, the step's sampling draw, its first
 * sequence's global index and the loss divisors; each copy's statistics. */
typedef struct step_share {
  const el__pt_run *r;
  const micro *m; /* [copies x accumulate] */
  const el__rng *srng;
  uint64_t seq0;
  const double *norm;
  double st[EL_MAX_REPLICAS][EL_PT_ST_COUNT];
} step_share;

/* Copy i: micro-batches [i x accumulate, (i+1) x accumulate) of the share. */
static int copy_share(void *ctx, int i, el_error *err) {
  step_share *s = ctx;
  const el__pt_run *r = s->r;
  int rc = EL_OK;
  for (int k = i * r->accumulate; k < (i + 1) * r->accumulate && !rc; k++)
    rc = micro_step(r, i, &s->m[k], s->srng, s->seq0 + (uint64_t)k * (uint64_t)r->micro, s->norm,
                    s->st[i], err);
  return rc;
}

/* The share's micro-batches in order (each takes its tokens and selected
 * positions after the previous one's), the copies' forward and backward,
 * their statistics added to st. */
static int share_step(el__pt_run *r, const el_batch *b, const uint8_t *forced, int n_sel,
                      const el__rng *srng, const double *norm, double *st, el_error *err) {
  const int parts = r->copies * r->accumulate;
  micro *m = malloc((size_t)parts * sizeof *m);
  if (!m) return el_error_set(err, EL_ENOMEM, "out of memory");
  int tok = 0, sel = 0;
  for (int k = 0; k < parts; k++) m[k] = micro_at(r, b, forced, k, n_sel, &tok, &sel);
  step_share s = {.r = r, .m = m, .srng = srng, .norm = norm,
                  .seq0 = (uint64_t)r->rank * (uint64_t)r->micro * (uint64_t)parts};
  memset(s.st, 0, sizeof s.st);
  int rc = el__replicas_step(&r->reps, copy_share, &s, err);
  for (int i = 0; i < r->copies; i++)
    for (int f = 0; f < EL_PT_ST_COUNT; f++) st[f] += s.st[i][f];
  free(m);
  return rc;
}

/* One optimizer step on the next global batch with learning rate lr: this
 * rank's share over its model copies in `accumulate` micro-batches each,
 * the losses divided by the global batch's counts (summed over the ranks
 * first), the gradients summed over the copies and the ranks, one AdamW
 * step. Returns EL_OK, EL_EVALUE for a skipped
 * (non-finite) step, or an error. */
int el__pt_step(el__pt_run *r, el__packed *pk, double lr, double *st, double *grad_norm,
                el_error *err) {
  el__rng mrng = el__rng_split(&r->base, 2 * (uint64_t)r->step + 1);
  el__rng srng = el__rng_split(&r->base, 2 * (uint64_t)r->step + 2);
  el_batch b;
  const uint8_t *forced;
  int n_sel = share_prepare(r, pk, &mrng, &b, &forced, err);
  if (n_sel < 0) return err->code ? err->code : EL_ENOMEM;
  memset(st, 0, sizeof(double) * EL_PT_ST_COUNT);
  st[EL_PT_ST_N_SEL] = n_sel;
  st[EL_PT_ST_N_SCORED] = r->o->mlm ? 0 : (double)scored_tokens(r, &b);
  st[EL_PT_ST_N_TOK] = pk->n_tokens;
  double norm[2] = {n_sel, st[EL_PT_ST_N_SCORED]};
  int rc = el__dist_sum_f64(norm, 2, err); /* the global batch's counts */
  if (rc) return rc;
  rc = share_step(r, &b, forced, n_sel, &srng, norm, st, err);
  /* every rank learns whether one failed (a non-finite loss skips the step
   * everywhere) before the gradient sum */
  st[EL_PT_ST_FAILED] = rc == EL_EVALUE;
  if (rc && rc != EL_EVALUE) return rc;
  el_error e2 = {0};
  if (el__dist_sum_f64(st, EL_PT_ST_COUNT, &e2)) return el_error_set(err, e2.code, "%s", e2.msg);
  if (st[EL_PT_ST_FAILED] > 0 && !rc)
    rc = el_error_set(err, EL_EVALUE, "non-finite loss on another rank; no update");
  el__adamw_stats as = {0, 1};
  if (!rc) rc = el__dist_sum_f32(r->p.grads, r->p.numel, err);
  if (!rc) rc = el__adamw_step(&r->p, &r->adam, lr, &as, err);
  r->step++;
  r->tokens_seen += (uint64_t)st[EL_PT_ST_N_TOK];
  if (rc) return rc;
  *grad_norm = as.grad_norm;
  return EL_OK;
}
