/* The activation rows' codes (quant.h's el__quant_rows): quant_act.c's
 * plain loops, or where the CPU has the VNNI kernel (quant_gemm.h) these
 * AVX-512 intrinsics. GCC's code for the plain loops of quant_act.c keeps
 * the min/max reduction in memory and narrows each float to a byte one
 * vector at a time; here four vectors of accumulators, and 64 codes made at
 * once by two saturating packs (which are also the clamp to [0, 255]).
 * The codes, scales and zero points are the loop's: same operations in the
 * same order (x inv + z as the loop's add_product, then + 0.5 and
 * truncation);
 * tests/unit/test_engine_quant.c compares the two. */
#include <immintrin.h>
#include <math.h>
#include "lanes.h"
#include "quant.h"
#include "quant_gemm.h"

#define TGT __attribute__((target("avx512f,avx512bw,fma")))

/* min(0, row) and max(0, row) over C floats */
TGT static void row_range(const float *row, int C, float *lo_out, float *hi_out) {
  __m512 lo[4], hi[4];
  for (int i = 0; i < 4; i++) lo[i] = hi[i] = _mm512_setzero_ps();
  int c = 0;
  for (; c + 64 <= C; c += 64)
    for (int i = 0; i < 4; i++) {
      const __m512 v = _mm512_loadu_ps(row + c + 16 * i);
      lo[i] = _mm512_min_ps(lo[i], v), hi[i] = _mm512_max_ps(hi[i], v);
    }
  for (; c < C; c += 16) { /* masked-off lanes load 0, which the range holds anyway */
    const __m512 v = _mm512_maskz_loadu_ps(el__first_lanes(C - c), row + c);
    lo[0] = _mm512_min_ps(lo[0], v), hi[0] = _mm512_max_ps(hi[0], v);
  }
  *lo_out = _mm512_reduce_min_ps(_mm512_min_ps(_mm512_min_ps(lo[0], lo[1]), _mm512_min_ps(lo[2], lo[3])));
  *hi_out = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(hi[0], hi[1]), _mm512_max_ps(hi[2], hi[3])));
}

/* trunc(x inv + z + 0.5) as int32 lanes; below 0 or above 255 only by
 * rounding. x inv + z as quant_act.c's add_product computes it in this
 * build: one multiply-add where the build targets FMA, else two steps. */
TGT static __m512i code32(__m512 x, __m512 inv, __m512 z) {
#ifdef __FMA__
  const __m512 v = _mm512_fmadd_ps(x, inv, z);
#else
  const __m512 v = _mm512_add_ps(_mm512_mul_ps(x, inv), z);
#endif
  return _mm512_cvttps_epi32(_mm512_add_ps(v, _mm512_set1_ps(0.5f)));
}

TGT void el__quant_rows_avx512(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C,
                               const float *lo_given, const float *hi_given) {
  /* the two packs interleave 128-bit lanes: dword j of the result holds
   * codes 4 (j % 4) .. of vector j / 4 ... this puts them back in order */
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (int n = 0; n < N; n++) {
    const float *row = x + (size_t)n * C;
    uint8_t *qr = q + (size_t)n * C;
    float lo, hi;
    if (lo_given) lo = lo_given[n], hi = hi_given[n];
    else row_range(row, C, &lo, &hi);
    const float s = hi > lo ? (hi - lo) / 255.0f : 1.0f;
    const float inv = 1.0f / s;
    const float z = nearbyintf(-lo * inv);
    scale[n] = s;
    zp[n] = (int32_t)z;
    const __m512 vinv = _mm512_set1_ps(inv), vz = _mm512_set1_ps(z);
    int c = 0;
    for (; c + 64 <= C; c += 64) { /* int32 -> u16 -> u8, each pack saturating */
      const __m512i w01 = _mm512_packus_epi32(code32(_mm512_loadu_ps(row + c), vinv, vz),
                                              code32(_mm512_loadu_ps(row + c + 16), vinv, vz));
      const __m512i w23 = _mm512_packus_epi32(code32(_mm512_loadu_ps(row + c + 32), vinv, vz),
                                              code32(_mm512_loadu_ps(row + c + 48), vinv, vz));
      _mm512_storeu_si512(qr + c, _mm512_permutexvar_epi32(order, _mm512_packus_epi16(w01, w23)));
    }
    for (; c < C; c += 16) {
      const __mmask16 m = el__first_lanes(C - c);
      const __m512i v = code32(_mm512_maskz_loadu_ps(m, row + c), vinv, vz);
      _mm512_mask_cvtusepi32_storeu_epi8(qr + c, m, _mm512_max_epi32(v, _mm512_setzero_si512()));
    }
  }
}

void el__quant_rows(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C) {
  if (el__qgemm_isa() == EL__QGEMM_VNNI) el__quant_rows_avx512(q, scale, zp, x, N, C, NULL, NULL);
  else el__quant_rows_ref(q, scale, zp, x, N, C);
}

void el__quant_rows_ranged(uint8_t *q, float *scale, int32_t *zp, const float *x, const float *lo,
                           const float *hi, int N, int C) {
  if (el__qgemm_isa() == EL__QGEMM_VNNI) el__quant_rows_avx512(q, scale, zp, x, N, C, lo, hi);
  else el__quant_rows_ranged_ref(q, scale, zp, x, lo, hi, N, C);
}
