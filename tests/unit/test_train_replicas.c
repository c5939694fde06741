/* In-process data parallelism (train/model/replicas.h): a batch's gradient
 * computed by two model copies, each on half the sequences with its own
 * activations and gradient block, summed into the parameter set's, equals
 * the one-model gradient up to float summation (dropout on: the masks are
 * keyed by each sequence's global index); the result does not depend on the
 * thread count (bit for bit); the copy count follows the threads and the
 * batch; a copy's failure is reported with its message. */
#include <math.h>
#include <string.h>
#include "electra/engine.h"
#include "params.h"
#include "replicas.h"
#include "tmodel.h"
#include "../test.h"
#include "test_config.h"

enum { NSEQ = 8, V = 50, HALF = NSEQ / 2 };
static const int LEN[NSEQ] = {7, 12, 3, 9, 16, 5, 11, 8};
static int IDS[128], TYPES[128], OFF[NSEQ + 1];
static float LABEL[128];

static void make_batch(el__rng *r) {
  int t = 0;
  for (int s = 0; s < NSEQ; s++) {
    OFF[s] = t;
    for (int p = 0; p < LEN[s]; p++, t++) {
      IDS[t] = p == 0 ? 2 : p == LEN[s] - 1 ? 3 : 5 + (int)el__rng_below(r, V - 5);
      TYPES[t] = p > LEN[s] / 2;
      LABEL[t] = el__rng_uniform(r) < 0.3f;
    }
  }
  OFF[NSEQ] = t;
}

/* Sequences [s0, s1) through m (dropout from the draw in *drop, keyed by
 * s0), sigmoid cross-entropy over the whole batch's tokens, backward into
 * m's gradients; returns this part's loss. */
static double part(el__tmodel *m, int s0, int s1, const el__rng *drop, int *rc) {
  el_batch b = {s1 - s0, LEN + s0, IDS + OFF[s0], TYPES + OFF[s0]};
  el__rng d = *drop;
  const float *out;
  el_error err = {0};
  el__tmodel_set_seq0(m, (uint64_t)s0);
  if ((*rc = el__tmodel_forward(m, &b, NULL, 0, 1, &d, &out, &err))) return NAN;
  const int T = OFF[s1] - OFF[s0];
  float *dout = el__tmodel_output(m);
  double loss = 0;
  for (int t = 0; t < T; t++) {
    const double z = out[t], y = LABEL[OFF[s0] + t];
    loss += (fmax(z, 0) - z * y + log1p(exp(-fabs(z)))) / OFF[NSEQ];
    dout[t] = (float)((1 / (1 + exp(-z)) - y) / OFF[NSEQ]);
  }
  *rc = el__tmodel_backward(m, dout, &err);
  return loss;
}

typedef struct job {
  el__tmodel *m[2];
  el__rng drop;
  double loss[2];
  int fail_copy; /* -1: none */
} job;

static int copy_fn(void *ctx, int i, el_error *err) {
  job *j = ctx;
  if (i == j->fail_copy) return el_error_set(err, EL_EVALUE, "copy %d failed", i);
  int rc;
  j->loss[i] = part(j->m[i], i * HALF, (i + 1) * HALF, &j->drop, &rc);
  return rc ? el_error_set(err, rc, "copy %d: forward/backward", i) : EL_OK;
}

int main(void) {
  el_error err = {0};
  el_config c = el_test_config(EL_ARCH_PRETRAINING, V, 16, 16, 2, 2, 32);
  el__params p;
  el__rng rng;
  el__rng_seed(&rng, 11);
  CHECK(!el__params_new_single(&p, &c, &err) && !el__params_init_random(&p, 0.0f, 0, &rng, &err),
        "parameter set");
  make_batch(&rng);
  const el__rng drop = el__rng_split(&rng, 5);

  /* the reference: one model over the whole batch */
  el__tmodel_limits whole = {OFF[NSEQ], NSEQ, 0, 0}, halfl = {OFF[NSEQ], HALF, 0, 0};
  el__tmodel *m1;
  CHECK(!el__tmodel_new(&c, &p.w[0], &p.g[0], &whole, &m1, &err), "one model");
  el__params_zero_grads(&p);
  int rc;
  const double loss1 = part(m1, 0, NSEQ, &drop, &rc);
  CHECK(rc == EL_OK && isfinite(loss1), "one-model step (loss %.6f)", loss1);
  float *g1 = malloc(p.numel * sizeof *g1);
  memcpy(g1, p.grads, p.numel * sizeof *g1);

  /* two copies, each half the sequences */
  el__replicas rs;
  CHECK(!el__replicas_new(&rs, &p, 2, &err) && rs.n == 2, "two copies");
  job j = {.drop = drop, .fail_copy = -1};
  for (int i = 0; i < 2; i++) {
    const el__params *pi = el__replicas_params(&rs, i);
    CHECK(!el__tmodel_new(&c, &pi->w[0], &pi->g[0], &halfl, &j.m[i], &err), "copy %d's model", i);
  }
  CHECK(el__replicas_params(&rs, 1)->params == p.params &&
            el__replicas_params(&rs, 1)->grads != p.grads,
        "a copy shares the parameters, not the gradients");
  float *g2[2];
  for (int k = 0; k < 2; k++) {
    el_set_threads(k + 1);
    p.grads[0] = 123.0f; /* the step zeroes every copy's gradients first */
    CHECK(el__replicas_step(&rs, copy_fn, &j, &err) == EL_OK, "copies' step on %d thread(s)", k + 1);
    g2[k] = malloc(p.numel * sizeof *g2[k]);
    memcpy(g2[k], p.grads, p.numel * sizeof *g2[k]);
  }
  CHECK_NEAR(j.loss[0] + j.loss[1], loss1, 1e-12, 1e-9, "the copies' losses add up to the one model's");
  double worst = 0, gmax = 0;
  size_t nonzero = 0;
  for (size_t i = 0; i < p.numel; i++) {
    const double d = fabs((double)g2[1][i] - g1[i]) / (1e-6 + fabs(g1[i]));
    worst = d > worst ? d : worst;
    gmax = fabs(g1[i]) > gmax ? fabs(g1[i]) : gmax;
    nonzero += g2[1][i] != 0;
  }
  CHECK(nonzero > p.numel / 2, "the summed gradient is not empty (%zu of %zu nonzero)", nonzero,
        p.numel);
  CHECK(worst < 2e-4, "two copies' gradient = one model's: max |diff| / (1e-6 + |g|) %.2g "
        "(largest |g| %.3g)", worst, gmax);
  CHECK(!memcmp(g2[0], g2[1], p.numel * sizeof *g2[0]),
        "the copies' gradient is the same bit for bit on 1 and 2 threads");

  /* a copy's failure: its code and message, no sum */
  j.fail_copy = 1;
  el_error e2 = {0};
  CHECK(el__replicas_step(&rs, copy_fn, &j, &e2) == EL_EVALUE && strstr(e2.msg, "copy 1 failed"),
        "a failing copy's error comes back (%s)", e2.msg);

  /* how many copies */
  el_set_threads(1);
  CHECK(el__replicas_count(32) == 1, "one thread: one copy");
  el_set_threads(2);
  CHECK(el__replicas_count(32) == 2 && el__replicas_count(7) == 1, "two threads: 2 for 32 sequences, 1 for 7");
  el_set_threads(6);
  CHECK(el__replicas_count(32) == 4 && el__replicas_count(30) == 6, "six threads: 4 for 32, 6 for 30");
  el_set_threads(32);
  CHECK(el__replicas_count(128) == EL_MAX_REPLICAS, "at most %d copies", EL_MAX_REPLICAS);

  for (int i = 0; i < 2; i++) {
    el__tmodel_free(j.m[i]);
    free(g2[i]);
  }
  el__replicas_free(&rs);
  el__tmodel_free(m1);
  free(g1);
  el__params_free(&p);
  return el_test_done();
}
