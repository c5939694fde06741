/* Data parallelism and gradient accumulation at the unit level (issue 18):
 * a global batch computed as one piece or as micro-batches gives the same
 * draws and the same gradient.
 *  - masking (ELECTRA and MLM): a sequence's positions and decisions depend
 *    on its global index (seq0 + place), not on the batch it shares: exact;
 *  - an ELECTRA step with dropout on: the whole batch's gradient equals the
 *    sum of two halves' (each with its seq0 and the global batch's counts)
 *    within fp32 rounding; without seq0 (both halves keyed as sequences 0..)
 *    or without the global counts it does not, so the check can fail;
 *  - train/pretrain/dist_none.c (compiled in here whatever the build): a launch by
 *    mpirun/srun with more than one process is refused, saying how to build
 *    with MPI; a launch of one process runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../test.h"
#include "test_config.h"
#include "masking.h"
#include "objective.h"
#include "params.h"
#include "rng.h"
/* dist_none.c's functions replace the library's (dist_mpi.c in an MPI
 * build): nothing else this test links refers to them */
#include "dist_none.c"

enum { V = 48, NSEQ = 6, MAXLEN = 14, MASK = 4 };

static el_config cfg(el_arch arch, int E, int H) {
  return el_test_config(arch, V, E, H, 2, 2, 2 * H);
}

/* NSEQ sequences [CLS] w... [SEP] of lengths 8..13, ids 5..V-1 inside */
static int make_batch(int *ids, int *seq_len) {
  el__rng r;
  el__rng_seed(&r, 11);
  int T = 0;
  for (int s = 0; s < NSEQ; s++) {
    seq_len[s] = 8 + s % 6;
    ids[T] = 2; /* [CLS] */
    for (int i = 1; i < seq_len[s] - 1; i++) ids[T + i] = 5 + (int)el__rng_below(&r, V - 5);
    ids[T + seq_len[s] - 1] = 3; /* [SEP] */
    T += seq_len[s];
  }
  return T;
}

static el__mask_cfg mask_cfg(void) {
  el__mask_cfg c = {0.25f, el__max_predictions(0.25f, MAXLEN), V, 0, 1, 2, 3, MASK};
  return c;
}

/* The first h sequences of b, and the rest. */
static void halves(const el_batch *b, int h, el_batch *lo, el_batch *hi, int *T_lo) {
  *lo = *b;
  lo->n_seqs = h;
  *T_lo = 0;
  for (int s = 0; s < h; s++) *T_lo += b->seq_len[s];
  *hi = *b;
  hi->n_seqs = b->n_seqs - h;
  hi->seq_len = b->seq_len + h;
  hi->ids = b->ids + *T_lo;
}

static void test_masking_split(const el_batch *b) {
  el__mask_cfg mc = mask_cfg();
  int pos[NSEQ * MAXLEN], pos2[NSEQ * MAXLEN];
  uint8_t um[NSEQ * MAXLEN], um2[NSEQ * MAXLEN];
  el__rng base, r;
  el__rng_seed(&base, 99);
  r = base;
  int n = el__mask_electra_skip(&mc, b, NULL, &r, 0, pos, um);
  el_batch lo, hi;
  int T_lo;
  halves(b, 2, &lo, &hi, &T_lo);
  r = base;
  int n1 = el__mask_electra_skip(&mc, &lo, NULL, &r, 0, pos2, um2);
  r = base;
  int n2 = el__mask_electra_skip(&mc, &hi, NULL, &r, 2, pos2 + n1, um2 + n1);
  for (int i = n1; i < n1 + n2; i++) pos2[i] += T_lo;
  CHECK(n == n1 + n2 && !memcmp(pos, pos2, sizeof(int) * (size_t)n) && !memcmp(um, um2, (size_t)n),
        "ELECTRA masking of 6 sequences = sequences 0-1 (seq0 0) + 2-5 (seq0 2): %d = %d + %d", n,
        n1, n2);
  r = base;
  el__mask_electra_skip(&mc, &hi, NULL, &r, 0, pos2 + n1, um2 + n1);
  for (int i = n1; i < n1 + n2; i++) pos2[i] += T_lo;
  CHECK(memcmp(pos, pos2, sizeof(int) * (size_t)n) || memcmp(um, um2, (size_t)n),
        "... and keyed by the global index: the second half as sequences 0.. draws otherwise");
  int ids[NSEQ * MAXLEN], ids2[NSEQ * MAXLEN], tg[NSEQ * MAXLEN], tg2[NSEQ * MAXLEN];
  uint8_t kd[NSEQ * MAXLEN], kd2[NSEQ * MAXLEN];
  r = base;
  n = el__mask_mlm(&mc, b, &r, 0, ids, pos, tg, kd);
  r = base;
  n1 = el__mask_mlm(&mc, &lo, &r, 0, ids2, pos2, tg2, kd2);
  r = base;
  n2 = el__mask_mlm(&mc, &hi, &r, 2, ids2 + T_lo, pos2 + n1, tg2 + n1, kd2 + n1);
  for (int i = n1; i < n1 + n2; i++) pos2[i] += T_lo;
  int T = T_lo;
  for (int s = 2; s < NSEQ; s++) T += b->seq_len[s];
  CHECK(n == n1 + n2 && !memcmp(pos, pos2, sizeof(int) * (size_t)n) &&
            !memcmp(tg, tg2, sizeof(int) * (size_t)n) && !memcmp(kd, kd2, (size_t)n) &&
            !memcmp(ids, ids2, sizeof(int) * (size_t)T),
        "MLM masking (positions, kinds, random tokens) split the same way is the same");
}

typedef struct pair {
  el__params p;
  el__electra *e;
  el_config g;
} pair;

static int pair_new(pair *q) {
  el_error err = {0};
  el_config d = cfg(EL_ARCH_PRETRAINING, 16, 16);
  memset(q, 0, sizeof *q);
  int rc = el__generator_config(&d, 0.5f, &q->g, &err);
  if (!rc) rc = el__params_new_pair(&q->p, &d, &q->g, &err);
  el__rng r;
  el__rng_seed(&r, 3);
  if (!rc) rc = el__params_init_random(&q->p, 0.0f, 1, &r, &err);
  el__tmodel_limits lim = {NSEQ * MAXLEN, NSEQ, MAXLEN, NSEQ * MAXLEN};
  if (!rc) rc = el__electra_new(&q->p, &lim, &q->e, &err);
  CHECK(rc == 0, "a 2-layer generator/discriminator pair with dropout 0.1: %s", rc ? err.msg : "ok");
  return rc;
}

static void pair_free(pair *q) {
  el__electra_free(q->e);
  el__params_free(&q->p);
  el__config_free(&q->g);
}

/* max |a - b| over the gradient block, and max |a| */
static double max_diff(const float *a, const float *b, size_t n, double *scale) {
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    d = fmax(d, fabs((double)a[i] - b[i]));
    s = fmax(s, fabs((double)a[i]));
  }
  *scale = s;
  return d;
}

/* One step's gradient on the halves: seq0 and norms as given. */
static int halves_grad(pair *q, const el_batch *b, const int *pos, const uint8_t *um, int n,
                       int n1, int T_lo, uint64_t seq0_hi, int norm_pos, int norm_scored,
                       double *loss) {
  el_batch lo, hi;
  int t;
  halves(b, 2, &lo, &hi, &t);
  int rel[NSEQ * MAXLEN];
  for (int i = n1; i < n; i++) rel[i] = pos[i] - T_lo;
  el__params_zero_grads(&q->p);
  el__electra_opts o = el__electra_default_opts(MASK);
  o.norm_pos = norm_pos;
  o.norm_scored = norm_scored;
  el__rng step;
  el__rng_seed(&step, 1234);
  el__electra_result res;
  el_error err = {0};
  el__mask_plan p1 = {n1, pos, um, NULL}, p2 = {n - n1, rel + n1, um + n1, NULL};
  el__rng r = step;
  int rc = el__electra_step(q->e, &lo, &p1, &o, &r, &res, NULL, &err);
  *loss = res.loss;
  o.seq0 = seq0_hi;
  r = step;
  if (!rc) rc = el__electra_step(q->e, &hi, &p2, &o, &r, &res, NULL, &err);
  *loss += res.loss;
  if (rc) fprintf(stderr, "# %s\n", err.msg);
  return rc;
}

static void test_step_split(const el_batch *b) {
  pair q;
  if (pair_new(&q)) return;
  el__mask_cfg mc = mask_cfg();
  int pos[NSEQ * MAXLEN];
  uint8_t um[NSEQ * MAXLEN];
  el__rng r;
  el__rng_seed(&r, 99);
  int n = el__mask_electra(&mc, b, &r, pos, um);
  el_batch lo, hi;
  int T_lo, n1 = 0;
  halves(b, 2, &lo, &hi, &T_lo);
  while (n1 < n && pos[n1] < T_lo) n1++;
  int T = T_lo;
  for (int s = 2; s < NSEQ; s++) T += b->seq_len[s];
  /* the whole batch */
  el__params_zero_grads(&q.p);
  el__electra_opts o = el__electra_default_opts(MASK);
  el__rng step;
  el__rng_seed(&step, 1234);
  el__electra_result res;
  el_error err = {0};
  el__mask_plan plan = {n, pos, um, NULL};
  el__rng rr = step;
  int rc = el__electra_step(q.e, b, &plan, &o, &rr, &res, NULL, &err);
  CHECK(rc == 0, "whole batch step: %s", rc ? err.msg : "ok");
  const size_t N = q.p.numel;
  float *whole = malloc(N * sizeof *whole);
  memcpy(whole, q.p.grads, N * sizeof *whole);
  const double whole_loss = res.loss;
  double scale, loss;
  /* the two halves, keyed and normalised as the global batch */
  rc = halves_grad(&q, b, pos, um, n, n1, T_lo, 2, n, T, &loss);
  double d = max_diff(whole, q.p.grads, N, &scale);
  CHECK(rc == 0 && d <= 1e-5 * scale, "dropout on: gradient of 6 sequences = sum over 2 + 4 "
        "(max |diff| %.3g, max |grad| %.3g, tolerance 1e-5 relative)", d, scale);
  CHECK_NEAR(loss, whole_loss, 1e-5 * fabs(whole_loss), 0, "... and the losses add up (%.7g vs %.7g)",
             loss, whole_loss);
  /* the checks can fail: the second half keyed as sequences 0.. */
  halves_grad(&q, b, pos, um, n, n1, T_lo, 0, n, T, &loss);
  double d0 = max_diff(whole, q.p.grads, N, &scale);
  CHECK(d0 > 100 * d + 1e-6 * scale, "without seq0 the dropout masks and samples differ (max |diff| %.3g)", d0);
  /* ... or each half normalised by its own counts */
  halves_grad(&q, b, pos, um, n, n1, T_lo, 2, 0, 0, &loss);
  double dn = max_diff(whole, q.p.grads, N, &scale);
  CHECK(dn > 100 * d + 1e-6 * scale, "without the global counts the gradient differs (max |diff| %.3g)", dn);
  free(whole);
  pair_free(&q);
}

static void test_refusal(void) {
  el_error err = {0};
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  unsetenv("PMIX_SIZE");
  unsetenv("SLURM_STEP_NUM_TASKS");
  CHECK(el__dist_init(&err) == EL_OK && el__dist_rank() == 0 && el__dist_size() == 1,
        "no launcher: rank 0 of 1");
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  CHECK(el__dist_init(&err) == EL_OK, "mpirun -np 1: runs");
  setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  int rc = el__dist_init(&err);
  CHECK(rc == EL_EUNSUPPORTED && strstr(err.msg, "one of 3 processes") && strstr(err.msg, "make MPI=1"),
        "mpirun -np 3 without MPI built: refused, saying how to build it (%s)", err.msg);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  setenv("SLURM_STEP_NUM_TASKS", "2", 1);
  CHECK(el__dist_init(&err) == EL_EUNSUPPORTED, "srun -n 2 without MPI built: refused");
  unsetenv("SLURM_STEP_NUM_TASKS");
}

int main(void) {
  int ids[NSEQ * MAXLEN], seq_len[NSEQ];
  make_batch(ids, seq_len);
  el_batch b = {NSEQ, seq_len, ids, NULL};
  test_masking_split(&b);
  test_step_split(&b);
  test_refusal();
  return el_test_done();
}
