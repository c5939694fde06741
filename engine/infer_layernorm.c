/* The residual stream's LayerNorm (infer_kernels.h): x = LayerNorm(x + b)
 * g + beta row by row. The plain loops (GCC vectorises them, keeping its
 * sums in memory between iterations), and on AVX-512 CPUs the same in
 * intrinsics with four accumulators, which can also return each row's range
 * for the int8 path's quantization of its output (quant_forward.c), so that
 * needs no pass of its own. Checked against the naive op of ops.h in
 * tests/unit/test_engine_forward.c. */
#include <immintrin.h>
#include <math.h>
#include "infer_gemm.h"
#include "infer_kernels.h"
#include "lanes.h"
#include "op_fastmath.h"

EL_SIMD_CLONES
static void layernorm_loop(float *x, const float *b, const float *g, const float *beta, int N, int C,
                           float eps) {
  const float invC = 1.0f / (float)C;
  for (int r = 0; r < N; r++) {
    float *row = x + (size_t)r * C;
    float sum = 0.0f;
    if (b) {
#pragma omp simd reduction(+ : sum)
      for (int c = 0; c < C; c++) {
        row[c] += b[c];
        sum += row[c];
      }
    } else {
#pragma omp simd reduction(+ : sum)
      for (int c = 0; c < C; c++) sum += row[c];
    }
    const float mean = sum * invC;
    float var = 0.0f;
#pragma omp simd reduction(+ : var)
    for (int c = 0; c < C; c++) {
      float d = row[c] - mean;
      var += d * d;
    }
    const float rstd = 1.0f / sqrtf(var * invC + eps);
#pragma omp simd
    for (int c = 0; c < C; c++) row[c] = (row[c] - mean) * rstd * g[c] + beta[c];
  }
}

#define TGT __attribute__((target("avx512f,fma")))

/* sum(x + b) over C floats, writing x + b back when b */
TGT static float sum_bias(float *x, const float *b, int C) {
  __m512 s[4];
  for (int i = 0; i < 4; i++) s[i] = _mm512_setzero_ps();
  int c = 0;
  for (; c + 64 <= C; c += 64)
    for (int i = 0; i < 4; i++) {
      __m512 v = _mm512_loadu_ps(x + c + 16 * i);
      if (b) v = _mm512_add_ps(v, _mm512_loadu_ps(b + c + 16 * i)), _mm512_storeu_ps(x + c + 16 * i, v);
      s[i] = _mm512_add_ps(s[i], v);
    }
  for (; c < C; c += 16) {
    const __mmask16 m = el__first_lanes(C - c);
    __m512 v = _mm512_maskz_loadu_ps(m, x + c);
    if (b) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, b + c)), _mm512_mask_storeu_ps(x + c, m, v);
    s[0] = _mm512_add_ps(s[0], v);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3])));
}

/* sum((x - mean)^2) over C floats */
TGT static float sum_squares(const float *x, float mean, int C) {
  const __m512 mu = _mm512_set1_ps(mean);
  __m512 s[4];
  for (int i = 0; i < 4; i++) s[i] = _mm512_setzero_ps();
  int c = 0;
  for (; c + 64 <= C; c += 64)
    for (int i = 0; i < 4; i++) {
      const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + c + 16 * i), mu);
      s[i] = _mm512_fmadd_ps(d, d, s[i]);
    }
  for (; c < C; c += 16) { /* masked lanes: 0 - mean, zeroed before squaring */
    const __mmask16 m = el__first_lanes(C - c);
    const __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + c), mu);
    s[0] = _mm512_fmadd_ps(d, d, s[0]);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3])));
}

/* x = (x - mean) rstd g + beta; with lo/hi, min(0, x) and max(0, x) of the result */
TGT static void normalize(float *x, const float *g, const float *beta, float mean, float rstd, int C,
                          float *lo, float *hi) {
  const __m512 mu = _mm512_set1_ps(mean), r = _mm512_set1_ps(rstd);
  __m512 mn = _mm512_setzero_ps(), mx = mn;
  for (int c = 0; c < C; c += 16) {
    const __mmask16 m = el__first_lanes(C - c);
    const __m512 d = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + c), mu), r);
    const __m512 y = _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(m, g + c), _mm512_maskz_loadu_ps(m, beta + c));
    _mm512_mask_storeu_ps(x + c, m, y);
    mn = _mm512_mask_min_ps(mn, m, mn, y), mx = _mm512_mask_max_ps(mx, m, mx, y);
  }
  if (lo) *lo = _mm512_reduce_min_ps(mn), *hi = _mm512_reduce_max_ps(mx);
}

TGT static void layernorm_avx512(float *x, const float *b, const float *g, const float *beta, int N,
                                 int C, float eps, float *lo, float *hi) {
  const float invC = 1.0f / (float)C;
  for (int r = 0; r < N; r++) {
    float *row = x + (size_t)r * C;
    const float mean = sum_bias(row, b, C) * invC;
    const float rstd = 1.0f / sqrtf(sum_squares(row, mean, C) * invC + eps);
    normalize(row, g, beta, mean, rstd, C, lo ? lo + r : NULL, hi ? hi + r : NULL);
  }
}

static int use_avx512(void) { return el__gemm_isa() == EL__GEMM_AVX512; }

void el__bias_layernorm(float *x, const float *b, const float *g, const float *beta, int N, int C,
                        float eps) {
  if (use_avx512()) layernorm_avx512(x, b, g, beta, N, C, eps, NULL, NULL);
  else layernorm_loop(x, b, g, beta, N, C, eps);
}

void el__bias_layernorm_range(float *x, const float *b, const float *g, const float *beta, int N,
                              int C, float eps, float *lo, float *hi) {
  if (use_avx512()) {
    layernorm_avx512(x, b, g, beta, N, C, eps, lo, hi);
    return;
  }
  layernorm_loop(x, b, g, beta, N, C, eps); /* then the ranges in a pass of their own */
  for (int r = 0; r < N; r++) {
    const float *row = x + (size_t)r * C;
    float l = 0.0f, h = 0.0f;
    for (int c = 0; c < C; c++) l = row[c] < l ? row[c] : l, h = row[c] > h ? row[c] : h;
    lo[r] = l, hi[r] = h;
  }
}
