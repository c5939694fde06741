/* The arithmetic of the int8 path (quant.h): quantizing weights and
 * activation rows, and dequantizing int32 products. Plain loops GCC
 * vectorises; no library needed, so the unit tests check them in every
 * build. These loops are the references of the activation rows' codes
 * (quant_rows.c chooses between them and its AVX-512 intrinsics). */
#include <math.h>
#include "infer_kernels.h"
#include "ops.h"
#include "quant.h"
#include "quant_gemm.h"

/* o + p x: one fused multiply-add where the target has FMA, as the VNNI
 * kernel's epilogue (quant_gemm.c) and the AVX-512 activation codes
 * (quant_rows.c) compute it, so they give the same bits whatever the
 * compiler would contract (a SANITIZE or PORTABLE build has no FMA). */
static inline float add_product(float o, float p, float x) {
#ifdef __FMA__
  return fmaf(p, x, o);
#else
  return o + p * x;
#endif
}

/* One row's codes, scale and zero point from its range lo = min(0, row),
 * hi = max(0, row) (holding 0, so z is in [0, 255]). */
static void codes_ref(uint8_t *qr, float *scale, int32_t *zp, const float *row, float lo, float hi,
                      int C) {
  const float s = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  const float inv = 1.0f / s;
  const float z = nearbyintf(-lo * inv);
  *scale = s;
  *zp = (int32_t)z;
  /* +0.5 then truncation rounds the non-negative value to nearest; the
   * clamp only catches rounding at the ends of the range */
#pragma omp simd
  for (int c = 0; c < C; c++) {
    float v = add_product(z, row[c], inv) + 0.5f;
    v = v < 0.0f ? 0.0f : v;
    v = v > 255.0f ? 255.0f : v;
    qr[c] = (uint8_t)(int)v;
  }
}

void el__quant_rows_ref(uint8_t *q, float *scale, int32_t *zp, const float *x, int N, int C) {
  for (int n = 0; n < N; n++) {
    const float *row = x + (size_t)n * C;
    float lo = 0.0f, hi = 0.0f;
#pragma omp simd reduction(min : lo) reduction(max : hi)
    for (int c = 0; c < C; c++) {
      lo = row[c] < lo ? row[c] : lo;
      hi = row[c] > hi ? row[c] : hi;
    }
    codes_ref(q + (size_t)n * C, scale + n, zp + n, row, lo, hi, C);
  }
}

void el__quant_rows_ranged_ref(uint8_t *q, float *scale, int32_t *zp, const float *x,
                               const float *lo, const float *hi, int N, int C) {
  for (int n = 0; n < N; n++)
    codes_ref(q + (size_t)n * C, scale + n, zp + n, x + (size_t)n * C, lo[n], hi[n], C);
}

void el__quant_weights(int8_t *q, float *scale, int32_t *colsum, const float *w, int N, int K,
                       int qmax) {
  for (int n = 0; n < N; n++) {
    const float *row = w + (size_t)n * K;
    int8_t *qr = q + (size_t)n * K;
    float amax = 0.0f;
    for (int k = 0; k < K; k++) amax = fabsf(row[k]) > amax ? fabsf(row[k]) : amax;
    const float s = amax > 0.0f ? amax / (float)qmax : 1.0f;
    int32_t sum = 0;
    for (int k = 0; k < K; k++) {
      long v = lrintf(row[k] / s);
      v = v < -qmax ? -qmax : v > qmax ? qmax : v;
      qr[k] = (int8_t)v;
      sum += (int32_t)v;
    }
    scale[n] = s;
    if (colsum) colsum[n] = sum;
  }
}

void el__dequant(float *out, const int32_t *acc, const float *sa, const int32_t *za,
                 const float *sw, const int32_t *cs, int M, int N, int accumulate) {
  for (int m = 0; m < M; m++) {
    const int32_t *a = acc + (size_t)m * N;
    float *o = out + (size_t)m * N;
    const float s = sa[m];
    const int32_t z = za[m];
    if (accumulate) {
#pragma omp simd
      for (int n = 0; n < N; n++) o[n] = add_product(o[n], s * sw[n], (float)(a[n] - z * cs[n]));
    } else {
#pragma omp simd
      for (int n = 0; n < N; n++) o[n] = s * sw[n] * (float)(a[n] - z * cs[n]);
    }
  }
}

void el__qdeq_apart(const el__qdeq *deq, const int32_t *acc, int M, int N, int n0, int n1) {
  for (int m = 0; m < M; m++) { /* el__dequant on one row's columns, then the bias */
    float *o = deq->out + (size_t)m * N + n0;
    el__dequant(o, acc + (size_t)m * N + n0, deq->sa + m, deq->za + m, deq->sw + n0, deq->cs + n0,
                1, n1 - n0, deq->accumulate);
    if (deq->bias) el__add_inplace(o, deq->bias + n0, (size_t)(n1 - n0));
    if (deq->gelu) el__gelu_vec(o, o, (size_t)(n1 - n0));
  }
}
