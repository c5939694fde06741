/* Internal to the ops and the inference kernels (engine/infer_kernels.c):
 * branch-free float exp, log, erf and GELU that GCC vectorises inside `omp
 * simd` loops (libm's scalar calls do not vectorise
 * without -ffast-math). Accuracy, measured against double libm in
 * tests/unit/test_engine_ops.c: exp and log within 3e-7 relative; erf within
 * 4e-7 absolute (el__erff says how). */
#ifndef EL_OP_FASTMATH_H
#define EL_OP_FASTMATH_H

#include <stdint.h>
#include <string.h>

static inline float el__f_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t el__bits_from_f(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* A portable build (make PORTABLE=1: no -march, so SSE2 only) compiles the
 * inference kernels' element-wise loops (engine/infer_kernels.c) three times,
 * for AVX-512 (x86-64-v4), AVX2 + FMA (x86-64-v3) and the baseline, and the
 * loader picks one for the CPU (GCC's target_clones, an ifunc): without them
 * a Docker image ran them at SSE2 speed (batch 32: 600 ms against 450). A
 * native build targets its own CPU and needs none. The training ops are left
 * single: their results then stay those of the SSE2 build. */
#if defined(EL_PORTABLE) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EL_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EL_SIMD_CLONES
#endif

/* e^x = 2^n e^r, n = round(x log2 e), |r| <= ln2/2, e^r by Taylor to r^7.
 * Inputs are clamped to [-87.3, 88.3] (results 1e-38 .. 2.2e38). */
static inline float el__expf(float x) {
  /* written as "keep x if inside" so GCC if-converts them (the form
   * "x < lo ? lo : x" left the loops unvectorised) */
  x = x > -87.3f ? x : -87.3f;
  x = x < 88.3f ? x : 88.3f;
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693145751953125f; /* ln2 split: n * hi is exact */
  r = r - n * 1.42860682030941723e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * el__f_from_bits((uint32_t)((int32_t)n + 127) << 23);
}

/* ln x for normal positive x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), found
 * by integer arithmetic on the bits (no select, so GCC vectorises it);
 * ln m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716, series to s^11. */
static inline float el__logf(float x) {
  const uint32_t ix = el__bits_from_f(x) - 0x3f3504f3u; /* 0x3f3504f3 = sqrt(1/2) */
  const int32_t e = (int32_t)ix >> 23;
  const float m = el__f_from_bits((ix & 0x007fffffu) + 0x3f3504f3u);
  const float s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
  float p = 1.0f / 11.0f;
  p = p * s2 + 1.0f / 9.0f;
  p = p * s2 + 1.0f / 7.0f;
  p = p * s2 + 1.0f / 5.0f;
  p = p * s2 + 1.0f / 3.0f;
  p = p * s2 + 1.0f;
  return 2.0f * s * p + (float)e * 0.69314718055994531f;
}

/* erf(x), any x: x P(x^2) / Q(x^2), P and Q of degree 5 in x^2 with positive
 * coefficients (Q >= 1: no pole), fitted to double erf on [0, 3.95] by
 * iteratively reweighted least squares (scripts/fit_erf.py prints them);
 * beyond 3.95 erf is 1 in float.
 * Measured against double libm (tests/unit/test_engine_ops.c): absolute
 * error < 4e-7 everywhere. Ten multiply-adds and a division, no exp: 3x the
 * speed of erfc by Numerical Recipes' formula and exp, which GELU used. */
#define EL__ERF_CLAMP 3.95f
#define EL__ERF_P5 2.011483266e-06f
#define EL__ERF_P4 2.875984859e-04f
#define EL__ERF_P3 3.917808831e-03f
#define EL__ERF_P2 5.320859809e-02f
#define EL__ERF_P1 1.940489915e-01f
#define EL__ERF_P0 1.128379006e+00f
#define EL__ERF_Q5 3.783687105e-05f
#define EL__ERF_Q4 1.198293652e-03f
#define EL__ERF_Q3 1.527172075e-02f
#define EL__ERF_Q2 1.155960440e-01f
#define EL__ERF_Q1 5.053029302e-01f
static inline float el__erff(float x) {
  x = x > -EL__ERF_CLAMP ? x : -EL__ERF_CLAMP;
  x = x < EL__ERF_CLAMP ? x : EL__ERF_CLAMP;
  const float x2 = x * x;
  float p = EL__ERF_P5;
  p = p * x2 + EL__ERF_P4;
  p = p * x2 + EL__ERF_P3;
  p = p * x2 + EL__ERF_P2;
  p = p * x2 + EL__ERF_P1;
  p = p * x2 + EL__ERF_P0;
  float q = EL__ERF_Q5;
  q = q * x2 + EL__ERF_Q4;
  q = q * x2 + EL__ERF_Q3;
  q = q * x2 + EL__ERF_Q2;
  q = q * x2 + EL__ERF_Q1;
  q = q * x2 + 1.0f;
  return x * p / q;
}

/* Phi(x), the standard normal CDF: (1 + erf(x / sqrt 2)) / 2. Absolute
 * error < 2e-7; relative error grows in the far left tail, where Phi and
 * GELU are below 1e-4 (GELU's absolute error there stays < 1e-6). */
static inline float el__normal_cdff(float x) {
  return 0.5f + 0.5f * el__erff(x * 0.70710678118654752440f);
}

/* Exact (erf) GELU, x Phi(x). */
static inline float el__geluf(float x) { return x * el__normal_cdff(x); }

/* Counter-based random bits: the splitmix64 finalizer of key + (i+1) * golden
 * gamma, i.e. the i-th output of a splitmix64 stream seeded with key. Each
 * element depends only on (key, i), so loops over i vectorise and split across
 * threads without changing any value. */
static inline uint64_t el__mix64(uint64_t key, uint64_t i) {
  uint64_t z = key + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

#endif
