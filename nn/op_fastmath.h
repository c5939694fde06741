/* Internal to the ops and the inference kernels (engine/infer_kernels.c):
 * branch-free float exp, log, erfc and GELU that GCC vectorises inside `omp
 * simd` loops (libm's scalar calls do not vectorise
 * without -ffast-math). Accuracy, measured against double libm in
 * tests/unit/test_engine_ops.c: exp and log within 3e-7 relative; erfc
 * (the Numerical Recipes erfcc formula, fractional error < 1.2e-7, evaluated
 * in float with the exp below) within 1e-6 relative for |x| <= 2 and 5e-6
 * out to |x| = 6, where erfc is 2e-17 and GELU's use of it is negligible. */
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

/* erfc(x), any x. */
static inline float el__erfcf(float x) {
  const float z = x < 0.0f ? -x : x;
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  const float r = t * el__expf(p - z * z);
  return x < 0.0f ? 2.0f - r : r;
}

/* Phi(x), the standard normal CDF: erfc(-x / sqrt 2) / 2. */
static inline float el__normal_cdff(float x) {
  return 0.5f * el__erfcf(-x * 0.70710678118654752440f);
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
