/* The CPU's arithmetic peak for the engine's three products, the yardstick of
 * bench_ort.sh's ratios (how close a kernel is to what the cores can issue):
 *
 *   peak [--threads 2] [--seconds 1]
 *
 * Each thread runs 12 independent chains of one instruction on registers
 * (no memory traffic): fp32 FMA (vfmadd, 2 FLOPs a lane), bf16 pair dot
 * products (vdpbf16ps, 2 multiply-adds a 32-bit lane) and u8 x s8 dot
 * products (vpdpbusd, 4 multiply-adds a lane), each on the widest registers
 * the CPU has: zmm with AVX-512, else ymm (fp32 only; no bf16 or VNNI line).
 * Prints one line per kind:
 *   peak KIND THREADS GOPS        (multiply-add = 2 operations)
 * Not part of `make bench`'s tables; RESULTS.md quotes it beside them. */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHAINS 12
#define STEP 1000000L /* iterations between clock reads */

typedef struct run {
  double seconds, ops;
  long (*body)(long iters, float *sink);
  float sink;
} run;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The timed part of every body: `iters` rounds of `step` on each of the
 * CHAINS accumulators a[i] (independent, so the core can issue them back to
 * back). Each body returns the operations of its rounds. */
#define RUN_CHAINS(a, step)                                       \
  for (long n = 0; n < iters; n++) {                              \
    _Pragma("GCC unroll 12") for (int i = 0; i < CHAINS; i++) a[i] = step; \
  }

__attribute__((target("avx512f"))) static long fma512(long iters, float *sink) {
  __m512 a[CHAINS];
  const __m512 b = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  for (int i = 0; i < CHAINS; i++) a[i] = _mm512_set1_ps((float)i);
  RUN_CHAINS(a, _mm512_fmadd_ps(a[i], b, c));
  for (int i = 0; i < CHAINS; i++) *sink += _mm512_reduce_add_ps(a[i]);
  return iters * CHAINS * 16 * 2;
}

__attribute__((target("avx2,fma"))) static long fma256(long iters, float *sink) {
  __m256 a[CHAINS];
  const __m256 b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  for (int i = 0; i < CHAINS; i++) a[i] = _mm256_set1_ps((float)i);
  RUN_CHAINS(a, _mm256_fmadd_ps(a[i], b, c));
  float out[8];
  for (int i = 0; i < CHAINS; i++) {
    _mm256_storeu_ps(out, a[i]);
    *sink += out[0];
  }
  return iters * CHAINS * 8 * 2;
}

__attribute__((target("avx512f,avx512bf16"))) static long bf16dot(long iters, float *sink) {
  __m512 a[CHAINS];
  const __m512bh b = (__m512bh)_mm512_set1_epi16(0x3f80); /* bf16 1.0 */
  for (int i = 0; i < CHAINS; i++) a[i] = _mm512_set1_ps((float)i);
  RUN_CHAINS(a, _mm512_dpbf16_ps(a[i], b, b));
  for (int i = 0; i < CHAINS; i++) *sink += _mm512_reduce_add_ps(a[i]);
  return iters * CHAINS * 32 * 2;
}

__attribute__((target("avx512f,avx512vnni"))) static long vnni(long iters, float *sink) {
  __m512i a[CHAINS];
  const __m512i b = _mm512_set1_epi8(3), c = _mm512_set1_epi8(5);
  for (int i = 0; i < CHAINS; i++) a[i] = _mm512_set1_epi32(i);
  RUN_CHAINS(a, _mm512_dpbusd_epi32(a[i], b, c));
  for (int i = 0; i < CHAINS; i++) *sink += (float)_mm512_reduce_add_epi32(a[i]);
  return iters * CHAINS * 64 * 2;
}

static void *thread_main(void *p) {
  run *r = p;
  const double t0 = now();
  double t = t0;
  while (t - t0 < r->seconds) {
    r->ops += (double)r->body(STEP, &r->sink);
    t = now();
  }
  r->seconds = t - t0;
  return NULL;
}

static void measure(const char *kind, long (*body)(long, float *), int threads, double seconds) {
  run runs[64];
  pthread_t tid[64];
  for (int i = 0; i < threads; i++) {
    memset(&runs[i], 0, sizeof runs[i]);
    runs[i].seconds = seconds, runs[i].body = body;
    pthread_create(&tid[i], NULL, thread_main, &runs[i]);
  }
  double gops = 0.0;
  for (int i = 0; i < threads; i++) {
    pthread_join(tid[i], NULL);
    gops += runs[i].ops / runs[i].seconds / 1e9;
  }
  printf("peak %s %d %.1f\n", kind, threads, gops);
}

int main(int argc, char **argv) {
  int threads = 2;
  double seconds = 1.0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else {
      fprintf(stderr, "peak: unknown option %s (--threads N, --seconds S)\n", argv[i]);
      return 2;
    }
  }
  if (threads < 1 || threads > 64 || !(seconds > 0)) {
    fprintf(stderr, "peak: --threads 1..64 and --seconds > 0\n");
    return 2;
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) measure("fp32_fma_zmm", fma512, threads, seconds);
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    measure("fp32_fma_ymm", fma256, threads, seconds);
  if (__builtin_cpu_supports("avx512bf16")) measure("bf16_dot_zmm", bf16dot, threads, seconds);
  if (__builtin_cpu_supports("avx512vnni")) measure("u8s8_dot_zmm", vnni, threads, seconds);
  return 0;
}
