/* The int8 engine (el_load_options dtype EL_DTYPE_INT8) against the fp32
 * engine and PyTorch, on the fixtures of tests/reference/test_engine_reference.sh.
 *
 *   test_engine_int8_ref [LIST]    LIST, or $EL_REF_FIXTURES: the int8.txt list of
 *                                  tests/reference/ref_fixtures.py (its INT8_MODELS)
 *
 * Without a list, or in a build without oneDNN, it SKIPs. For every case of every model:
 *  - ElectraForPreTraining: replaced-token probabilities within TOL_PROB (0.02) absolute
 *    of the fp32 engine and of PyTorch;
 *  - every other head's logits (class, start/end, per-token label, MLM) within
 *    TOL_LOGIT * max(1, |v|) of fp32, and the final hidden states within TOL_HIDDEN;
 *  - int8 really ran: the outputs differ from fp32 somewhere (> 1e-6);
 *  - the hidden states on 1 thread equal those on the default count bit for bit (short
 *    batches have their products cut by columns on 2 threads, by rows on 1);
 *  - each sequence alone gives the batch result within TOL_SELF * max(1, |v|): the int8
 *    products are exact integers and every step is row-wise, so only the E != H
 *    projection (fp32, whose OpenBLAS rounding depends on the row count) can move them:
 *    a last-bit change there can move one activation to the next int8 code.
 * Those models have weights of std 0.08-0.1 (why not the 0.2-0.3 of the fp32
 * fixtures: ref_fixtures.py). Measured on this suite (AVX2, oneDNN 2.6): see the
 * "measured max" line it prints (on AVX2 with oneDNN 2.6: probabilities 0.0085,
 * logits 0.068 scaled, hidden 0.112, alone vs batch 1.2e-4; AVX-512 VNNI, own kernels,
 * packed attention: alone vs batch 1.35e-3, one code flipped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "electra/engine.h"
#include "electra/model.h"
#include "ref_fixture.h"
#include "../test.h"

#define TOL_PROB 0.02
#define TOL_LOGIT 0.1
#define TOL_HIDDEN 0.2
/* A flipped code moves a logit by ~1e-3 scaled: with attention on the packed kernels
 * (AVX-512 EPYC) the token classifier's case 8 measured 1.35e-3 (5.6e-7 with OpenBLAS's
 * attention, whose rounding happened to flip nothing); the fp32 suite holds the same
 * sequences alone == batched exactly where E == H. A sequence reading another's rows
 * would be off by far more. */
#define TOL_SELF 5e-3

static double worst_prob = 0, worst_logit = 0, worst_hidden = 0, worst_self = 0;

static int load(const char *dir, el_dtype d, el_model **m) {
  el_load_options o = {.dtype = d};
  el_error err = {0};
  int rc = el_model_load_opts(dir, &o, m, &err);
  CHECK(rc == EL_OK, "%s: loads as %s (%s)", dir, el_dtype_name(d), rc ? err.msg : "ok");
  return rc;
}

/* Each sequence of case k alone (int8) against the int8 batch outputs got. */
static double alone_vs_batch(const el_model *m, el_workspace *ws, const fixture *fx,
                             const fx_case *k, float *const got[2]) {
  const el_config *c = el_model_config(m);
  double worst = 0;
  int t0 = 0, p_base = 0;
  float *o[2] = {malloc(sizeof(float) * (size_t)(k->out_n[0] + 1)),
                 malloc(sizeof(float) * (size_t)(k->out_n[1] + 1))};
  int *pos1 = malloc(sizeof(int) * (size_t)(k->n_pos + 1));
  for (int s = 0; s < k->n_seqs; s++) {
    const int L = k->len[s];
    el_batch b1 = {1, &k->len[s], k->ids + t0, k->types + t0};
    el_error err = {0};
    int np = 0;
    for (int i = 0; i < k->n_pos; i++)
      if (k->pos[i] >= t0 && k->pos[i] < t0 + L) pos1[np++] = k->pos[i] - t0;
    if (run_head(m, ws, &b1, pos1, np, o[0], o[1], &err)) {
      worst = 1e30;
      break;
    }
    size_t off = (size_t)t0, n = (size_t)L;
    if (c->arch == EL_ARCH_SEQ_CLS) off = (size_t)s * c->num_labels, n = c->num_labels;
    if (c->arch == EL_ARCH_TOKEN_CLS) off *= c->num_labels, n *= c->num_labels;
    if (c->arch == EL_ARCH_MASKED_LM) off = (size_t)p_base * fx->V, n = (size_t)np * fx->V;
    for (int j = 0; j < k->n_outs; j++)
      worst = fmax(worst, max_scaled_diff(o[j], got[j] + off, (int)n));
    p_base += np;
    t0 += L;
  }
  free(o[0]), free(o[1]), free(pos1);
  return worst;
}

static void check_case(const el_model *m8, const el_model *m32, el_workspace *ws8,
                       el_workspace *ws32, const fixture *fx, const fx_case *k, int i) {
  const int pre = el_model_config(m8)->arch == EL_ARCH_PRETRAINING;
  el_batch b = {k->n_seqs, k->len, k->ids, k->types};
  el_error err = {0};
  const size_t nh = (size_t)k->T * fx->H;
  float *h8 = malloc(sizeof(float) * nh), *h32 = malloc(sizeof(float) * nh);
  float *o8[2], *o32[2];
  for (int j = 0; j < 2; j++) {
    o8[j] = malloc(sizeof(float) * (size_t)(k->out_n[j] + 1));
    o32[j] = malloc(sizeof(float) * (size_t)(k->out_n[j] + 1));
  }
  int rc = el_run_hidden(m8, ws8, &b, h8, &err) || el_run_hidden(m32, ws32, &b, h32, &err) ||
           run_head(m8, ws8, &b, k->pos, k->n_pos, o8[0], o8[1], &err) ||
           run_head(m32, ws32, &b, k->pos, k->n_pos, o32[0], o32[1], &err);
  CHECK(rc == 0, "%s case %d: int8 and fp32 run (%s)", fx->arch, i, rc ? err.msg : "ok");
  if (!rc) {
    double dh = max_diff(h8, h32, (int)nh), d = 0, dref = 0;
    for (int j = 0; j < k->n_outs; j++) {
      d = fmax(d, pre ? max_diff(o8[j], o32[j], k->out_n[j])
                      : max_scaled_diff(o8[j], o32[j], k->out_n[j]));
      dref = fmax(dref, pre ? max_diff(o8[j], k->out[j], k->out_n[j])
                            : max_scaled_diff(o8[j], k->out[j], k->out_n[j]));
    }
    const double tol = pre ? TOL_PROB : TOL_LOGIT;
    CHECK(d > 1e-6, "%s case %d: int8 differs from fp32 somewhere (%.3g): the int8 path ran",
          fx->arch, i, d);
    CHECK_NEAR(d, 0, tol, 0, "%s case %d (%d seqs, %d tokens): int8 %s within %g of fp32",
               fx->arch, i, k->n_seqs, k->T, k->out_name[0], tol);
    CHECK_NEAR(dref, 0, tol + 1e-4, 0, "%s case %d: int8 %s within %g of PyTorch", fx->arch, i,
               k->out_name[0], tol + 1e-4);
    CHECK_NEAR(dh, 0, TOL_HIDDEN, 0, "%s case %d: int8 hidden states within %g of fp32",
               fx->arch, i, TOL_HIDDEN);
    if (pre) worst_prob = fmax(worst_prob, fmax(d, dref));
    else worst_logit = fmax(worst_logit, fmax(d, dref));
    worst_hidden = fmax(worst_hidden, dh);
    /* one thread: each product's rows in one block; two: a short batch's
     * products cut by columns (quant_forward.c), a long one's by rows */
    float *h1 = malloc(sizeof(float) * nh);
    const int threads = el_get_threads();
    el_set_threads(1);
    const int rc1 = el_run_hidden(m8, ws8, &b, h1, &err);
    el_set_threads(threads);
    CHECK(rc1 == 0 && !memcmp(h1, h8, sizeof(float) * nh),
          "%s case %d (%d tokens): int8 hidden states on 1 thread == on %d, bit for bit", fx->arch,
          i, k->T, threads);
    free(h1);
    if (k->n_seqs > 1) {
      double ds = alone_vs_batch(m8, ws8, fx, k, o8);
      CHECK_NEAR(ds, 0, TOL_SELF, 0, "%s case %d: int8, each of %d sequences alone == in the batch",
                 fx->arch, i, k->n_seqs);
      worst_self = fmax(worst_self, ds);
    }
  }
  free(h8), free(h32);
  for (int j = 0; j < 2; j++) free(o8[j]), free(o32[j]);
}

static void check_model(const char *dir, const char *fix_path) {
  fixture fx;
  if (fixture_read(fix_path, &fx)) {
    CHECK(0, "%s: fixture readable", fix_path);
    fixture_free(&fx);
    return;
  }
  el_model *m8 = NULL, *m32 = NULL;
  el_workspace *ws8 = NULL, *ws32 = NULL;
  el_error err = {0};
  if (load(dir, EL_DTYPE_INT8, &m8) || load(dir, EL_DTYPE_FP32, &m32)) goto out;
  CHECK(el_model_dtype(m8) == EL_DTYPE_INT8 && el_model_dtype(m32) == EL_DTYPE_FP32,
        "%s: el_model_dtype reports int8 / fp32", dir);
  int max_t = 1, max_s = 1;
  for (int i = 0; i < fx.n_cases; i++) {
    max_t = fx.cases[i].T > max_t ? fx.cases[i].T : max_t;
    max_s = fx.cases[i].n_seqs > max_s ? fx.cases[i].n_seqs : max_s;
  }
  int rc = el_workspace_new(m8, max_t, max_s, &ws8, &err);
  if (!rc) rc = el_workspace_new(m32, max_t, max_s, &ws32, &err);
  CHECK(rc == EL_OK, "%s: workspaces (%s)", dir, rc ? err.msg : "ok");
  if (rc) goto out;
  /* a workspace made for the fp32 model has no int8 buffers: refused, not crashed */
  el_batch b0 = {fx.cases[0].n_seqs, fx.cases[0].len, fx.cases[0].ids, fx.cases[0].types};
  float *h = malloc(sizeof(float) * (size_t)fx.cases[0].T * fx.H);
  rc = el_run_hidden(m8, ws32, &b0, h, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "int8"), "%s: int8 model with an fp32 workspace is "
        "refused (%s)", dir, err.msg);
  free(h);
  for (int i = 0; i < fx.n_cases; i++) check_case(m8, m32, ws8, ws32, &fx, &fx.cases[i], i);
out:
  el_workspace_free(ws8), el_workspace_free(ws32);
  el_model_free(m8), el_model_free(m32);
  fixture_free(&fx);
}

int main(int argc, char **argv) {
  if (!el_dtype_available(EL_DTYPE_INT8)) {
    SKIP("this build has no int8 path (oneDNN absent or make DNNL=0)");
    return el_test_done();
  }
  if (for_each_fixture(argc, argv, check_model) > 0)
    printf("# measured max: probabilities %.4f abs; logits %.4f scaled; hidden %.4f abs; "
           "alone vs batch %.3g scaled\n", worst_prob, worst_logit, worst_hidden, worst_self);
  return el_test_done();
}
