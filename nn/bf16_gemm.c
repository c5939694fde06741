/* The bf16 product of bf16_gemm.h. As quant_gemm.c's int8 kernel: a tile of
 * 12 rows x 32 columns of fp32 sums in registers; per pair of k, one row of
 * the panel (32 columns x 2 values) is loaded and each row of the tile
 * broadcasts its pair of activations (one 32-bit word). Compiled for its
 * instruction set by target attributes, whatever the build's -march, and
 * run only where cpuid reports it. */
#include "bf16_gemm.h"
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lanes.h"

#define MRB 12                  /* rows per tile */
#define PAIR_ROW (2 * EL_BGEMM_NR) /* elements of one pair of k in a panel */

static int round_up(int x, int m) { return (x + m - 1) / m * m; }
static int min_int(int a, int b) { return a < b ? a : b; }

static int g_available;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void available_init(void) {
  __builtin_cpu_init();
  const char *off = getenv("ELECTRA_BF16");
  g_available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512bf16") && !(off && !strcmp(off, "off"));
}

int el__bgemm_available(void) {
  pthread_once(&g_once, available_init);
  return g_available;
}

uint16_t el__bf16_round(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0) return (uint16_t)((u >> 16) & 0x8000u); /* subnormal: signed zero */
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* NaN stays NaN */
  u += 0x7fffu + ((u >> 16) & 1u); /* to nearest, ties to even */
  return (uint16_t)(u >> 16);
}

size_t el__bgemm_packed_elems(int Cout, int K) {
  return (size_t)round_up(Cout, EL_BGEMM_NR) * (size_t)round_up(K, 2);
}

#define TGTB __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/* 16 floats alpha x (n of them from p, zeros after) as bf16 in the low half
 * of each 32-bit lane. */
TGTB static inline __m512i bf16_lanes(const float *p, int n, __m512 alpha) {
  const __m256bh h =
      _mm512_cvtneps_pbh(_mm512_mul_ps(alpha, _mm512_maskz_loadu_ps(el__first_lanes(n), p)));
  return _mm512_cvtepu16_epi32((__m256i)h);
}

/* 16 words of pairs from two rows: word i = (alpha s0[i], alpha s1[i]) as
 * bf16 for i < n, zeros after; s1 NULL gives zero second halves (the
 * padding pair of an odd K). */
TGTB static inline __m512i pair_words(const float *s0, const float *s1, int n, __m512 alpha) {
  const __m512i lo = bf16_lanes(s0, n, alpha);
  const __m512i hi = s1 ? bf16_lanes(s1, n, alpha) : _mm512_setzero_si512();
  return _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
}

/* r[i] word p -> r[p] word i: a 16 x 16 transpose of 32-bit words in
 * registers (pairs within 128-bit lanes, then 4 x 4 blocks of lanes). */
TGTB static inline void transpose16(__m512i r[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) { /* u[i + e], lane L: word 4L + e of rows i..i+3 */
    u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int e = 0; e < 4; e++) {
    const __m512i x0 = _mm512_shuffle_i32x4(u[e], u[4 + e], 0x44);
    const __m512i x1 = _mm512_shuffle_i32x4(u[e], u[4 + e], 0xee);
    const __m512i y0 = _mm512_shuffle_i32x4(u[8 + e], u[12 + e], 0x44);
    const __m512i y1 = _mm512_shuffle_i32x4(u[8 + e], u[12 + e], 0xee);
    r[e] = _mm512_shuffle_i32x4(x0, y0, 0x88);
    r[4 + e] = _mm512_shuffle_i32x4(x0, y0, 0xdd);
    r[8 + e] = _mm512_shuffle_i32x4(x1, y1, 0x88);
    r[12 + e] = _mm512_shuffle_i32x4(x1, y1, 0xdd);
  }
}

/* The packing when a column's k are contiguous in src (sk == 1: a head's
 * keys, a dense layer's weights): for 16 columns, 32 k of each converted
 * into 16 pair words, the 16 x 16 words transposed, and each pair's 16
 * columns stored at once. Writes every element, padding included. */
TGTB static void pack_columns(uint16_t *dst, const float *src, size_t sc, int Cout, int K,
                              float alpha) {
  const int Kp = round_up(K, 2), Cp = round_up(Cout, EL_BGEMM_NR);
  const __m512 a = _mm512_set1_ps(alpha);
  uint32_t *w = (uint32_t *)dst;
  for (int c0 = 0; c0 < Cp; c0 += 16) {
    uint32_t *panel = w + (size_t)(c0 / EL_BGEMM_NR) * EL_BGEMM_NR * (Kp / 2) + c0 % EL_BGEMM_NR;
    for (int k = 0; k < Kp; k += 32) {
      const __mmask16 m0 = el__first_lanes(K - k), m1 = el__first_lanes(K - k - 16);
      __m512i r[16];
      for (int i = 0; i < 16; i++) {
        const float *s = src + (size_t)(c0 + i) * sc + k;
        r[i] = c0 + i >= Cout
                   ? _mm512_setzero_si512()
                   : (__m512i)_mm512_cvtne2ps_pbh(_mm512_mul_ps(a, _mm512_maskz_loadu_ps(m1, s + 16)),
                                                  _mm512_mul_ps(a, _mm512_maskz_loadu_ps(m0, s)));
      }
      transpose16(r);
      const int np = min_int(16, (Kp - k) / 2);
      for (int p = 0; p < np; p++) _mm512_storeu_si512(panel + (size_t)(k / 2 + p) * EL_BGEMM_NR, r[p]);
    }
  }
}

/* The packing when a k's columns are contiguous in src (sc == 1: a head's
 * values): each pair of k for 16 columns at once, two 16-float loads. */
TGTB static void pack_rows(uint16_t *dst, const float *src, size_t sk, int Cout, int K, float alpha) {
  const int Kp = round_up(K, 2);
  const __m512 a = _mm512_set1_ps(alpha);
  uint32_t *w = (uint32_t *)dst;
  for (int j = 0; j < round_up(Cout, EL_BGEMM_NR); j += 16) {
    uint32_t *panel = w + (size_t)(j / EL_BGEMM_NR) * EL_BGEMM_NR * (Kp / 2) + j % EL_BGEMM_NR;
    for (int k = 0; k < Kp; k += 2) {
      const float *s0 = src + (size_t)k * sk + j, *s1 = k + 1 < K ? s0 + sk : NULL;
      _mm512_storeu_si512(panel + (size_t)(k / 2) * EL_BGEMM_NR, pair_words(s0, s1, Cout - j, a));
    }
  }
}

void el__bgemm_pack_strided(uint16_t *dst, const float *src, size_t sc, size_t sk, int Cout, int K,
                            float alpha) {
  if (el__bgemm_available() && sc == 1 && K > 0) return pack_rows(dst, src, sk, Cout, K, alpha);
  if (el__bgemm_available() && sk == 1 && K > 0) return pack_columns(dst, src, sc, Cout, K, alpha);
  const size_t Kp = (size_t)round_up(K, 2);
  memset(dst, 0, sizeof(uint16_t) * el__bgemm_packed_elems(Cout, K));
  for (int c = 0; c < Cout; c++) {
    uint16_t *col = dst + (size_t)(c / EL_BGEMM_NR) * EL_BGEMM_NR * Kp + (size_t)(c % EL_BGEMM_NR) * 2;
    for (int k = 0; k < K; k++)
      col[(size_t)(k / 2) * PAIR_ROW + k % 2] = el__bf16_round(alpha * src[(size_t)c * sc + (size_t)k * sk]);
  }
}

TGTB void el__bf16_rows(uint16_t *dst, size_t ldd, const float *src, size_t lds, int M, int K) {
  for (int m = 0; m < M; m++) {
    const float *s = src + (size_t)m * lds;
    uint16_t *d = dst + (size_t)m * ldd;
    for (int k = 0; k < K; k += 16) {
      const __mmask16 mask = el__first_lanes(K - k);
      const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(mask, s + k));
      _mm256_mask_storeu_epi16(d + k, mask, (__m256i)h);
    }
    if (K % 2) d[K] = 0;
  }
}

/* C[m, 0:32] = A[m, 0:2np] x the panel B; masks select the columns that
 * exist in C (the panel is always 32 wide). Row r's pair p of A is the
 * 32-bit word at A + r rs + p ps (in bf16 elements: rows lda apart and pairs
 * 2 apart, or the pair-major layout of el__bf16_pairs). m is a constant
 * where this is inlined, so the loops over rows unroll. */
TGTB __attribute__((always_inline)) static inline void tile_bf16(const int m, int np,
                                                                  const uint16_t *A, size_t rs,
                                                                  size_t ps, const uint16_t *B,
                                                                  float *C, size_t ldc,
                                                                  __mmask16 m0, __mmask16 m1,
                                                                  int acc) {
  __m512 c0[MRB], c1[MRB];
#pragma GCC unroll 12
  for (int r = 0; r < m; r++) {
    c0[r] = acc ? _mm512_maskz_loadu_ps(m0, C + r * ldc) : _mm512_setzero_ps();
    c1[r] = acc ? _mm512_maskz_loadu_ps(m1, C + r * ldc + 16) : _mm512_setzero_ps();
  }
  for (int p = 0; p < np; p++, A += ps) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(B + (size_t)p * PAIR_ROW);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(B + (size_t)p * PAIR_ROW + EL_BGEMM_NR);
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      int32_t w;
      memcpy(&w, A + r * rs, 4);
      const __m512bh a = (__m512bh)_mm512_set1_epi32(w);
      c0[r] = _mm512_dpbf16_ps(c0[r], a, b0);
      c1[r] = _mm512_dpbf16_ps(c1[r], a, b1);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < m; r++) {
    _mm512_mask_storeu_ps(C + r * ldc, m0, c0[r]);
    _mm512_mask_storeu_ps(C + r * ldc + 16, m1, c1[r]);
  }
}

#define TILEB_CASE(n) \
  case n: tile_bf16(n, np, A, rs, ps, B, Cj, ldc, m0, m1, acc); break;

/* C [M, j1 - j0 columns from j0] for the panels of W from column j0: for each
 * tile of rows, every panel of the block, so that a tile's rows of C are
 * written as runs of the block's width. (Panel by panel over all rows, a wide
 * C -- a vocabulary's logits, its rows 32 KB apart, so that a tile's 24
 * lines share one set of the L1 cache -- ran at 0.7-0.8x of this order's
 * speed.) */
TGTB static void block_bf16(int M, int np, const uint16_t *A, size_t rs, size_t ps,
                            const uint16_t *W, int j0, int j1, float *C, size_t ldc, int acc) {
  for (int i = 0; i < M; i += MRB, A += MRB * rs, C += MRB * ldc) {
    for (int j = j0; j < j1; j += EL_BGEMM_NR) {
      const int cols = min_int(EL_BGEMM_NR, j1 - j);
      const __mmask16 m0 = el__first_lanes(cols), m1 = el__first_lanes(cols - 16);
      const uint16_t *B = W + (size_t)j * 2 * np;
      float *Cj = C + j;
      switch (min_int(MRB, M - i)) {
        TILEB_CASE(1) TILEB_CASE(2) TILEB_CASE(3) TILEB_CASE(4) TILEB_CASE(5) TILEB_CASE(6)
        TILEB_CASE(7) TILEB_CASE(8) TILEB_CASE(9) TILEB_CASE(10) TILEB_CASE(11) TILEB_CASE(12)
      }
    }
  }
}

/* Blocks of panels of at most BLOCK_BYTES of W, which stay in L2 while
 * every tile of rows passes over them. */
#define BLOCK_BYTES (256 << 10)

void el__bgemm_strided(int M, int nc, int K, const uint16_t *A, size_t rs, size_t ps,
                       const uint16_t *W, float *C, size_t ldc, int accumulate) {
  const int Kp = round_up(K, 2);
  const size_t panel_bytes = (size_t)EL_BGEMM_NR * (size_t)Kp * sizeof(uint16_t);
  const int per_block = panel_bytes >= BLOCK_BYTES ? 1 : (int)(BLOCK_BYTES / panel_bytes);
  for (int j = 0; j < nc; j += per_block * EL_BGEMM_NR)
    block_bf16(M, Kp / 2, A, rs, ps, W, j, min_int(nc, j + per_block * EL_BGEMM_NR), C, ldc,
               accumulate);
}

void el__bgemm(int M, int nc, int K, const uint16_t *A, size_t lda, const uint16_t *W, float *C,
               size_t ldc, int accumulate) {
  el__bgemm_strided(M, nc, K, A, lda, 2, W, C, ldc, accumulate);
}

TGTB void el__bf16_pairs(uint16_t *dst, const float *src, size_t lds, int M, int K) {
  const __m512 one = _mm512_set1_ps(1.0f);
  uint32_t *d = (uint32_t *)dst;
  for (int k = 0; k < K; k += 2, d += M) {
    const float *s0 = src + (size_t)k * lds, *s1 = k + 1 < K ? s0 + lds : NULL;
    for (int m = 0; m < M; m += 16)
      _mm512_mask_storeu_epi32(d + m, el__first_lanes(M - m),
                               pair_words(s0 + m, s1 ? s1 + m : NULL, M - m, one));
  }
}
