/* The int8 path's arithmetic (engine/quant_act.c) in every build, and the
 * oneDNN product (engine/quant_dnnl.c) where the build has it:
 *  - activation rows: every value within half a step of its dequantized
 *    code, the codes span [0, 255], a zero row and constant rows survive;
 *    the AVX-512 rows (where the CPU has the VNNI kernel) equal the plain
 *    loop's codes, scales and zero points for every row length 1..300, and
 *    for rows at the ends of the range (the packs' saturation);
 *  - weights: |q| <= 63, within half a step, column sums exact;
 *  - the oneDNN product equals the naive int32 product exactly for codes at
 *    the extremes (255 x +-63: the AVX2 int16 pair sums must not saturate),
 *    for several row counts through one primitive (M is a run-time size);
 *  - x W^T through quantize -> product -> dequantize is within the error the
 *    scales allow of the fp32 product. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "electra/model.h"
#include "quant.h"
#include "quant_gemm.h"
#include "../test.h"

static float frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) & 0xffff) / 65535.0f * 2.0f - 1.0f;
}

static void test_rows(void) {
  enum { N = 4, C = 37 };
  float x[N][C];
  unsigned s = 7;
  for (int c = 0; c < C; c++) {
    x[0][c] = 3.0f * frand(&s);
    x[1][c] = 0.0f;             /* all zero */
    x[2][c] = 2.5f;             /* constant positive: the range still holds 0 */
    x[3][c] = frand(&s) - 4.0f; /* all negative */
  }
  uint8_t q[N][C];
  float sc[N];
  int32_t zp[N];
  el__quant_rows(&q[0][0], sc, zp, &x[0][0], N, C);
  double worst = 0;
  int lo = 255, hi = 0;
  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++) {
      double back = sc[n] * ((double)q[n][c] - zp[n]);
      double e = fabs(back - x[n][c]) / sc[n];
      worst = e > worst ? e : worst;
      if (n == 0) lo = q[0][c] < lo ? q[0][c] : lo, hi = q[0][c] > hi ? q[0][c] : hi;
    }
  CHECK(worst <= 0.5 + 1e-3, "activation rows: every value within half a step (%.4f steps)",
        worst);
  CHECK(lo == 0 && hi == 255, "a row's codes span [0, 255] (%d..%d)", lo, hi);
  CHECK(zp[1] == 0 && q[1][5] == 0, "a zero row quantizes to zero codes, zero point 0");
  CHECK(zp[3] == 255, "an all-negative row has zero point 255 (%d)", zp[3]);
}

/* el__quant_rows_avx512 against the loop: its 64-code packs, its tails of
 * 1-63 and masked 16-lane blocks, every width up to 300 (the model's are
 * 128-4096), rows of mixed sign, all-negative, all-positive, all-zero. */
static void test_rows_avx512(void) {
  if (el__qgemm_isa() != EL__QGEMM_VNNI) {
    printf("SKIP: AVX-512 activation rows: this CPU has no VNNI kernel\n");
    return;
  }
  enum { N = 5, CMAX = 300 };
  float *x = malloc(sizeof(float) * N * CMAX);
  uint8_t *q0 = malloc(N * CMAX), *q1 = malloc(N * CMAX);
  float s0[N], s1[N];
  int32_t z0[N], z1[N];
  unsigned s = 3;
  int bad = 0, widths = 0;
  for (int C = 1; C <= CMAX; C++, widths++) {
    for (int c = 0; c < C; c++) {
      x[0 * C + c] = 7.0f * frand(&s);
      x[1 * C + c] = frand(&s) - 2.0f;
      x[2 * C + c] = frand(&s) + 2.0f;
      x[3 * C + c] = 0.0f;
      x[4 * C + c] = (c & 1) ? 1e-3f * frand(&s) : 50.0f * frand(&s);
    }
    el__quant_rows_ref(q0, s0, z0, x, N, C);
    el__quant_rows_avx512(q1, s1, z1, x, N, C, NULL, NULL);
    bad += memcmp(q0, q1, (size_t)N * C) || memcmp(s0, s1, sizeof s0) || memcmp(z0, z1, sizeof z0);
  }
  CHECK(bad == 0, "AVX-512 activation rows equal the loop's bit for bit (%d of %d widths differ)",
        bad, widths);
  /* with the ranges given (as the LayerNorm finds them): the same codes */
  float lo[N], hi[N];
  bad = 0;
  for (int C = 1; C <= CMAX; C += 13) {
    for (int i = 0; i < N * C; i++) x[i] = 5.0f * frand(&s) - (i % 3 == 0 ? 1.0f : 0.0f);
    for (int n = 0; n < N; n++) {
      lo[n] = hi[n] = 0.0f;
      for (int c = 0; c < C; c++) lo[n] = fminf(lo[n], x[n * C + c]), hi[n] = fmaxf(hi[n], x[n * C + c]);
    }
    el__quant_rows_ref(q0, s0, z0, x, N, C);
    el__quant_rows_ranged(q1, s1, z1, x, lo, hi, N, C);
    bad += memcmp(q0, q1, (size_t)N * C) || memcmp(s0, s1, sizeof s0) || memcmp(z0, z1, sizeof z0);
  }
  CHECK(bad == 0, "activation rows with given ranges equal the loop's (%d widths differ)", bad);
  free(x), free(q0), free(q1);
}

static void test_weights(void) {
  enum { N = 5, K = 33 };
  float w[N][K];
  unsigned s = 11;
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) w[n][k] = (n + 1) * 0.1f * frand(&s);
  memset(w[4], 0, sizeof w[4]);
  int8_t q[N][K];
  float sc[N];
  int32_t cs[N];
  el__quant_weights(&q[0][0], sc, cs, &w[0][0], N, K, EL_QUANT_WMAX);
  int ok_range = 1, ok_sum = 1, amax = 0;
  double worst = 0;
  for (int n = 0; n < N; n++) {
    int32_t sum = 0;
    for (int k = 0; k < K; k++) {
      ok_range &= q[n][k] >= -EL_QUANT_WMAX && q[n][k] <= EL_QUANT_WMAX;
      amax = abs(q[n][k]) > amax ? abs(q[n][k]) : amax;
      sum += q[n][k];
      double e = fabs(sc[n] * q[n][k] - w[n][k]) / sc[n];
      worst = e > worst ? e : worst;
    }
    ok_sum &= sum == cs[n];
  }
  CHECK(ok_range && amax == EL_QUANT_WMAX, "weights: |q| <= %d, the largest reaches it (%d)",
        EL_QUANT_WMAX, amax);
  CHECK(worst <= 0.5 + 1e-3, "weights within half a step (%.4f)", worst);
  CHECK(ok_sum, "column sums equal the codes' sums");
  CHECK(q[4][0] == 0 && cs[4] == 0 && sc[4] > 0, "a zero channel: codes 0, a positive scale");
}

/* acc = a x q^T by the oneDNN primitive against plain integers. */
static void test_product(void) {
  if (!el__quant_available()) {
    SKIP("oneDNN product: this build has no oneDNN (make DNNL=0 or libdnnl-dev absent)");
    return;
  }
  enum { N = 48, K = 96, MAXM = 70 };
  float *w = malloc(sizeof(float) * N * K);
  unsigned s = 5;
  for (int i = 0; i < N * K; i++) w[i] = frand(&s);
  for (int k = 0; k < K; k++) w[k] = (k & 1) ? 1.0f : -1.0f; /* channel 0: codes +-63 */
  el__qdense *d = NULL;
  el__qws *ws = NULL;
  el_error err = {0};
  int rc = el__qdense_new(w, N, K, &d, &err);
  if (!rc) rc = el__qws_alloc(&ws, MAXM, K, el__qdense_scratch(d), &err);
  CHECK(rc == EL_OK, "a %d x %d int8 layer and a workspace (%s)", N, K, rc ? err.msg : "ok");
  if (rc) goto out;
  int8_t *q = malloc((size_t)N * K);
  float *sw = malloc(sizeof(float) * N);
  int32_t *cs = malloc(sizeof(int32_t) * N);
  el__quant_weights(q, sw, cs, w, N, K, EL_QUANT_WMAX);
  float *sa;
  int32_t *za, *acc;
  uint8_t *a = el__qws_act(ws, 0, &sa, &za, &acc);
  const int Ms[] = {1, 7, MAXM};
  for (int t = 0; t < 3; t++) {
    const int M = Ms[t];
    for (int i = 0; i < M * K; i++) a[i] = (uint8_t)(i % 3 == 0 ? 255 : (s = s * 69069u + 1) >> 24);
    for (int k = 0; k < K; k++) a[k] = (k & 1) ? 255 : 0; /* row 0 x channel 0: 48 * 255 * 63 */
    el__qdense_run(d, ws, 0, a, acc, M, NULL);
    long bad = 0;
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        int64_t ref = 0;
        for (int k = 0; k < K; k++) ref += (int64_t)a[m * K + k] * q[n * K + k];
        bad += ref != acc[m * N + n];
      }
    CHECK(bad == 0, "oneDNN int8 product exact for %d rows (%ld of %d wrong)", M, bad, M * N);
  }
  CHECK(acc[0] == 48 * 255 * 63, "extreme codes: row 0 x channel 0 = %d (expected %d)", acc[0],
        48 * 255 * 63);
  /* x W^T end to end against fp32 */
  float *x = malloc(sizeof(float) * MAXM * K), *y = malloc(sizeof(float) * MAXM * N);
  for (int i = 0; i < MAXM * K; i++) x[i] = frand(&s);
  el__quant_rows(a, sa, za, x, MAXM, K);
  el__qdense_run(d, ws, 1, a, acc, MAXM, NULL);
  el__dequant(y, acc, sa, za, sw, cs, MAXM, N, 0);
  double worst = 0, scale = 0;
  for (int m = 0; m < MAXM; m++)
    for (int n = 0; n < N; n++) {
      double ref = 0;
      for (int k = 0; k < K; k++) ref += (double)x[m * K + k] * w[n * K + k];
      worst = fmax(worst, fabs(ref - y[m * N + n]));
      scale = fmax(scale, fabs(ref));
    }
  /* per product: K terms, each off by at most half a step of x times |w| plus
   * half a step of w times |x| (|x|, |w| <= 1; steps 2/255 and 1/63) */
  const double bound = K * (0.5 * 2.0 / 255 + 0.5 / 63 + 1e-3);
  CHECK(worst <= bound && worst > 0, "x W^T via int8 within %.3g of fp32 (%.3g; products up "
        "to %.3g)", bound, worst, scale);
  free(x), free(y), free(q), free(sw), free(cs);
out:
  el__qws_free(ws);
  el__qdense_free(d);
  free(w);
}

static void test_dtype_names(void) {
  CHECK(!strcmp(el_dtype_name(EL_DTYPE_INT8), "int8") && !strcmp(el_dtype_name(EL_DTYPE_FP32), "fp32"),
        "el_dtype_name");
  CHECK(el_dtype_from_name("int8") == EL_DTYPE_INT8 && el_dtype_from_name("fp16") == -1 &&
            el_dtype_from_name(NULL) == -1 && el_dtype_name((el_dtype)7) == NULL,
        "el_dtype_from_name and invalid values");
  CHECK(el_dtype_available(EL_DTYPE_FP32) && el_dtype_available(EL_DTYPE_INT8) == el__quant_available(),
        "el_dtype_available: fp32 always, int8 with oneDNN (%d)", el__quant_available());
  /* native: on the engine's own kernels; without a cap in the environment
   * an AVX2 + FMA CPU runs int8 on them */
  int own = el__quant_available() && el__qgemm_isa() != EL__QGEMM_NONE;
  int capped = getenv("ELECTRA_QGEMM") || getenv("ELECTRA_GEMM");
  __builtin_cpu_init();
  int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  CHECK(el_dtype_native(EL_DTYPE_FP32) && el_dtype_native(EL_DTYPE_INT8) == own &&
            !el_dtype_native((el_dtype)7) && (capped || !el__quant_available() || !avx2 || own),
        "el_dtype_native: fp32 always, int8 on the engine's own kernels (%d; AVX2+FMA %d)", own, avx2);
  el_model *m = NULL;
  el_error err = {0};
  el_load_options o = {.dtype = (el_dtype)9};
  int rc = el_model_load_opts("/nonexistent", &o, &m, &err);
  CHECK(rc == EL_EINVAL && strstr(err.msg, "dtype 9") && !m, "an invalid dtype is refused (%s)",
        err.msg);
  if (!el__quant_available()) { /* the message a user of a build without oneDNN sees */
    o.dtype = EL_DTYPE_INT8;
    rc = el_model_load_opts("/nonexistent", &o, &m, &err);
    CHECK(rc == EL_EUNSUPPORTED && strstr(err.msg, "oneDNN") && !m,
          "without oneDNN, int8 is refused clearly (%s)", err.msg);
  }
}

int main(void) {
  test_rows();
  test_rows_avx512();
  test_weights();
  test_product();
  test_dtype_names();
  return el_test_done();
}
