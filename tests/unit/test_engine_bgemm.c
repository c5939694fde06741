/* The bf16 product (nn/bf16_gemm.c) that attention runs on under
 * --dtype int8 (and the trainer's products under --precision bf16,
 * test_engine_matmul.c): the rounding to bf16 (nearest, ties to even, subnormals to
 * zero, NaN kept) on chosen floats; the packed layout and its zero padding
 * (from keys, values and strided rows: the packing's three paths);
 * the vector conversion equal to the scalar rounding bit for bit; and the
 * product against a naive one on the same bf16 values in double, on every
 * shape of M {1,5,12,13,40} x nc {1,17,32,33,100} x K {1,2,7,64,128}:
 * partial tiles and panels, odd K (the padding pair), nothing written past
 * C's nc columns. The kernel needs AVX512_BF16: on a CPU without it (or with
 * ELECTRA_BF16=off) the product's checks are reported as skipped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bf16_gemm.h"
#include "../test.h"

static unsigned g_s = 77u;
static float frand(void) { /* in [-1, 1) */
  g_s = g_s * 1103515245u + 12345u;
  return (float)((g_s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static float bf16_to_float(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static float bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void test_rounding(void) {
  CHECK(el__bf16_round(1.0f) == 0x3f80 && el__bf16_round(-2.0f) == 0xc000,
        "bf16 of 1 and -2 are exact (0x3f80, 0xc000)");
  CHECK(el__bf16_round(bits(0x3f808000u)) == 0x3f80 && el__bf16_round(bits(0x3f818000u)) == 0x3f82,
        "a tie rounds to the even neighbour (0x3f80.8000 -> 0x3f80, 0x3f81.8000 -> 0x3f82)");
  CHECK(el__bf16_round(bits(0x3f808001u)) == 0x3f81 && el__bf16_round(bits(0x3f807fffu)) == 0x3f80,
        "just above and below a tie round to the nearer neighbour");
  CHECK(el__bf16_round(bits(0x00400000u)) == 0 && el__bf16_round(bits(0x80400000u)) == 0x8000,
        "a subnormal becomes a zero of its sign");
  CHECK(el__bf16_round(bits(0x7f7fffffu)) == 0x7f80 && el__bf16_round(bits(0x7fc00001u)) >= 0x7fc0,
        "the largest float rounds to infinity; a NaN stays a NaN");
}

/* The packed layout: element (c, k) = bf16 of alpha src[c sc + k sk] at its
 * place, zeros in the padding, nothing written after it. */
static int packed_right(int C, int K, size_t sc, size_t sk) {
  const int Kp = (K + 1) / 2 * 2, Cp = (C + 31) / 32 * 32;
  float *src = malloc(sizeof(float) * ((size_t)(C - 1) * sc + (size_t)(K - 1) * sk + 1));
  uint16_t *P = malloc(sizeof(uint16_t) * ((size_t)Cp * Kp + 1));
  for (size_t i = 0; i < (size_t)(C - 1) * sc + (size_t)(K - 1) * sk + 1; i++) src[i] = frand();
  P[Cp * Kp] = 0x1234; /* a guard after the packed elements */
  for (int i = 0; i < Cp * Kp; i++) P[i] = 0x5555; /* garbage the padding must not keep */
  el__bgemm_pack_strided(P, src, sc, sk, C, K, 0.5f);
  int ok = P[Cp * Kp] == 0x1234 && el__bgemm_packed_elems(C, K) == (size_t)Cp * Kp;
  for (int c = 0; c < Cp; c++)
    for (int k = 0; k < Kp; k++) {
      const uint16_t want = c < C && k < K ? el__bf16_round(0.5f * src[c * sc + k * sk]) : 0;
      ok = ok && P[(c / 32) * 32 * Kp + (k / 2) * 64 + (c % 32) * 2 + k % 2] == want;
    }
  free(src), free(P);
  return ok;
}

static void test_pack(void) {
  CHECK(el__bgemm_packed_elems(37, 5) == 64 * 6, "packed size: Cout 37 -> 64, K 5 -> 6 (%zu)",
        el__bgemm_packed_elems(37, 5));
  const int shapes[][2] = {{37, 5}, {32, 64}, {64, 128}, {5, 33}, {100, 7}};
  int cols = 1, rows = 1, strided = 1;
  for (int i = 0; i < 5; i++) {
    const int C = shapes[i][0], K = shapes[i][1];
    cols = cols && packed_right(C, K, (size_t)K + 3, 1);   /* a head's keys: a column's k contiguous */
    rows = rows && packed_right(C, K, 1, (size_t)C + 5);   /* its values: a k's columns contiguous */
    strided = strided && packed_right(C, K, 2 * (size_t)K, 2); /* neither */
  }
  CHECK(cols && rows && strided,
        "pack: Cout x K in {37x5, 32x64, 64x128, 5x33, 100x7} (alpha 0.5) into 32-column panels "
        "of k pairs, zeros in the padding, nothing after it: k contiguous %s, columns contiguous "
        "%s, both strided %s", cols ? "ok" : "WRONG", rows ? "ok" : "WRONG",
        strided ? "ok" : "WRONG");
}

static void test_rows(void) {
  enum { M = 3, K = 37, LD = 40 };
  float src[M * K];
  uint16_t dst[M * LD];
  for (int i = 0; i < M * K; i++) src[i] = frand() * 1e3f;
  src[5] = bits(0x3f808000u), src[6] = bits(0x00400000u);
  for (int i = 0; i < M * LD; i++) dst[i] = 0xffff;
  el__bf16_rows(dst, LD, src, K, M, K);
  int ok = 1;
  for (int m = 0; m < M; m++) {
    for (int k = 0; k < K; k++) ok = ok && dst[m * LD + k] == el__bf16_round(src[m * K + k]);
    ok = ok && dst[m * LD + K] == 0 && dst[m * LD + K + 1] == 0xffff;
  }
  CHECK(ok, "el__bf16_rows equals el__bf16_round bit for bit (a tie, a subnormal), pads an odd "
            "row with one zero and writes nothing after it");
}

static const int Ms[] = {1, 5, 12, 13, 40};
static const int Ns[] = {1, 17, 32, 33, 100};
static const int Ks[] = {1, 2, 7, 64, 128};
#define COUNT(a) (int)(sizeof a / sizeof *a)
#define GUARD 3
#define SENTINEL -777.0f

static void test_products(void) {
  long shapes = 0, wrong = 0, spill = 0;
  double worst = 0;
  for (int a = 0; a < COUNT(Ms); a++)
    for (int b = 0; b < COUNT(Ns); b++)
      for (int c = 0; c < COUNT(Ks); c++) {
        const int M = Ms[a], N = Ns[b], K = Ks[c], lda = (K + 1) / 2 * 2, ldc = N + GUARD;
        float *x = malloc(sizeof(float) * M * K), *w = malloc(sizeof(float) * N * K);
        float *C = malloc(sizeof(float) * M * ldc);
        uint16_t *A = malloc(sizeof(uint16_t) * M * lda);
        uint16_t *W = malloc(sizeof(uint16_t) * el__bgemm_packed_elems(N, K));
        for (int i = 0; i < M * K; i++) x[i] = frand();
        for (int i = 0; i < N * K; i++) w[i] = frand();
        for (int i = 0; i < M * ldc; i++) C[i] = SENTINEL;
        el__bf16_rows(A, lda, x, K, M, K);
        el__bgemm_pack_strided(W, w, K, 1, N, K, 1.0f);
        el__bgemm(M, N, K, A, lda, W, C, ldc, 0);
        for (int m = 0; m < M; m++) {
          for (int n = 0; n < N; n++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
              const double t = (double)bf16_to_float(el__bf16_round(x[m * K + k])) *
                               bf16_to_float(el__bf16_round(w[n * K + k]));
              want += t, mag += t < 0 ? -t : t;
            }
            const double err = C[m * ldc + n] - want, e = err < 0 ? -err : err;
            if (e > 1e-6 * mag + 1e-30) wrong++;
            if (mag > 0 && e / mag > worst) worst = e / mag;
          }
          for (int g = 0; g < GUARD; g++) spill += C[m * ldc + N + g] != SENTINEL;
        }
        shapes++;
        free(x), free(w), free(C), free(A), free(W);
      }
  CHECK(shapes == 125 && wrong == 0,
        "bf16 product: %ld shapes (M 1..40, nc 1..100, K 1..128) equal the naive product of the "
        "same bf16 values within 1e-6 of the sum of |terms| (%ld wrong; worst %.2g)",
        shapes, wrong, worst);
  CHECK(spill == 0, "bf16 product: nothing written past C's nc columns (%ld guards overwritten)",
        spill);
}

int main(void) {
  test_rounding();
  test_pack();
  if (el__bgemm_available()) {
    test_rows();
    test_products();
  } else {
    SKIP("bf16 conversion and product: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off)");
  }
  return el_test_done();
}
