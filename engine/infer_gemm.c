/* The packed-weight product of infer_gemm.h. Each kernel keeps a tile of C
 * in registers and, per k, loads one row of the panel and broadcasts one
 * activation per row of the tile: the activations are read in place (row
 * after row, from L1/L2), the panel streams from memory once per block of
 * KC rows of k and stays in L1 while every tile of rows passes over it.
 * The kernels are compiled for their instruction set by target attributes,
 * whatever the build's -march, and picked from cpuid at run time. */
#include "infer_gemm.h"
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lanes.h"

#define KC 256 /* rows of k per block: a 32-column panel block is 32 KiB */

static int min_int(int a, int b) { return a < b ? a : b; }

static el__gemm_isa_t g_isa;
static pthread_once_t g_isa_once = PTHREAD_ONCE_INIT;

/* What the CPU (and the OS, which must save the registers) runs, capped by
 * ELECTRA_GEMM: "openblas" (no packing, OpenBLAS's own kernels), "avx2"
 * (the AVX2 kernel on an AVX-512 CPU, to measure what AVX2-only CPUs get). */
static void isa_init(void) {
  __builtin_cpu_init();
  el__gemm_isa_t isa = EL__GEMM_NONE;
  if (__builtin_cpu_supports("avx512f")) isa = EL__GEMM_AVX512;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isa = EL__GEMM_AVX2;
  const char *cap = getenv("ELECTRA_GEMM");
  if (cap && !strcmp(cap, "openblas")) isa = EL__GEMM_NONE;
  if (cap && !strcmp(cap, "avx2") && isa > EL__GEMM_AVX2) isa = EL__GEMM_AVX2;
  g_isa = isa;
}

el__gemm_isa_t el__gemm_isa(void) {
  pthread_once(&g_isa_once, isa_init);
  return g_isa;
}

void el__gemm_pack_strided(float *dst, const float *src, size_t sc, size_t sk, int Cout, int K,
                           float alpha) {
  for (int j = 0; j < Cout; j += EL_GEMM_NR) {
    const int wj = min_int(EL_GEMM_NR, Cout - j);
    float *p = dst + (size_t)j * K;
    for (int k = 0; k < K; k++)
      for (int c = 0; c < wj; c++) p[(size_t)k * wj + c] = alpha * src[(size_t)(j + c) * sc + (size_t)k * sk];
  }
}

void el__gemm_pack(float *dst, const float *w, int Cout, int K) {
  el__gemm_pack_strided(dst, w, (size_t)K, 1, Cout, K, 1.0f);
}

/* While the tiles of rows pass over one block of the panel, the next block
 * (stored right after it) is fetched into L1, a slice before each tile: the
 * weights are not in the caches (each is read from memory once per forward
 * pass), and the hardware prefetcher alone left the first tile over each
 * block waiting on memory (a batch-1 forward pass at one thread on an
 * AVX-512 EPYC: 18.6 ms CPU without, 14.6 with). Prefetching never faults:
 * reading past W's end is harmless. */
static inline __attribute__((always_inline)) void prefetch_slice(const float *next, size_t floats,
                                                                 int tile, int tiles) {
  const size_t per = (floats / 16 + tiles - 1) / tiles * 16;
  for (size_t o = per * tile; o < per * (tile + 1) && o < floats; o += 16)
    _mm_prefetch((const char *)(next + o), _MM_HINT_T0);
}

/* ---- AVX-512F: tiles of up to 12 rows x 32 columns (24 accumulators) ---- */

#define MR512 12
#define TGT512 __attribute__((target("avx512f,fma"), always_inline)) static inline

/* C[m, 0:32] += A[m, 0:kc] x B[0:kc, 0:32], B rows w floats apart; masks
 * select the columns that exist (the panel's last may be narrower). With a
 * bias row the tile starts from it instead of C (C = bias + A x B). m is a
 * constant where this is inlined, so the loops over rows unroll. */
TGT512 void tile512(const int m, int kc, const float *A, size_t lda, const float *B, int w,
                    const float *bias, float *C, size_t ldc, __mmask16 m0, __mmask16 m1) {
  __m512 c0[MR512], c1[MR512];
  if (bias) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) c0[r] = b0, c1[r] = b1;
  } else {
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      c0[r] = _mm512_maskz_loadu_ps(m0, C + r * ldc);
      c1[r] = _mm512_maskz_loadu_ps(m1, C + r * ldc + 16);
    }
  }
  for (int k = 0; k < kc; k++) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, B + (size_t)k * w);
    const __m512 b1 = _mm512_maskz_loadu_ps(m1, B + (size_t)k * w + 16);
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      const __m512 a = _mm512_set1_ps(A[r * lda + k]);
      c0[r] = _mm512_fmadd_ps(a, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(a, b1, c1[r]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < m; r++) {
    _mm512_mask_storeu_ps(C + r * ldc, m0, c0[r]);
    _mm512_mask_storeu_ps(C + r * ldc + 16, m1, c1[r]);
  }
}

#define TILE512_CASE(n) \
  case n: tile512(n, kc, A, lda, B, w, bias, C, ldc, m0, m1); break;

__attribute__((target("avx512f,fma"))) static void rows512(int M, int kc, const float *A,
                                                           size_t lda, const float *B, int w,
                                                           const float *bias, float *C,
                                                           size_t ldc, int cols) {
  const __mmask16 m0 = el__first_lanes(cols), m1 = el__first_lanes(cols - 16);
  const int tiles = (M + MR512 - 1) / MR512;
  for (int i = 0; i < M; i += MR512, A += MR512 * lda, C += MR512 * ldc) {
    prefetch_slice(B + (size_t)kc * w, (size_t)KC * EL_GEMM_NR, i / MR512, tiles);
    switch (min_int(MR512, M - i)) {
      TILE512_CASE(1) TILE512_CASE(2) TILE512_CASE(3) TILE512_CASE(4) TILE512_CASE(5)
      TILE512_CASE(6) TILE512_CASE(7) TILE512_CASE(8) TILE512_CASE(9) TILE512_CASE(10)
      TILE512_CASE(11) TILE512_CASE(12)
    }
  }
}

/* ---- AVX2 + FMA: tiles of up to 6 rows x 16 columns (half a panel) ---- */

#define MR256 6
#define TGT256 __attribute__((target("avx2,fma"), always_inline)) static inline

/* As tile512 over 16 columns; full: all 16 exist (plain loads), else mask
 * (the lanes of the columns that exist, all bits set). */
TGT256 void tile256(const int m, const int full, int kc, const float *A, size_t lda,
                    const float *B, int w, const float *bias, float *C, size_t ldc, __m256i k0,
                    __m256i k1) {
  __m256 c0[MR256], c1[MR256];
  if (bias) {
    const __m256 b0 = full ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, k0);
    const __m256 b1 = full ? _mm256_loadu_ps(bias + 8) : _mm256_maskload_ps(bias + 8, k1);
#pragma GCC unroll 6
    for (int r = 0; r < m; r++) c0[r] = b0, c1[r] = b1;
  } else {
#pragma GCC unroll 6
    for (int r = 0; r < m; r++) {
      c0[r] = full ? _mm256_loadu_ps(C + r * ldc) : _mm256_maskload_ps(C + r * ldc, k0);
      c1[r] = full ? _mm256_loadu_ps(C + r * ldc + 8) : _mm256_maskload_ps(C + r * ldc + 8, k1);
    }
  }
  for (int k = 0; k < kc; k++) {
    const float *b = B + (size_t)k * w;
    const __m256 b0 = full ? _mm256_loadu_ps(b) : _mm256_maskload_ps(b, k0);
    const __m256 b1 = full ? _mm256_loadu_ps(b + 8) : _mm256_maskload_ps(b + 8, k1);
#pragma GCC unroll 6
    for (int r = 0; r < m; r++) {
      const __m256 a = _mm256_broadcast_ss(A + r * lda + k);
      c0[r] = _mm256_fmadd_ps(a, b0, c0[r]);
      c1[r] = _mm256_fmadd_ps(a, b1, c1[r]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < m; r++) {
    if (full) {
      _mm256_storeu_ps(C + r * ldc, c0[r]);
      _mm256_storeu_ps(C + r * ldc + 8, c1[r]);
    } else {
      _mm256_maskstore_ps(C + r * ldc, k0, c0[r]);
      _mm256_maskstore_ps(C + r * ldc + 8, k1, c1[r]);
    }
  }
}

#define TILE256_CASE(n)                                           \
  case n:                                                         \
    if (cols == 16)                                               \
      tile256(n, 1, kc, A, lda, B, w, bias, C, ldc, k0, k1);      \
    else                                                          \
      tile256(n, 0, kc, A, lda, B, w, bias, C, ldc, k0, k1);      \
    break;

__attribute__((target("avx2,fma"))) static void rows256(int M, int kc, const float *A, size_t lda,
                                                        const float *B, int w, const float *bias,
                                                        float *C, size_t ldc, int cols) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i k0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lane);
  const __m256i k1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8), lane);
  const int tiles = (M + MR256 - 1) / MR256;
  for (int i = 0; i < M; i += MR256, A += MR256 * lda, C += MR256 * ldc) {
    prefetch_slice(B + (size_t)kc * w, (size_t)KC * EL_GEMM_NR, i / MR256, tiles);
    switch (min_int(MR256, M - i)) {
      TILE256_CASE(1) TILE256_CASE(2) TILE256_CASE(3) TILE256_CASE(4) TILE256_CASE(5)
      TILE256_CASE(6)
    }
  }
}

/* ---- the driver: panels, then blocks of k, then tiles of rows ---- */

/* Panels outer, k inner: the blocks are then read in the order they are
 * stored, one sequential stream through W (a model's weights do not stay in
 * the caches from one request to the next: each is read from memory once
 * per forward pass). */
void el__gemm_packed(el__gemm_isa_t isa, int M, int nc, int K, const float *A, size_t lda,
                     const float *W, int Cout, int c0, const float *bias, float *C, size_t ldc) {
  for (int j = c0; j < c0 + nc; j += EL_GEMM_NR) {
    const int w = min_int(EL_GEMM_NR, Cout - j), cols = min_int(w, c0 + nc - j);
    for (int k0 = 0; k0 < K; k0 += KC) {
      const int kc = min_int(KC, K - k0);
      const float *panel = W + (size_t)j * K + (size_t)k0 * w;
      const float *b = bias && k0 == 0 ? bias + (j - c0) : NULL; /* later blocks add to C */
      if (isa == EL__GEMM_AVX512) {
        rows512(M, kc, A + k0, lda, panel, w, b, C + (j - c0), ldc, cols);
      } else {
        for (int h = 0; h < cols; h += 16)
          rows256(M, kc, A + k0, lda, panel + h, w, b ? b + h : NULL, C + (j - c0) + h, ldc,
                  min_int(16, cols - h));
      }
    }
  }
}
