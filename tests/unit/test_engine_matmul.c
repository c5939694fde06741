/* The training ops' product (nn/matmul.c) under --precision bf16: each of
 * the four transpose cases of cblas_sgemm's argument order against a naive
 * product in double of the same bf16 values (op(A) rounded, alpha op(B)
 * rounded), within 1e-6 of the sum of |terms|; beta 0 (C overwritten,
 * whatever it held), 1 (accumulated) and 0.5 (scaled first); leading
 * dimensions wider than the rows; shapes with partial tiles (M 1, 13, 25),
 * partial panels (N 1, 33), odd K (the padding pair), a C wider than one
 * block of panels (N 1100 at K 128: rows 4.4 KB apart, two blocks) and a K
 * longer than a block (K 4099: one panel a block); nothing written past N
 * columns. Then the switch: off unless set, on only where the CPU has
 * AVX512_BF16, and el__matmul with it off equal to OpenBLAS's SGEMM bit for
 * bit (the fp32 path the PyTorch reference tests check). */
#include <cblas.h>
#undef I
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bf16_gemm.h"
#include "matmul.h"
#include "../test.h"

static unsigned g_s = 91u;
static float frand(void) { /* in [-1, 1) */
  g_s = g_s * 1103515245u + 12345u;
  return (float)((g_s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static double bf(float x) {
  const uint32_t u = (uint32_t)el__bf16_round(x) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

#define GUARD 3
#define SENTINEL -777.0f

typedef struct shape {
  int ta, tb, M, N, K;
  float alpha, beta;
} shape;

/* One product; counts wrong elements and guards overwritten. */
static void run_case(shape s, long *wrong, long *spill, double *worst) {
  const int lda = (s.ta ? s.M : s.K) + 2, ldb = (s.tb ? s.K : s.N) + 1, ldc = s.N + GUARD;
  const size_t na = (size_t)(s.ta ? s.K : s.M) * lda, nb = (size_t)(s.tb ? s.N : s.K) * ldb;
  float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
  float *C = malloc(sizeof(float) * (size_t)s.M * ldc), *C0 = malloc(sizeof(float) * (size_t)s.M * ldc);
  for (size_t i = 0; i < na; i++) A[i] = frand();
  for (size_t i = 0; i < nb; i++) B[i] = frand();
  for (size_t i = 0; i < (size_t)s.M * ldc; i++)
    C[i] = C0[i] = (int)(i % ldc) < s.N ? (s.beta == 0 ? NAN : frand()) : SENTINEL;
  if (el__matmul_in_bf16(s.ta, s.tb, s.M, s.N, s.K, s.alpha, A, lda, B, ldb, s.beta, C, ldc))
    *wrong += (long)s.M * s.N; /* its scratch could not be allocated */
  for (int m = 0; m < s.M; m++) {
    for (int n = 0; n < s.N; n++) {
      double want = s.beta == 0 ? 0 : (double)s.beta * C0[(size_t)m * ldc + n], mag = fabs(want);
      for (int k = 0; k < s.K; k++) {
        const float a = s.ta ? A[(size_t)k * lda + m] : A[(size_t)m * lda + k];
        const float b = s.tb ? B[(size_t)n * ldb + k] : B[(size_t)k * ldb + n];
        const double t = bf(a) * bf(s.alpha * b);
        want += t, mag += fabs(t);
      }
      const double e = fabs(C[(size_t)m * ldc + n] - want);
      if (!(e <= 1e-6 * mag + 1e-30)) (*wrong)++;
      if (mag > 0 && e / mag > *worst) *worst = e / mag;
    }
    for (int g = 0; g < GUARD; g++) *spill += C[(size_t)m * ldc + s.N + g] != SENTINEL;
  }
  free(A), free(B), free(C), free(C0);
}

static void test_products(void) {
  static const int Ms[] = {1, 13, 25}, Ns[] = {1, 33, 64}, Ks[] = {1, 7, 64};
  static const float betas[] = {0.0f, 1.0f, 0.5f};
  long cases = 0, wrong = 0, spill = 0;
  double worst = 0;
  for (int t = 0; t < 4; t++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        for (int c = 0; c < 3; c++)
          for (int e = 0; e < 3; e++, cases++)
            run_case((shape){t / 2, t % 2, Ms[a], Ns[b], Ks[c], c == 1 ? 0.125f : 1.0f, betas[e]},
                     &wrong, &spill, &worst);
  CHECK(cases == 324 && wrong == 0,
        "bf16 el__matmul: %ld cases (A, B each plain or transposed; M 1..25, N 1..64, K 1..64; "
        "beta 0, 1, 0.5; alpha 1 and 0.125) equal the naive product of the same bf16 values "
        "within 1e-6 of the sum of |terms| (%ld wrong; worst %.2g)",
        cases, wrong, worst);
  CHECK(spill == 0, "bf16 el__matmul: nothing written past C's N columns (%ld guards overwritten)",
        spill);
  wrong = spill = 0;
  worst = 0;
  for (int t = 0; t < 4; t++) {
    run_case((shape){t / 2, t % 2, 30, 1100, 128, 1.0f, 1.0f}, &wrong, &spill, &worst);
    run_case((shape){t / 2, t % 2, 14, 40, 4099, 1.0f, 0.0f}, &wrong, &spill, &worst);
  }
  CHECK(wrong == 0 && spill == 0,
        "bf16 el__matmul: a C of 1,100 columns (two blocks of panels) and a K of 4,099 (a panel "
        "a block), all four transpose cases: %ld wrong (worst %.2g), %ld guards overwritten",
        wrong, worst, spill);
}

static void test_switch(void) {
  CHECK(el__matmul_bf16() == 0, "the bf16 switch is off unless set");
  const int avail = el__bgemm_available();
  const int rc = el__matmul_set_bf16(1);
  CHECK(avail ? rc == 0 && el__matmul_bf16() == 1 : rc == -1 && el__matmul_bf16() == 0,
        "setting bf16 on: %s (returned %d)", avail ? "on, this CPU has AVX512_BF16" : "refused, off",
        rc);
  CHECK(el__matmul_set_bf16(0) == 0 && el__matmul_bf16() == 0, "setting bf16 off: off");
  const int M = 21, N = 35, K = 50;
  float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * N * K);
  float *C1 = malloc(sizeof(float) * M * N), *C2 = malloc(sizeof(float) * M * N);
  for (int i = 0; i < M * K; i++) A[i] = frand();
  for (int i = 0; i < N * K; i++) B[i] = frand();
  for (int i = 0; i < M * N; i++) C1[i] = C2[i] = frand();
  el__matmul(0, 1, M, N, K, 0.5f, A, K, B, K, 1.0f, C1, N);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 0.5f, A, K, B, K, 1.0f, C2, N);
  CHECK(!memcmp(C1, C2, sizeof(float) * M * N),
        "el__matmul with bf16 off is OpenBLAS's SGEMM, bit for bit");
  free(A), free(B), free(C1), free(C2);
}

int main(void) {
  test_switch();
  if (el__bgemm_available())
    test_products();
  else
    SKIP("bf16 products: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off)");
  return el_test_done();
}
