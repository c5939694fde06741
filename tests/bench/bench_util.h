/* Pieces the benchmark programs share (bench_forward.c, bench_train.c): the
 * clock, OpenBLAS's SGEMM rate, and the encoder's matrix-product FLOPs.
 * Header-only because each C file in tests/bench/ is a program of its own. */
#ifndef EL_BENCH_UTIL_H
#define EL_BENCH_UTIL_H

#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <stdlib.h>
#include <time.h>
#include "electra/model.h"

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Best GFLOP/s of OpenBLAS SGEMM on M x N x K (A [M,K] times B^T) at the
 * threads OpenBLAS is set to: one untimed call, then calls for `seconds`.
 * 0 when out of memory. */
static inline double bench_sgemm_gflops(int M, int N, int K, double seconds) {
  float *a = malloc(sizeof(float) * (size_t)M * K), *b = malloc(sizeof(float) * (size_t)N * K);
  float *c = malloc(sizeof(float) * (size_t)M * N);
  double best = 1e30;
  if (a && b && c) {
    for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < (size_t)N * K; i++) b[i] = (float)(i % 5) * 0.1f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, a, K, b, K, 0, c, N);
    double start = bench_now();
    do {
      double t0 = bench_now();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, a, K, b, K, 0, c, N);
      double t = bench_now() - t0;
      best = t < best ? t : best;
    } while (bench_now() - start < seconds);
  }
  free(a), free(b), free(c);
  return best < 1e30 ? 2.0 * M * N * K / best / 1e9 : 0.0;
}

/* Forward matrix-product FLOPs (a multiply-add = 2) of c's encoder over n
 * sequences of len[] real tokens: the E->H projection, Q/K/V/output and FFN
 * per token, attention scores and context per sequence. No head. */
static inline double bench_encoder_flops(const el_config *c, const int *len, int n) {
  const double H = c->hidden_size, E = c->embedding_size, F = c->intermediate_size;
  double T = 0, att = 0;
  for (int s = 0; s < n; s++) T += len[s], att += 4.0 * H * len[s] * len[s];
  double per_tok = c->num_layers * (8.0 * H * H + 4.0 * H * F);
  if (E != H) per_tok += 2.0 * E * H;
  return T * per_tok + c->num_layers * att;
}

#endif
