/* Fused inference kernels (see infer_kernels.h). The element-wise loops are
 * written so that GCC vectorises them (`omp simd`, branch-free selects, fmaf);
 * the matrix products inside attention are OpenBLAS SGEMMs. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "infer_kernels.h"

#define LOG2E 1.44269504088896341f
#define LN2_HI 0.693145751953125f /* ln 2 split so n * LN2_HI is exact */
#define LN2_LO 1.42860682030941723e-6f
#define ROUND_MAGIC 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer */
#define INV_SQRT2 0.70710678118654752440f

/* exp(x) = 2^n * e^r, n = round(x / ln 2), |r| <= ln2 / 2; e^r by its Taylor
 * series to degree 7 (truncation error < 1e-8 relative on that interval). */
static inline float exp_core(float x) {
  x = x < -87.3f ? -87.3f : x; /* not fminf/fmaxf: their NaN rules block vectorising */
  x = x > 88.3f ? 88.3f : x;   /* keeps n <= 127: 2^n stays finite */
  float n = (x * LOG2E + ROUND_MAGIC) - ROUND_MAGIC;
  float r = fmaf(-n, LN2_HI, x);
  r = fmaf(-n, LN2_LO, r);
  float p = 1.0f / 5040.0f;
  p = fmaf(p, r, 1.0f / 720.0f);
  p = fmaf(p, r, 1.0f / 120.0f);
  p = fmaf(p, r, 1.0f / 24.0f);
  p = fmaf(p, r, 1.0f / 6.0f);
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
  union {
    int32_t i;
    float f;
  } scale = {.i = ((int32_t)n + 127) << 23};
  return p * scale.f;
}

/* gelu(x) = x/2 * erfc(-x/sqrt 2). With z = |x|/sqrt 2 and y = erfc(z):
 * x >= 0 gives x - x*y/2, x < 0 gives x*y/2. erfc(z) = t exp(-z^2 + P(t)),
 * t = 1/(1 + z/2), P the Chebyshev fit of Numerical Recipes (erfcc). */
static inline float gelu_core(float x) {
  float z = fabsf(x) * INV_SQRT2;
  float t = 1.0f / fmaf(0.5f, z, 1.0f);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  float y = t * exp_core(fmaf(-z, z, p));
  float h = 0.5f * x * y;
  return x >= 0.0f ? x - h : h;
}

void el__expf_vec(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = exp_core(in[i]);
}

void el__gelu_vec(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = gelu_core(in[i]);
}

void el__bias_gelu(float *x, const float *b, int N, int C) {
  for (int r = 0; r < N; r++) {
    float *row = x + (size_t)r * C;
    if (b) {
#pragma omp simd
      for (int c = 0; c < C; c++) row[c] = gelu_core(row[c] + b[c]);
    } else {
#pragma omp simd
      for (int c = 0; c < C; c++) row[c] = gelu_core(row[c]);
    }
  }
}

void el__bias_layernorm(float *x, const float *b, const float *g, const float *beta, int N, int C,
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

size_t el__attention_scratch(int max_len) {
  return (size_t)max_len * (size_t)max_len + (size_t)max_len;
}

static void add_bias_rows(float *x, const float *b, int rows, int H) {
  for (int r = 0; r < rows; r++) {
    float *row = x + (size_t)r * H;
#pragma omp simd
    for (int c = 0; c < H; c++) row[c] += b[c];
  }
}

/* S holds scaled scores [L,L]; replaces each row by exp(row - max) and
 * stores 1/sum in inv (the normalisation is applied to ctx, which has dh
 * columns instead of L). */
static void softmax_unnormalised(float *S, float *inv, int L) {
  for (int i = 0; i < L; i++) {
    float *row = S + (size_t)i * L;
    float mx = row[0];
#pragma omp simd reduction(max : mx)
    for (int j = 0; j < L; j++) mx = row[j] > mx ? row[j] : mx;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < L; j++) {
      float e = exp_core(row[j] - mx);
      row[j] = e;
      sum += e;
    }
    inv[i] = 1.0f / sum;
  }
}

void el__attention(float *ctx, float *q, float *k, float *v, const float *bq, const float *bk,
                   const float *bv, const int *seq_len, int n_seqs, int H, int nh, float *scratch) {
  const int dh = H / nh;
  const float scale = 1.0f / sqrtf((float)dh);
  size_t t0 = 0;
  for (int s = 0; s < n_seqs; s++) {
    const int L = seq_len[s];
    float *S = scratch, *inv = scratch + (size_t)L * L;
    float *qs = q + t0 * H, *ks = k + t0 * H, *vs = v + t0 * H, *cs = ctx + t0 * H;
    add_bias_rows(qs, bq, L, H);
    add_bias_rows(ks, bk, L, H);
    add_bias_rows(vs, bv, L, H);
    for (int h = 0; h < nh; h++) {
      const size_t off = (size_t)h * dh;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, dh, scale, qs + off, H, ks + off,
                  H, 0.0f, S, L);
      softmax_unnormalised(S, inv, L);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, dh, L, 1.0f, S, L, vs + off, H,
                  0.0f, cs + off, H);
      for (int i = 0; i < L; i++) {
        float *row = cs + (size_t)i * H + off;
        const float w = inv[i];
#pragma omp simd
        for (int d = 0; d < dh; d++) row[d] *= w;
      }
    }
    t0 += (size_t)L;
  }
}
