/* The packed int8 product of quant_gemm.h. As infer_gemm.c's fp32 kernels:
 * each kernel keeps a tile of acc in registers and, per group of 4 k,
 * loads one row of the panel (32 columns x 4 codes) and broadcasts 4
 * activations (one 32-bit word) per row of the tile; the activations are
 * read in place, the panel streams from memory once per block of k and
 * stays in L1 while every tile of rows passes over it. The kernels are
 * compiled for their instruction set by target attributes, whatever the
 * build's -march, and picked from cpuid at run time. */
#include "quant_gemm.h"
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "infer_gemm.h"
#include "lanes.h"
#include "op_fastmath_avx512.h"

/* Most k per block. A product of one block is dequantized from the tile in
 * L1 instead of the int32 buffer. AVX2: 1,024 (a panel's block 32 KiB; 1,024
 * rather than 512 makes ELECTRA-Small's FFN-out product one block: int8
 * batch 32 145.0 -> 141.3 ms on the VNNI kernel, Zen 4, alternating 12
 * rounds; the AVX2 kernel unchanged within noise). VNNI: 4,096 (a block of
 * 128 KiB streams from L2 at a fraction of its rate), so the large shape's
 * FFN-out product is one block too: its batch 1 44.8 -> 42.9 ms, best of 5
 * alternating rounds. */
#define QKC_AVX2 1024
#define QKC_VNNI 4096
#define QROW 128  /* bytes of one group of 4 k in a panel: 32 columns x 4 codes */

static int min_int(int a, int b) { return a < b ? a : b; }
static int round_up(int x, int m) { return (x + m - 1) / m * m; }

static el__qgemm_isa_t g_isa;
static pthread_once_t g_isa_once = PTHREAD_ONCE_INIT;

/* What the CPU (and the OS) runs, capped by infer_gemm.h's ELECTRA_GEMM
 * (through el__gemm_isa) and by ELECTRA_QGEMM (quant_gemm.h). */
static void isa_init(void) {
  __builtin_cpu_init();
  el__qgemm_isa_t isa = EL__QGEMM_NONE;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vnni"))
    isa = EL__QGEMM_VNNI;
  else if (__builtin_cpu_supports("avx2"))
    isa = EL__QGEMM_AVX2;
  const el__gemm_isa_t fp32 = el__gemm_isa();
  if (fp32 == EL__GEMM_NONE) isa = EL__QGEMM_NONE;
  if (fp32 == EL__GEMM_AVX2 && isa > EL__QGEMM_AVX2) isa = EL__QGEMM_AVX2;
  const char *cap = getenv("ELECTRA_QGEMM");
  if (cap && !strcmp(cap, "onednn")) isa = EL__QGEMM_NONE;
  if (cap && !strcmp(cap, "avx2") && isa > EL__QGEMM_AVX2) isa = EL__QGEMM_AVX2;
  g_isa = isa;
}

el__qgemm_isa_t el__qgemm_isa(void) {
  pthread_once(&g_isa_once, isa_init);
  return g_isa;
}

size_t el__qgemm_packed_bytes(int N, int K) {
  return (size_t)round_up(N, EL_QGEMM_NR) * (size_t)round_up(K, 4);
}

void el__qgemm_pack(int8_t *dst, const int8_t *q, int N, int K) {
  const size_t Kp = (size_t)round_up(K, 4);
  memset(dst, 0, el__qgemm_packed_bytes(N, K)); /* the padding: zero codes */
  for (int n = 0; n < N; n++) {
    int8_t *col = dst + (size_t)(n / EL_QGEMM_NR) * EL_QGEMM_NR * Kp + (size_t)(n % EL_QGEMM_NR) * 4;
    for (int k = 0; k < K; k++) col[(size_t)(k / 4) * QROW + k % 4] = q[(size_t)n * K + k];
  }
}

/* Four activations as one 32-bit word; the last group of a row may hold
 * fewer (tail < 4 bytes), read alone so nothing past the row's end is read
 * (the codes there are zero, but the bytes might be past the buffer). */
static inline __attribute__((always_inline)) int32_t word4(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline __attribute__((always_inline)) int32_t word_tail(const uint8_t *p, int tail) {
  uint32_t v = p[0];
  if (tail > 1) v |= (uint32_t)p[1] << 8;
  if (tail > 2) v |= (uint32_t)p[2] << 16;
  return (int32_t)v;
}

/* While the tiles of rows pass over one block of the panel, the next block
 * (stored right after it) is fetched into L1, a slice before each tile, as
 * infer_gemm.c does for fp32 (the weights come from memory once per forward
 * pass). Prefetching never faults: reading past W's end is harmless. */
static inline __attribute__((always_inline)) void prefetch_slice(const int8_t *next, size_t bytes,
                                                                 int tile, int tiles) {
  const size_t per = (bytes / 64 + tiles - 1) / tiles * 64;
  for (size_t o = per * tile; o < per * (tile + 1) && o < bytes; o += 64)
    _mm_prefetch((const char *)(next + o), _MM_HINT_T0);
}

/* One block of k for a tile: nq full groups of 4, then a group of tail < 4
 * activations (tail 0: none); first: the block at k = 0 (the accumulators
 * start at zero, else from acc). */
typedef struct kblock {
  int nq, tail, first, last; /* last: the block that ends at K */
} kblock;

/* ---- AVX-512 VNNI: tiles of up to 12 rows x 32 columns (24 accumulators) ---- */

#define MRV 12
#define TGTV __attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) static inline

/* o + (s sw) x as el__dequant computes it in this build (quant_act.c): one
 * fused multiply-add where the build targets FMA (__FMA__), else a product
 * and a sum (PORTABLE=1), so the kernel's floats stay el__dequant's bit for
 * bit (tests/unit/test_engine_qgemm.c). */
TGTV __m512 add_product(__m512 o, __m512 s, __m512 sw, __m512 x) {
#ifdef __FMA__
  return _mm512_fmadd_ps(_mm512_mul_ps(s, sw), x, o);
#else
  return _mm512_add_ps(o, _mm512_mul_ps(_mm512_mul_ps(s, sw), x));
#endif
}

/* The tile's floats from its int32 sums (el__qdeq): rows of deq from row
 * r0, columns from col. */
__attribute__((target("avx512f,avx512bw,avx512vnni"), noinline)) static void store_deq(
    const el__qdeq *deq, int r0, int col, const int32_t *C, size_t ldc, size_t ldo, const int m,
    __mmask16 m0, __mmask16 m1) {
  const __m512 sw0 = _mm512_maskz_loadu_ps(m0, deq->sw + col), sw1 = _mm512_maskz_loadu_ps(m1, deq->sw + col + 16);
  const __m512i cs0 = _mm512_maskz_loadu_epi32(m0, deq->cs + col), cs1 = _mm512_maskz_loadu_epi32(m1, deq->cs + col + 16);
  const __m512 b0 = deq->bias ? _mm512_maskz_loadu_ps(m0, deq->bias + col) : _mm512_setzero_ps();
  const __m512 b1 = deq->bias ? _mm512_maskz_loadu_ps(m1, deq->bias + col + 16) : _mm512_setzero_ps();
  /* read once: the stores below could alias *deq as far as the compiler knows */
  const float *sa = deq->sa + r0;
  const int32_t *za = deq->za + r0;
  float *out = deq->out + (size_t)r0 * ldo + col;
  const int accumulate = deq->accumulate, bias = deq->bias != NULL, gelu = deq->gelu;
#pragma GCC unroll 12
  for (int r = 0; r < m; r++) {
    const __m512i c0 = _mm512_maskz_loadu_epi32(m0, C + r * ldc), c1 = _mm512_maskz_loadu_epi32(m1, C + r * ldc + 16);
    const __m512 s = _mm512_set1_ps(sa[r]);
    const __m512i z = _mm512_set1_epi32(za[r]);
    float *o = out + (size_t)r * ldo;
    /* (sa sw) (float)(acc - za cs), as el__dequant evaluates it */
    const __m512 x0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(c0, _mm512_mullo_epi32(z, cs0)));
    const __m512 x1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(c1, _mm512_mullo_epi32(z, cs1)));
    __m512 v0, v1;
    if (accumulate) { /* o + (sa sw) x, as add_product says */
      v0 = add_product(_mm512_maskz_loadu_ps(m0, o), s, sw0, x0);
      v1 = add_product(_mm512_maskz_loadu_ps(m1, o + 16), s, sw1, x1);
    } else {
      v0 = _mm512_mul_ps(_mm512_mul_ps(s, sw0), x0);
      v1 = _mm512_mul_ps(_mm512_mul_ps(s, sw1), x1);
    }
    if (bias) v0 = _mm512_add_ps(v0, b0), v1 = _mm512_add_ps(v1, b1);
    if (gelu) v0 = el__gelu512(v0), v1 = el__gelu512(v1);
    _mm512_mask_storeu_ps(o, m0, v0);
    _mm512_mask_storeu_ps(o + 16, m1, v1);
  }
}

/* C[m, 0:32] (= or +=) A[m, block] x B[block, 0:32]; masks select the
 * columns that exist in C (the panel is always 32 wide). tail: the pass
 * over the block's last, partial group of k alone (a separate pass so the
 * main loop's code stays free of it: mixed in, it made GCC spill the
 * accumulators). m and tail are constants where this is inlined, so the
 * loops over rows unroll. */
TGTV void tile_vnni(const int m, const int tail, kblock kb, const uint8_t *A, size_t lda,
                    const int8_t *B, int32_t *C, size_t ldc, __mmask16 m0, __mmask16 m1) {
  const int first = kb.first && !tail, nq = tail ? 1 : kb.nq, q0 = tail ? kb.nq : 0;
  const __mmask16 l0 = first ? 0 : m0, l1 = first ? 0 : m1; /* mask 0: zeros, nothing read */
  __m512i c0[MRV], c1[MRV];
#pragma GCC unroll 12
  for (int r = 0; r < m; r++) {
    c0[r] = _mm512_maskz_loadu_epi32(l0, C + r * ldc);
    c1[r] = _mm512_maskz_loadu_epi32(l1, C + r * ldc + 16);
  }
  for (int q = q0; q < q0 + nq; q++) {
    const __m512i b0 = _mm512_loadu_si512(B + (size_t)q * QROW);
    const __m512i b1 = _mm512_loadu_si512(B + (size_t)q * QROW + 64);
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      const uint8_t *p = A + r * lda + 4 * q;
      const __m512i a = _mm512_set1_epi32(tail ? word_tail(p, kb.tail) : word4(p));
      c0[r] = _mm512_dpbusd_epi32(c0[r], a, b0);
      c1[r] = _mm512_dpbusd_epi32(c1[r], a, b1);
    }
  }
  /* stored as floats: the same bits (a masked move converts nothing), and
   * GCC 12 spilled every accumulator in the loop above around
   * _mm512_mask_storeu_epi32, not around this */
  if ((m0 & m1) == 0xffff) { /* plain stores: a masked store does not forward to the loads
                                store_deq makes of the tile right after */
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      _mm512_storeu_ps(C + r * ldc, _mm512_castsi512_ps(c0[r]));
      _mm512_storeu_ps(C + r * ldc + 16, _mm512_castsi512_ps(c1[r]));
    }
  } else {
#pragma GCC unroll 12
    for (int r = 0; r < m; r++) {
      _mm512_mask_storeu_ps(C + r * ldc, m0, _mm512_castsi512_ps(c0[r]));
      _mm512_mask_storeu_ps(C + r * ldc + 16, m1, _mm512_castsi512_ps(c1[r]));
    }
  }
}

#define TILEV_CASE(n)                                           \
  case n:                                                       \
    tile_vnni(n, 0, kb, A, lda, B, C, ldc, m0, m1);             \
    if (kb.tail) tile_vnni(n, 1, kb, A, lda, B, C, ldc, m0, m1); \
    break;

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void rows_vnni(
    int M, kblock kb, const uint8_t *A, size_t lda, const int8_t *B, int32_t *C, size_t ldc,
    int cols, const el__qdeq *deq, int col) {
  const __mmask16 m0 = el__first_lanes(cols), m1 = el__first_lanes(cols - 16);
  const size_t block = (size_t)(kb.nq + (kb.tail > 0)) * QROW, ldo = ldc;
  const int tiles = (M + MRV - 1) / MRV;
  /* A product made in one block of k and dequantized needs its int32 tile
   * only until store_deq has read it: the tile goes through this buffer,
   * which stays in L1, instead of the [M,N] acc (a store and a load of
   * every sum in L2 or further out). */
  _Alignas(64) int32_t tile[MRV * EL_QGEMM_NR];
  const int in_tile = deq && kb.first && kb.last;
  const size_t step = in_tile ? 0 : MRV * ldc;
  if (in_tile) C = tile, ldc = EL_QGEMM_NR;
  for (int i = 0; i < M; i += MRV, A += MRV * lda, C += step) {
    prefetch_slice(B + block, block, i / MRV, tiles);
    switch (min_int(MRV, M - i)) {
      TILEV_CASE(1) TILEV_CASE(2) TILEV_CASE(3) TILEV_CASE(4) TILEV_CASE(5) TILEV_CASE(6)
      TILEV_CASE(7) TILEV_CASE(8) TILEV_CASE(9) TILEV_CASE(10) TILEV_CASE(11) TILEV_CASE(12)
    }
    /* the last block's tile, still in L1, into floats (apart from the loop
     * above: in it, the epilogue made GCC spill the accumulators) */
    if (deq && kb.last) store_deq(deq, i, col, C, ldc, ldo, min_int(MRV, M - i), m0, m1);
  }
}

/* ---- AVX2: tiles of up to 4 rows x 16 columns (half a panel) ---- */

#define MR2 4
#define TGT2 __attribute__((target("avx2"), always_inline)) static inline

/* a x b for 8 columns of 4 codes: vpmaddubsw adds the u8 x s8 products in
 * pairs to int16 (at most 2 x 255 x 63 = 32130: never saturates with 7-bit
 * codes), vpmaddwd with ones adds the pairs of pairs to int32. */
TGT2 __m256i dot4(__m256i acc, __m256i a, __m256i b, __m256i ones) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
}

/* As tile_vnni over 16 columns; full: all 16 exist in C (plain loads and
 * stores), else k0/k1 mask the lanes of the columns that exist. */
TGT2 void tile_avx2(const int m, const int full, const int tail, kblock kb, const uint8_t *A,
                    size_t lda, const int8_t *B, int32_t *C, size_t ldc, __m256i k0, __m256i k1) {
  const int first = kb.first && !tail, nq = tail ? 1 : kb.nq, q0 = tail ? kb.nq : 0;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i c0[MR2], c1[MR2];
#pragma GCC unroll 4
  for (int r = 0; r < m; r++) {
    if (first) {
      c0[r] = c1[r] = _mm256_setzero_si256();
    } else {
      int32_t *c = C + r * ldc;
      c0[r] = full ? _mm256_loadu_si256((const __m256i *)c) : _mm256_maskload_epi32(c, k0);
      c1[r] = full ? _mm256_loadu_si256((const __m256i *)(c + 8))
                   : _mm256_maskload_epi32(c + 8, k1);
    }
  }
  for (int q = q0; q < q0 + nq; q++) {
    const __m256i b0 = _mm256_loadu_si256((const __m256i *)(B + (size_t)q * QROW));
    const __m256i b1 = _mm256_loadu_si256((const __m256i *)(B + (size_t)q * QROW + 32));
#pragma GCC unroll 4
    for (int r = 0; r < m; r++) {
      const uint8_t *p = A + r * lda + 4 * q;
      const __m256i a = _mm256_set1_epi32(tail ? word_tail(p, kb.tail) : word4(p));
      c0[r] = dot4(c0[r], a, b0, ones);
      c1[r] = dot4(c1[r], a, b1, ones);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < m; r++) {
    int32_t *c = C + r * ldc;
    if (full) {
      _mm256_storeu_si256((__m256i *)c, c0[r]);
      _mm256_storeu_si256((__m256i *)(c + 8), c1[r]);
    } else {
      _mm256_maskstore_epi32(c, k0, c0[r]);
      _mm256_maskstore_epi32(c + 8, k1, c1[r]);
    }
  }
}

/* The main pass, then the tail's, over one tile. */
TGT2 void tile_avx2_block(const int m, const int full, kblock kb, const uint8_t *A, size_t lda,
                          const int8_t *B, int32_t *C, size_t ldc, __m256i k0, __m256i k1) {
  tile_avx2(m, full, 0, kb, A, lda, B, C, ldc, k0, k1);
  if (kb.tail) tile_avx2(m, full, 1, kb, A, lda, B, C, ldc, k0, k1);
}

#define TILE2_CASE(n)                                     \
  case n:                                                 \
    if (cols == 16)                                       \
      tile_avx2_block(n, 1, kb, A, lda, B, C, ldc, k0, k1); \
    else                                                  \
      tile_avx2_block(n, 0, kb, A, lda, B, C, ldc, k0, k1); \
    break;

/* B: the half panel's first column group (its rows are QROW bytes apart). */
__attribute__((target("avx2"))) static void rows_avx2(int M, kblock kb, const uint8_t *A,
                                                      size_t lda, const int8_t *B, int32_t *C,
                                                      size_t ldc, int cols, int prefetch) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i k0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lane);
  const __m256i k1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8), lane);
  const size_t block = (size_t)(kb.nq + (kb.tail > 0)) * QROW;
  const int tiles = (M + MR2 - 1) / MR2;
  for (int i = 0; i < M; i += MR2, A += MR2 * lda, C += MR2 * ldc) {
    if (prefetch) prefetch_slice(B + block, block, i / MR2, tiles);
    switch (min_int(MR2, M - i)) { TILE2_CASE(1) TILE2_CASE(2) TILE2_CASE(3) TILE2_CASE(4) }
  }
}

/* ---- the driver: panels, then blocks of k, then tiles of rows ---- */

/* Panels outer, k inner: the blocks are read in the order they are stored,
 * one sequential stream through W. Blocks of k are equal (K 768: 2 x 384,
 * not 512 + 256) so the prefetch of the next one matches its size. */
/* The int32 product; deq: the VNNI kernel's float epilogue (else NULL). */
static void product(el__qgemm_isa_t isa, int M, int N, int K, const uint8_t *a, const int8_t *W,
                    int32_t *acc, const el__qdeq *deq, int n0, int n1) {
  const size_t Kp = (size_t)round_up(K, 4), lda = (size_t)K, ldc = (size_t)N;
  const int most = isa == EL__QGEMM_VNNI ? QKC_VNNI : QKC_AVX2;
  const int blocks = (K + most - 1) / most, kc = round_up((K + blocks - 1) / blocks, 4);
  for (int j = n0; j < n1; j += EL_QGEMM_NR) {
    const int cols = min_int(EL_QGEMM_NR, n1 - j);
    const int8_t *panel = W + (size_t)j * Kp;
    for (int k0 = 0; k0 < K; k0 += kc) {
      const int kn = min_int(kc, K - k0); /* only the last block can end inside a group */
      const kblock kb = {.nq = kn / 4, .tail = kn % 4, .first = k0 == 0, .last = k0 + kn >= K};
      const int8_t *B = panel + (size_t)(k0 / 4) * QROW;
      if (isa == EL__QGEMM_VNNI) {
        rows_vnni(M, kb, a + k0, lda, B, acc + j, ldc, cols, deq, j);
      } else {
        for (int h = 0; h < cols; h += 16)
          rows_avx2(M, kb, a + k0, lda, B + h * 4, acc + j + h, ldc, min_int(16, cols - h),
                    h == 0);
      }
    }
  }
}

void el__qgemm_cols(el__qgemm_isa_t isa, int M, int N, int K, const uint8_t *a, const int8_t *W,
                    int32_t *acc, const el__qdeq *deq, int n0, int n1) {
  if (M <= 0 || n1 <= n0) return;
  const int fused = deq && K > 0 && isa == EL__QGEMM_VNNI;
  if (K <= 0)
    for (int m = 0; m < M; m++) memset(acc + (size_t)m * N + n0, 0, sizeof(int32_t) * (size_t)(n1 - n0));
  else
    product(isa, M, N, K, a, W, acc, fused ? deq : NULL, n0, n1);
  if (deq && !fused) el__qdeq_apart(deq, acc, M, N, n0, n1);
}

void el__qgemm(el__qgemm_isa_t isa, int M, int N, int K, const uint8_t *a, const int8_t *W,
               int32_t *acc, const el__qdeq *deq) {
  el__qgemm_cols(isa, M, N, K, a, W, acc, deq, 0, N);
}
