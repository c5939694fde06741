/* Internal: el__geluf (op_fastmath.h) on the 16 lanes of an AVX-512
 * register: the inference engine's GELU wherever the CPU has AVX-512
 * (engine/infer_kernels.c's el__gelu_vec, and engine/quant_gemm.c's int8
 * epilogue while a tile is in registers). The scalar form's rational erf:
 * two Horner chains in x^2, x p times 1/q (a reciprocal estimate refined by
 * one Newton step, not a division), 0.5 + 0.5 erf as one multiply-add,
 * times x; beyond the clamp erf is +-1: x, and 0. Within a float rounding
 * or two of el__geluf (tests/unit/test_engine_ops.c). Compiled for AVX-512
 * by its target attribute whatever the build's -march; call it only where
 * the CPU has AVX-512F. */
#ifndef EL_OP_FASTMATH_AVX512_H
#define EL_OP_FASTMATH_AVX512_H

#include <immintrin.h>
#include "op_fastmath.h"

#define EL__TGT512 __attribute__((target("avx512f"), always_inline)) static inline

EL__TGT512 __m512 el__horner512(__m512 x2, float c5, float c4, float c3, float c2, float c1,
                                float c0) {
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(c5), x2, _mm512_set1_ps(c4));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(c3));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(c2));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(c1));
  return _mm512_fmadd_ps(p, x2, _mm512_set1_ps(c0));
}

EL__TGT512 __m512 el__gelu512(__m512 x) {
  const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752440f));
  const __m512 t2 = _mm512_mul_ps(t, t);
  const __m512 p = el__horner512(t2, EL__ERF_P5, EL__ERF_P4, EL__ERF_P3, EL__ERF_P2, EL__ERF_P1,
                                 EL__ERF_P0);
  const __m512 q = el__horner512(t2, EL__ERF_Q5, EL__ERF_Q4, EL__ERF_Q3, EL__ERF_Q2, EL__ERF_Q1,
                                 1.0f);
  /* 1/q: the 14-bit estimate and one Newton step (~2^-28, below float's
   * rounding) instead of a division, which is slow on zmm registers */
  __m512 r = _mm512_rcp14_ps(q);
  r = _mm512_mul_ps(r, _mm512_fnmadd_ps(q, r, _mm512_set1_ps(2.0f)));
  const __m512 erf = _mm512_mul_ps(_mm512_mul_ps(t, p), r);
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512 gelu = _mm512_mul_ps(x, _mm512_fmadd_ps(half, erf, half));
  /* beyond the clamp erf is +-1 in float: x above it, x 0 (a signed zero)
   * below (as GCC folds the scalar form's ends) */
  const __mmask16 above = _mm512_cmp_ps_mask(t, _mm512_set1_ps(EL__ERF_CLAMP), _CMP_GE_OQ);
  const __mmask16 inside = _mm512_cmp_ps_mask(t, _mm512_set1_ps(-EL__ERF_CLAMP), _CMP_GT_OQ);
  const __m512 ends = _mm512_mask_mov_ps(_mm512_mul_ps(x, _mm512_setzero_ps()), above, x);
  return _mm512_mask_mov_ps(ends, inside & ~above, gelu);
}

/* el__expf on 16 lanes: the same clamp, rounding of x log2(e) to an
 * integer n by the 1.5 * 2^23 trick, two-part ln 2, Taylor to r^7 and the
 * exponent built in the bits (engine/infer_kernels.c's bf16 softmax). */
EL__TGT512 __m512 el__exp512(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), magic), magic);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860682030941723e-6f), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 5040.0f), r, _mm512_set1_ps(1.0f / 720.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}

#endif
