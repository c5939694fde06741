/* The packed-weight product (engine/infer_gemm.c) against a naive triple loop
 * in double, for each kernel this CPU runs (AVX-512F and/or AVX2 + FMA; a
 * kernel the CPU lacks is reported as skipped, never run):
 *  - odd shapes: every M from 1 to 7 and M around the tile heights (11..13,
 *    25), N and K not multiples of the vector width or of the 32-column panel
 *    (N 1, 5, 17, 31, 33, 70; K 1, 3, 37, 300 > one 256-row block of k);
 *  - a block of columns starting at a later panel, C rows wider than the
 *    product (ldc > N) and A rows wider than K (lda > K): only the block is
 *    written, the rest of C untouched;
 *  - the product accumulates onto what C holds (the residual), or starts from a
 *    bias row without reading C (C holding 1e30 there would show);
 *  - the packed layout holds exactly N x K floats (no padding), so packing in
 *    place keeps a model's memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "infer_gemm.h"
#include "../test.h"

static unsigned g_s = 12345u;
static float frand(void) {
  g_s = g_s * 1103515245u + 12345u;
  return (float)((g_s >> 8) & 0xffff) / 65535.0f * 2.0f - 1.0f;
}

/* Largest |C - (C0 + A W^T)| over the block's columns [c0, c0+nc), and
 * whether every other element of C kept its value. */
static double check_block(const float *C, const float *C0, const float *A, size_t lda,
                          const float *W, int M, int N, int K, int c0, int nc, size_t ldc,
                          int *untouched) {
  double worst = 0;
  *untouched = 1;
  for (int m = 0; m < M; m++)
    for (size_t n = 0; n < ldc; n++) {
      const size_t e = (size_t)m * ldc + n;
      if ((int)n < c0 || (int)n >= c0 + nc || (int)n >= N) {
        *untouched = *untouched && C[e] == C0[e];
        continue;
      }
      double ref = C0[e];
      for (int k = 0; k < K; k++) ref += (double)A[(size_t)m * lda + k] * W[(size_t)n * K + k];
      worst = fmax(worst, fabs(C[e] - ref));
    }
  return worst;
}

/* One product: W [N,K] packed, A [M,K] with lda = K + pad, C [M, ldc];
 * with_bias: C = bias + A W^T over the block, the block's old contents 1e30. */
static double one_b(el__gemm_isa_t isa, int M, int N, int K, int c0, int nc, int pad,
                    int with_bias, int *untouched) {
  const size_t lda = (size_t)K + pad, ldc = (size_t)N + pad;
  float *W = malloc(sizeof(float) * (size_t)N * K), *P = malloc(sizeof(float) * (size_t)N * K);
  float *A = malloc(sizeof(float) * M * lda), *C = malloc(sizeof(float) * M * ldc);
  float *C0 = malloc(sizeof(float) * M * ldc);
  for (size_t i = 0; i < (size_t)N * K; i++) W[i] = frand();
  for (size_t i = 0; i < M * lda; i++) A[i] = frand();
  for (size_t i = 0; i < M * ldc; i++) C0[i] = frand(); /* the residual */
  float *bias = malloc(sizeof(float) * ldc);
  for (size_t i = 0; i < ldc; i++) bias[i] = frand();
  memcpy(C, C0, sizeof(float) * M * ldc);
  if (with_bias) /* what the product must not read; the reference starts from the bias */
    for (int m = 0; m < M; m++)
      for (int n = c0; n < c0 + nc && n < N; n++)
        C[(size_t)m * ldc + n] = 1e30f, C0[(size_t)m * ldc + n] = bias[n];
  el__gemm_pack(P, W, N, K);
  el__gemm_packed(isa, M, nc, K, A, lda, P, N, c0, with_bias ? bias + c0 : NULL, C + c0, ldc);
  const double d = check_block(C, C0, A, lda, W, M, N, K, c0, nc, ldc, untouched);
  free(W), free(P), free(A), free(C), free(C0), free(bias);
  return d;
}

static double one(el__gemm_isa_t isa, int M, int N, int K, int c0, int nc, int pad,
                  int *untouched) {
  return one_b(isa, M, N, K, c0, nc, pad, 0, untouched);
}

static void test_isa(el__gemm_isa_t isa, const char *name) {
  const int Ms[] = {1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 25};
  const int Ns[] = {1, 5, 17, 31, 33, 70}, Ks[] = {1, 3, 37, 300};
  double worst = 0;
  int all_untouched = 1, cases = 0;
  for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
    for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
      for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) {
        int untouched;
        const int K = Ks[c];
        /* tolerance grows with K: float sums of K products of |x| <= 1 */
        const double d = one(isa, Ms[a], Ns[b], K, 0, Ns[b], 0, &untouched) / (1e-6 * (K + 1));
        worst = fmax(worst, d), all_untouched = all_untouched && untouched, cases++;
      }
  CHECK(worst <= 1.0, "%s: %d shapes (M 1..7, 11..13, 25; N 1..70; K 1..300) match the naive "
        "product within 1e-6 x (K+1) (worst %.3g of it)", name, cases, worst);
  CHECK(all_untouched, "%s: nothing outside the product written", name);
  worst = 0, all_untouched = 1, cases = 0;
  for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
    for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
      for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) {
        int untouched;
        const int K = Ks[c];
        const double d = one_b(isa, Ms[a], Ns[b], K, 0, Ns[b], 0, 1, &untouched) / (1e-6 * (K + 1));
        worst = fmax(worst, d), all_untouched = all_untouched && untouched, cases++;
      }
  CHECK(worst <= 1.0 && all_untouched, "%s: from a bias row, C unread: %d shapes match bias + the "
        "naive product within 1e-6 x (K+1) (worst %.3g of it), nothing else written", name, cases,
        worst);

  int untouched;
  double d = one(isa, 7, 100, 45, 32, 64, 3, &untouched); /* panels 1..2 of 4, padded rows */
  CHECK(d <= 1e-4 && untouched, "%s: columns [32, 96) of 100, lda/ldc padded: block right "
        "(%.3g), the other columns and the padding untouched", name, d);
  d = one(isa, 5, 70, 33, 64, 6, 1, &untouched); /* the narrow last panel alone */
  CHECK(d <= 1e-4 && untouched, "%s: the narrow last panel (columns [64, 70)) alone (%.3g)",
        name, d);
  d = one_b(isa, 7, 100, 300, 32, 64, 3, 1, &untouched); /* a later panel, two blocks of k */
  CHECK(d <= 1e-4 && untouched, "%s: from a bias row, columns [32, 96) of 100, K 300 (two "
        "blocks of k: the second adds): block right (%.3g), the rest untouched", name, d);
}

static void test_pack(void) {
  enum { N = 37, K = 5 };
  float W[N * K], P[N * K + 1];
  for (int i = 0; i < N * K; i++) W[i] = (float)i;
  P[N * K] = -1.0f; /* a guard after the packed floats */
  el__gemm_pack(P, W, N, K);
  int ok = P[N * K] == -1.0f;
  /* element (k, c) of W^T: panel c / 32 at 32 K (c/32), width min(32, N - 32 (c/32)) */
  for (int c = 0; c < N; c++)
    for (int k = 0; k < K; k++) {
      const int j = c / 32 * 32, w = N - j < 32 ? N - j : 32;
      ok = ok && P[(size_t)j * K + (size_t)k * w + (c - j)] == W[c * K + k];
    }
  CHECK(ok, "pack: %d x %d into a 32-wide and a 5-wide panel, exactly N x K floats", N, K);
}

int main(void) {
  test_pack();
  const el__gemm_isa_t best = el__gemm_isa();
  if (best >= EL__GEMM_AVX512)
    test_isa(EL__GEMM_AVX512, "AVX-512F");
  else
    SKIP("AVX-512F kernel: this CPU has no AVX-512F (or ELECTRA_GEMM caps it)");
  if (best >= EL__GEMM_AVX2)
    test_isa(EL__GEMM_AVX2, "AVX2");
  else
    SKIP("AVX2 kernel: this CPU has no AVX2 + FMA (or ELECTRA_GEMM=openblas)");
  return el_test_done();
}
