/* ELECTRA replaced-token detection and the BERT MLM baseline on one packed
 * batch (train/pretrain/objective.h). */
#include "objective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "op_fastmath.h"
#include "op_pool.h"
#include "ops.h"

struct el__electra {
  el__params *p;
  el__tmodel *gen, *disc;
  el__tmodel_limits lim;
  int *gen_ids, *corrupt; /* [max_tokens] */
  int *targets, *samples;         /* [max_pos] */
  uint64_t *rowkey;               /* [max_pos] sampler keys: global sequence << 32 | position */
  float *labels;                  /* [max_tokens] */
  float *dweights;                /* [max_tokens] discriminator loss weights (skip ids) */
  uint8_t *seen;                  /* [max_tokens] duplicate check */
};

el__electra_opts el__electra_default_opts(int mask_id) {
  el__electra_opts o;
  memset(&o, 0, sizeof o);
  o.mask_id = mask_id;
  o.gen_weight = 1.0f;
  o.disc_weight = 50.0f;
  o.train = 1;
  o.backward = 1;
  /* the same distribution as Gumbel-max (test_train_math checks both against
   * softmax); one uniform and V additions per row instead of 2V logarithms:
   * Gumbel noise was 5-7 % of a tiny training step (perf, 1 thread) */
  o.sampler = EL_SAMPLE_CDF;
  o.skip_cls_id = o.skip_sep_id = -1;
  return o;
}

int el__electra_new(el__params *p, const el__tmodel_limits *lim, el__electra **out, el_error *err) {
  *out = NULL;
  if (p->n_models != 2)
    return el_error_set(err, EL_EINVAL, "electra: needs a generator/discriminator pair");
  el__electra *e = calloc(1, sizeof *e);
  if (!e) return el_error_set(err, EL_ENOMEM, "electra: out of memory");
  e->p = p;
  e->lim = *lim;
  el__tmodel_limits dl = *lim;
  dl.max_pos = 0;
  int rc = el__tmodel_new(&p->cfg[1], &p->w[1], &p->g[1], lim, &e->gen, err);
  if (!rc) rc = el__tmodel_new(&p->cfg[0], &p->w[0], &p->g[0], &dl, &e->disc, err);
  if (rc) {
    el__electra_free(e);
    return rc;
  }
  const size_t T = (size_t)lim->max_tokens, P = (size_t)lim->max_pos;
  e->gen_ids = malloc(sizeof(int) * T);
  e->corrupt = malloc(sizeof(int) * T);
  e->targets = malloc(sizeof(int) * P);
  e->samples = malloc(sizeof(int) * P);
  e->labels = malloc(sizeof(float) * T);
  e->dweights = malloc(sizeof(float) * T);
  e->seen = calloc(T, 1);
  e->rowkey = malloc(sizeof(uint64_t) * P);
  if (!e->gen_ids || !e->corrupt || !e->targets || !e->samples || !e->labels ||
      !e->dweights || !e->seen || !e->rowkey) {
    el__electra_free(e);
    return el_error_set(err, EL_ENOMEM, "electra: out of memory");
  }
  *out = e;
  return EL_OK;
}

void el__electra_free(el__electra *e) {
  if (!e) return;
  el__tmodel_free(e->gen);
  el__tmodel_free(e->disc);
  free(e->gen_ids);
  free(e->corrupt);
  free(e->targets);
  free(e->samples);
  free(e->labels);
  free(e->dweights);
  free(e->seen);
  free(e->rowkey);
  free(e);
}

size_t el__electra_bytes(const el__electra *e) {
  const size_t T = (size_t)e->lim.max_tokens, P = (size_t)e->lim.max_pos;
  return el__tmodel_bytes(e->gen) + el__tmodel_bytes(e->disc) + T * (2 * sizeof(int) + 9) +
         P * (2 * sizeof(int) + sizeof(uint64_t));
}


/* Gumbel-max over one row: argmax_j logits_j - log(-log(u_j + 1e-9) + 1e-9).
 * u_j takes one of the 2^24 floats k 2^-24 in [0, 1) (exact in float, so it
 * never rounds up to 1), two per 64 counter-based random bits keyed by one
 * draw from r, in blocks of 64 so the bits and logs vectorise. */
int el__sample_gumbel(const float *x, int V, el__rng *r) {
  const uint64_t key = el__rng_u64(r);
  int best = 0;
  float best_v = -INFINITY;
  float s[64];
  for (int j0 = 0; j0 < V; j0 += 64) {
    const int nb = j0 + 64 <= V ? 64 : V - j0;
#pragma omp simd
    for (int h = 0; h < 32; h++) {
      const uint64_t w = el__mix64(key, (uint64_t)(j0 / 2 + h));
      s[2 * h] = (float)(uint32_t)(w >> 40) * 5.9604644775390625e-8f;
      s[2 * h + 1] = (float)(uint32_t)((w >> 8) & 0xffffffu) * 5.9604644775390625e-8f;
    }
#pragma omp simd
    for (int j = 0; j < nb; j++) s[j] = x[j0 + j] - el__logf(-el__logf(s[j] + 1e-9f) + 1e-9f);
    for (int j = 0; j < nb; j++)
      if (s[j] > best_v) best_v = s[j], best = j0 + j;
  }
  return best;
}

/* Inverse CDF over one row of probabilities. */
int el__sample_cdf(const float *p, int V, el__rng *r) {
  double u = (double)(el__rng_u64(r) >> 11) * (1.0 / 9007199254740992.0), acc = 0.0;
  int last = 0;
  for (int j = 0; j < V; j++) {
    if (p[j] > 0.0f) last = j;
    acc += p[j];
    if (u < acc) return j;
  }
  return last; /* rounding left u above the total: the last token with mass */
}

/* The samplers' rows over the generator's [n, V] buffer. */
typedef struct sample_job {
  int *samples;
  float *rows;        /* logits (Gumbel) or probs (CDF) */
  el__rng base;        /* row i samples from el__rng_split(base, rowkey[i]) */
  const uint64_t *rowkey;
  int V;
} sample_job;

static void gumbel_rows(void *p, size_t lo, size_t hi) {
  const sample_job *j = p;
  for (size_t i = lo; i < hi; i++) {
    el__rng r = el__rng_split(&j->base, j->rowkey[i]);
    j->samples[i] = el__sample_gumbel(j->rows + i * j->V, j->V, &r);
  }
}

static void cdf_rows(void *p, size_t lo, size_t hi) {
  const sample_job *j = p;
  for (size_t i = lo; i < hi; i++) {
    el__rng r = el__rng_split(&j->base, j->rowkey[i]);
    j->samples[i] = el__sample_cdf(j->rows + i * j->V, j->V, &r);
  }
}

static int check_plan(el__electra *e, const el_batch *b, const el__mask_plan *plan, int *T_out,
                      el_error *err) {
  if (!b || b->n_seqs < 1 || !b->seq_len || !b->ids)
    return el_error_set(err, EL_EINVAL, "electra: empty batch");
  long T = 0;
  for (int s = 0; s < b->n_seqs; s++) T += b->seq_len[s] > 0 ? b->seq_len[s] : 0;
  if (T > e->lim.max_tokens)
    return el_error_set(err, EL_ETOOLONG, "electra: batch has %ld tokens, limit %d", T,
                        e->lim.max_tokens);
  if (!plan || plan->n < 1 || plan->n > e->lim.max_pos || !plan->pos || !plan->use_mask)
    return el_error_set(err, EL_EINVAL, "electra: mask plan needs 1..%d positions, got %d",
                        e->lim.max_pos, plan ? plan->n : 0);
  int rc = EL_OK;
  for (int i = 0; i < plan->n; i++) {
    int q = plan->pos[i];
    if (q < 0 || q >= T) {
      rc = el_error_set(err, EL_EINVAL, "electra: mask position %d is %d, outside [0, %ld)", i,
                        q, T);
      break;
    }
    if (e->seen[q]) {
      rc = el_error_set(err, EL_EINVAL, "electra: mask position %d (token %d) is repeated", i, q);
      break;
    }
    e->seen[q] = 1;
  }
  for (int i = 0; i < plan->n; i++) {
    int q = plan->pos[i];
    if (q >= 0 && q < T) e->seen[q] = 0;
  }
  *T_out = (int)T;
  return rc;
}

/* The samplers' row keys: the global sequence index (o->seq0 + the
 * sequence's place in the batch) and the position in it of each selected
 * token, so a sequence's samples do not depend on the batch it shares. */
static void sample_keys(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                        uint64_t seq0) {
  int s = 0, base = 0;
  for (int i = 0; i < plan->n; i++) {
    const int q = plan->pos[i];
    if (q < base) s = 0, base = 0; /* positions need not be sorted */
    while (q >= base + b->seq_len[s]) base += b->seq_len[s++];
    e->rowkey[i] = ((seq0 + (uint64_t)s) << 32) | (uint64_t)(q - base);
  }
}

/* One ELECTRA step's intermediate values, passed between its parts. */
typedef struct step_ctx {
  int T, n, V;             /* tokens, masked positions, vocabulary */
  float *logits;           /* generator logits [n,V] -> probs -> their gradient */
  el__rng sbase;            /* the samplers' stream */
  float *dl;               /* discriminator logits [T] -> their gradient */
  const float *dw;         /* per-token loss weights ([CLS]/[SEP] weigh 0) or NULL */
  int n_scored, n_replaced, gen_correct, disc_correct;
  double mlm, disc;        /* mean losses (over the normalizers below) */
  int norm_pos, norm_scored; /* the losses' divisors: this batch's, or o's global ones */
} step_ctx;

/* The batch, the mask plan and the options make a step. */
static int check_step(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                      const el__electra_opts *o, const el__rng *rng, step_ctx *sc, el_error *err) {
  int rc = check_plan(e, b, plan, &sc->T, err);
  if (rc) return rc;
  if (!rng && (o->train || !o->forced_samples))
    return el_error_set(err, EL_EINVAL, "electra: an rng is needed to sample or for dropout");
  sc->n = plan->n;
  sc->V = e->p->cfg[1].vocab_size;
  if (o->mask_id < 0 || o->mask_id >= sc->V)
    return el_error_set(err, EL_EINVAL, "electra: [MASK] id %d outside the vocabulary", o->mask_id);
  return EL_OK;
}

/* 1. The generator's input (the plan's [MASK]s) and forward pass. */
static int gen_forward(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                       const el__electra_opts *o, el__rng *rng, step_ctx *sc, el_error *err) {
  memcpy(e->gen_ids, b->ids, sizeof(int) * (size_t)sc->T);
  for (int i = 0; i < sc->n; i++) {
    e->targets[i] = b->ids[plan->pos[i]];
    if (plan->use_mask[i]) e->gen_ids[plan->pos[i]] = o->mask_id;
  }
  el_batch gb = *b;
  gb.ids = e->gen_ids;
  const float *cout;
  sample_keys(e, b, plan, o->seq0);
  el__tmodel_set_seq0(e->gen, o->seq0);
  int rc = el__tmodel_forward(e->gen, &gb, plan->pos, sc->n, o->train, rng, &cout, err);
  if (rc) return rc;
  sc->logits = el__tmodel_output(e->gen);
  return EL_OK;
}

/* 2-3. The generator's samples and MLM loss: Gumbel samples need the raw
 * logits, the loss turns them into probs in place, CDF samples need those. */
static int gen_loss_and_samples(el__electra *e, const el__electra_opts *o, el__rng *rng,
                                step_ctx *sc, el_error *err) {
  const int n = sc->n, V = sc->V;
  if (!o->forced_samples) el__rng_seed(&sc->sbase, el__rng_u64(rng));
  if (o->forced_samples) {
    for (int i = 0; i < n; i++) {
      if (o->forced_samples[i] < 0 || o->forced_samples[i] >= V)
        return el_error_set(err, EL_EINVAL, "electra: forced sample %d is %d, outside [0, %d)", i,
                            o->forced_samples[i], V);
      e->samples[i] = o->forced_samples[i];
    }
  } else if (o->sampler == EL_SAMPLE_GUMBEL) {
    sample_job sj = {e->samples, sc->logits, sc->sbase, e->rowkey, V};
    el__pool_for((size_t)n, 8, gumbel_rows, &sj);
  }
  double mlm_sum =
      el__softmax_xent_forward(sc->logits, sc->logits, e->targets, NULL, n, V, &sc->gen_correct);
  sc->norm_pos = o->norm_pos > 0 ? o->norm_pos : n;
  sc->mlm = mlm_sum / sc->norm_pos;
  if (!o->forced_samples && o->sampler == EL_SAMPLE_CDF) {
    sample_job sj = {e->samples, sc->logits, sc->sbase, e->rowkey, V};
    el__pool_for((size_t)n, 8, cdf_rows, &sj);
  }
  return EL_OK;
}

/* 4. The corrupted input (samples at the masked positions), its labels
 * (1 where a sample differs, or the plan forces it) and the
 * discriminator's forward pass. */
static int disc_forward(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                        const el__electra_opts *o, el__rng *rng, step_ctx *sc, el_error *err) {
  const int T = sc->T;
  memcpy(e->corrupt, b->ids, sizeof(int) * (size_t)T);
  memset(e->labels, 0, sizeof(float) * (size_t)T);
  for (int i = 0; i < sc->n; i++) {
    e->corrupt[plan->pos[i]] = e->samples[i];
    if (e->samples[i] != e->targets[i]) {
      e->labels[plan->pos[i]] = 1.0f;
      sc->n_replaced++;
    }
  }
  if (plan->forced)
    for (int t = 0; t < T; t++)
      if (plan->forced[t] && e->labels[t] == 0.0f) {
        e->labels[t] = 1.0f;
        sc->n_replaced++;
      }
  el_batch db = *b;
  db.ids = e->corrupt;
  const float *cout;
  el__tmodel_set_seq0(e->disc, o->seq0);
  int rc = el__tmodel_forward(e->disc, &db, NULL, 0, o->train, rng, &cout, err);
  if (rc) return rc;
  sc->dl = el__tmodel_output(e->disc);
  return EL_OK;
}

/* 5. The discriminator's loss and accuracy over the scored tokens. */
static int disc_loss(el__electra *e, const el_batch *b, const el__electra_opts *o, step_ctx *sc,
                     el_error *err) {
  const int T = sc->T;
  sc->n_scored = T;
  if (o->skip_cls_id >= 0 || o->skip_sep_id >= 0) {
    sc->n_scored = 0;
    for (int t = 0; t < T; t++) {
      const int skip = b->ids[t] == o->skip_cls_id || b->ids[t] == o->skip_sep_id;
      e->dweights[t] = skip ? 0.0f : 1.0f;
      sc->n_scored += !skip;
    }
    if (sc->n_scored == 0)
      return el_error_set(err, EL_EINVAL, "electra: the batch holds only [CLS]/[SEP] tokens");
    sc->dw = e->dweights;
  }
  const float *dl = sc->dl, *dw = sc->dw;
  sc->norm_scored = o->norm_scored > 0 ? o->norm_scored : sc->n_scored;
  sc->disc = el__sigmoid_xent_forward(dl, e->labels, dw, T) / sc->norm_scored;
  for (int t = 0; t < T; t++)
    if (!dw || dw[t] > 0.0f) sc->disc_correct += (dl[t] > 0.0f) == (e->labels[t] > 0.5f);
  return EL_OK;
}

static void fill_outputs(const el__electra *e, const step_ctx *sc, el__electra_outputs *outs) {
  const int T = sc->T;
  if (outs->disc_prob)
    for (int t = 0; t < T; t++) outs->disc_prob[t] = el__sigmoidf(sc->dl[t]);
  if (outs->disc_label)
    for (int t = 0; t < T; t++) outs->disc_label[t] = e->labels[t] > 0.5f;
  if (outs->samples) memcpy(outs->samples, e->samples, sizeof(int) * (size_t)sc->n);
  if (outs->corrupted) memcpy(outs->corrupted, e->corrupt, sizeof(int) * (size_t)T);
}

static void fill_result(const step_ctx *sc, double total, el__electra_result *res) {
  res->loss = total;
  res->mlm_loss = sc->mlm;
  res->disc_loss = sc->disc;
  res->n_selected = sc->n;
  res->gen_correct = sc->gen_correct;
  res->n_tokens = sc->T;
  res->n_replaced = sc->n_replaced;
  res->disc_correct = sc->disc_correct;
  res->n_scored = sc->n_scored;
  res->gen_acc = (double)sc->gen_correct / sc->n;
  res->disc_acc = (double)sc->disc_correct / sc->n_scored;
}

/* 6. Backward: the discriminator's dL/dlogit = disc_weight/T (sigmoid -
 * label) and the generator's dL/dlogits = gen_weight/n (probs - onehot),
 * each by its loss op in place over its logits, then through both models. */
static int step_backward(el__electra *e, const el__electra_opts *o, step_ctx *sc, el_error *err) {
  el__sigmoid_xent_backward(sc->dl, sc->dl, e->labels, sc->dw,
                            o->disc_weight / (float)sc->norm_scored, sc->T);
  int rc = el__tmodel_backward(e->disc, sc->dl, err);
  if (rc) return rc;
  el__softmax_xent_backward(sc->logits, sc->logits, e->targets, NULL,
                            o->gen_weight / (float)sc->norm_pos, sc->n, sc->V);
  return el__tmodel_backward(e->gen, sc->logits, err);
}

int el__electra_step(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                    const el__electra_opts *o, el__rng *rng, el__electra_result *res,
                    el__electra_outputs *outs, el_error *err) {
  step_ctx sc;
  memset(&sc, 0, sizeof sc);
  int rc;
  if ((rc = check_step(e, b, plan, o, rng, &sc, err)) ||
      (rc = gen_forward(e, b, plan, o, rng, &sc, err)) ||
      (rc = gen_loss_and_samples(e, o, rng, &sc, err)) ||
      (rc = disc_forward(e, b, plan, o, rng, &sc, err)) || (rc = disc_loss(e, b, o, &sc, err)))
    return rc;
  if (outs) fill_outputs(e, &sc, outs);
  const double total = o->gen_weight * sc.mlm + o->disc_weight * sc.disc;
  if (res) fill_result(&sc, total, res);
  if (!isfinite(total))
    return el_error_set(err, EL_EVALUE,
                        "electra: non-finite loss (MLM %g, discriminator %g); no gradient "
                        "accumulated",
                        sc.mlm, sc.disc);
  if (!o->backward) return EL_OK;
  return step_backward(e, o, &sc, err);
}

int el__mlm_step(el__tmodel *m, const el_batch *b, const int *positions, const int *targets,
                int n, int norm, int train, int do_backward, el__rng *rng, double *loss,
                int *correct, el_error *err) {
  const el_config *c = el__tmodel_config(m);
  if (c->arch != EL_ARCH_MASKED_LM)
    return el_error_set(err, EL_EINVAL, "mlm: the model must be %s",
                        el_arch_name(EL_ARCH_MASKED_LM));
  const int V = c->vocab_size;
  for (int i = 0; i < n; i++)
    if (!targets || targets[i] < 0 || targets[i] >= V)
      return el_error_set(err, EL_EINVAL, "mlm: target %d is %d, outside [0, %d)", i,
                          targets ? targets[i] : -1, V);
  const float *cout;
  int rc = el__tmodel_forward(m, b, positions, n, train, rng, &cout, err);
  if (rc) return rc;
  float *logits = el__tmodel_output(m);
  int hits = 0;
  if (norm <= 0) norm = n;
  const double l = el__softmax_xent_forward(logits, logits, targets, NULL, n, V, &hits) / norm;
  if (loss) *loss = l;
  if (correct) *correct = hits;
  if (!isfinite(l))
    return el_error_set(err, EL_EVALUE, "mlm: non-finite loss %g; no gradient accumulated", l);
  if (!do_backward) return EL_OK;
  el__softmax_xent_backward(logits, logits, targets, NULL, 1.0f / (float)norm, n, V);
  return el__tmodel_backward(m, logits, err);
}
