/* The int8 product on packed weights (engine/quant_gemm.c) is exact: for
 * each kernel this CPU runs (AVX-512 VNNI and/or AVX2; one it lacks is
 * reported as skipped, never run) and for oneDNN's (where the build has
 * it), acc = a x Wq^T equals a naive integer product bit for bit on every
 * shape of M {1,2,3,7,16,33,129} x N {1,15,16,17,33,64,100,768} x K
 * {1,3,4,5,64,130,768,3072,4100}: partial panels and tiles, K not a multiple of
 * 4 (the activations get a buffer of exactly M x K bytes, so a sanitizer
 * build sees any read past a row's end), K over one block
 * of k (1,024 on AVX2, 4,096 on VNNI), codes at the extremes (a = 255 against rows of +63 and of -63:
 * the AVX2 int16 pair sums must not saturate). Also: nothing past acc
 * [M,N] is written and what acc held before does not leak in; the packed
 * layout and its zero padding; a layer on the engine's kernel counts only
 * its packed copy; ELECTRA_QGEMM / ELECTRA_GEMM choose the kernel. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "electra/model.h"
#include "quant.h"
#include "quant_gemm.h"
#include "../test.h"

static const int Ms[] = {1, 2, 3, 7, 16, 33, 129};
static const int Ns[] = {1, 15, 16, 17, 33, 64, 100, 768};
static const int Ks[] = {1, 3, 4, 5, 64, 130, 768, 3072, 4100};
#define NM (int)(sizeof Ms / sizeof *Ms)
#define MAXM 129
#define GUARD 16
#define SENTINEL 0x7eadbeef

static unsigned g_s = 2024u;
static unsigned rnd(void) { return (g_s = g_s * 1103515245u + 12345u) >> 8; }

/* Weights whose codes are exactly these integers: every row holds +-63, so
 * its scale is 1. Row 0 all +63, row 1 all -63, the rest random. */
static void make_weights(float *w, int N, int K) {
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) {
      const int v = n == 0 ? 63 : n == 1 ? -63 : k == n % K ? (n & 1 ? 63 : -63)
                                                            : (int)(rnd() % 127) - 63;
      w[(size_t)n * K + k] = (float)v;
    }
}

/* Row 0 all 255, row 1 alternately 0 and 255, the rest random with a third
 * at 255. */
static void make_acts(uint8_t *a, int M, int K) {
  for (int m = 0; m < M; m++)
    for (int k = 0; k < K; k++)
      a[(size_t)m * K + k] = m == 0 ? 255 : m == 1 ? (k & 1) * 255 : rnd() % 3 == 0 ? 255
                                                                                    : rnd() & 255;
}

typedef struct kernel {
  const char *name;
  el__qgemm_isa_t isa; /* EL__QGEMM_NONE: oneDNN's, through el__qdense */
  long shapes, wrong, spill, deq_wrong, deq_spill, cols_wrong;
} kernel;

/* acc [M,N] by kernel k into a buffer holding garbage, with guards after it;
 * counts the elements unequal to ref and the guards overwritten. */
static void run_one(kernel *kn, const int8_t *packed, const el__qdense *d, el__qws *ws,
                    const uint8_t *a_all, const int64_t *ref, int M, int N, int K) {
  uint8_t *a = malloc((size_t)M * K); /* exactly M x K: a read past it is a bug */
  int32_t *acc = malloc(sizeof(int32_t) * ((size_t)M * N + GUARD));
  memcpy(a, a_all, (size_t)M * K);
  for (size_t i = 0; i < (size_t)M * N; i++) acc[i] = (int32_t)rnd();
  for (int g = 0; g < GUARD; g++) acc[(size_t)M * N + g] = SENTINEL;
  if (kn->isa != EL__QGEMM_NONE)
    el__qgemm(kn->isa, M, N, K, a, packed, acc, NULL);
  else
    el__qdense_run(d, ws, 0, a, acc, M, NULL);
  for (size_t i = 0; i < (size_t)M * N; i++) kn->wrong += acc[i] != ref[i];
  for (int g = 0; g < GUARD; g++) kn->spill += acc[(size_t)M * N + g] != SENTINEL;
  kn->shapes++;
  free(a), free(acc);
}

static float rnd_float(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffff) / 65535.0f; }

/* The same product dequantized (el__qdeq: row scales and zero points,
 * column scales and sums, a bias or none, = or +=): the floats equal
 * el__qdeq_apart's on the exact product bit for bit, nothing written past
 * out [M,N]. */
static void run_deq(kernel *kn, const int8_t *packed, const el__qdense *d, el__qws *ws,
                    const uint8_t *a_all, const int64_t *ref, const float *sw, const int32_t *cs,
                    int M, int N, int K) {
  const size_t n = (size_t)M * N;
  uint8_t *a = malloc((size_t)M * K);
  int32_t *acc = malloc(sizeof(int32_t) * n), *exact = malloc(sizeof(int32_t) * n);
  float *out = malloc(sizeof(float) * (n + GUARD)), *want = malloc(sizeof(float) * n);
  float *sa = malloc(sizeof(float) * M), *bias = malloc(sizeof(float) * N);
  int32_t *za = malloc(sizeof(int32_t) * M);
  memcpy(a, a_all, (size_t)M * K);
  for (int m = 0; m < M; m++) sa[m] = rnd_float(1e-3f, 2e-2f), za[m] = (int32_t)(rnd() & 255);
  for (int c = 0; c < N; c++) bias[c] = rnd_float(-1.0f, 1.0f);
  for (size_t i = 0; i < n; i++) out[i] = want[i] = rnd_float(-4.0f, 4.0f), exact[i] = (int32_t)ref[i];
  for (int g = 0; g < GUARD; g++) out[n + g] = -1234.5f;
  const int accumulate = (M + N) & 1;
  const float *b = (M + K) & 1 ? bias : NULL;
  const int gelu = (M + N + K) % 3 == 0;
  const el__qdeq dw = {want, sa, sw, b, za, cs, accumulate, gelu},
                 dq = {out, sa, sw, b, za, cs, accumulate, gelu};
  float *cols = malloc(sizeof(float) * n); /* the same by column ranges */
  memcpy(cols, out, sizeof(float) * n);
  el__qdeq_apart(&dw, exact, M, N, 0, N);
  if (kn->isa != EL__QGEMM_NONE)
    el__qgemm(kn->isa, M, N, K, a, packed, acc, &dq);
  else
    el__qdense_run(d, ws, 0, a, acc, M, &dq);
  for (size_t i = 0; i < n; i++) kn->deq_wrong += memcmp(&out[i], &want[i], sizeof(float)) != 0;
  for (int g = 0; g < GUARD; g++) kn->deq_spill += out[n + g] != -1234.5f;
  if (kn->isa != EL__QGEMM_NONE) { /* the second range first: each writes only its own */
    const int cut = N / 2 / EL_QGEMM_NR * EL_QGEMM_NR;
    const el__qdeq dc = {cols, sa, sw, b, za, cs, accumulate, gelu};
    el__qgemm_cols(kn->isa, M, N, K, a, packed, acc, &dc, cut, N);
    el__qgemm_cols(kn->isa, M, N, K, a, packed, acc, &dc, 0, cut);
    for (size_t i = 0; i < n; i++) kn->cols_wrong += memcmp(&cols[i], &want[i], sizeof(float)) != 0;
  }
  free(a), free(acc), free(exact), free(out), free(want), free(sa), free(bias), free(za), free(cols);
}

/* Every M for one N x K, each kernel against the naive int64 product. */
static void one_shape(kernel *ks, int nk, int N, int K) {
  float *w = malloc(sizeof(float) * (size_t)N * K);
  int8_t *q = malloc((size_t)N * K);
  float *sw = malloc(sizeof(float) * N);
  int32_t *cs = malloc(sizeof(int32_t) * N);
  int8_t *packed = malloc(el__qgemm_packed_bytes(N, K));
  uint8_t *a = malloc((size_t)MAXM * K);
  int64_t *ref = malloc(sizeof(int64_t) * (size_t)MAXM * N);
  make_weights(w, N, K);
  el__quant_weights(q, sw, cs, w, N, K, EL_QUANT_WMAX);
  el__qgemm_pack(packed, q, N, K);
  make_acts(a, MAXM, K);
  for (int m = 0; m < MAXM; m++)
    for (int n = 0; n < N; n++) {
      int64_t s = 0;
      for (int k = 0; k < K; k++) s += (int64_t)a[(size_t)m * K + k] * q[(size_t)n * K + k];
      ref[(size_t)m * N + n] = s;
    }
  for (int i = 0; i < nk; i++) {
    el__qdense *d = NULL;
    el__qws *ws = NULL;
    el_error err = {0};
    if (ks[i].isa == EL__QGEMM_NONE &&
        (el__qdense_new_isa(w, N, K, EL__QGEMM_NONE, &d, &err) ||
         el__qws_alloc(&ws, MAXM, 1, el__qdense_scratch(d), &err))) {
      CHECK(0, "oneDNN layer %d x %d: %s", N, K, err.msg);
      el__qdense_free(d);
      continue;
    }
    for (int t = 0; t < NM; t++) {
      run_one(&ks[i], packed, d, ws, a, ref, Ms[t], N, K);
      run_deq(&ks[i], packed, d, ws, a, ref, sw, cs, Ms[t], N, K);
    }
    el__qws_free(ws);
    el__qdense_free(d);
  }
  free(w), free(q), free(sw), free(cs), free(packed), free(a), free(ref);
}

static void test_products(void) {
  const el__qgemm_isa_t best = el__qgemm_isa();
  kernel ks[3];
  int nk = 0;
  if (best >= EL__QGEMM_VNNI)
    ks[nk++] = (kernel){.name = "AVX-512 VNNI kernel", .isa = EL__QGEMM_VNNI};
  else
    SKIP("AVX-512 VNNI kernel: this CPU has no AVX-512 VNNI (or ELECTRA_QGEMM/ELECTRA_GEMM cap it)");
  if (best >= EL__QGEMM_AVX2)
    ks[nk++] = (kernel){.name = "AVX2 kernel", .isa = EL__QGEMM_AVX2};
  else
    SKIP("AVX2 kernel: this CPU has no AVX2 (or ELECTRA_QGEMM=onednn / ELECTRA_GEMM=openblas)");
  if (el__quant_available())
    ks[nk++] = (kernel){.name = "oneDNN", .isa = EL__QGEMM_NONE};
  else
    SKIP("oneDNN product: this build has no oneDNN (make DNNL=0 or libdnnl-dev absent)");
  for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
    for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) one_shape(ks, nk, Ns[b], Ks[c]);
  for (int i = 0; i < nk; i++) {
    const long all = (long)NM * (long)(sizeof Ns / sizeof *Ns) * (long)(sizeof Ks / sizeof *Ks);
    CHECK(ks[i].shapes == all && ks[i].wrong == 0,
          "%s: %ld shapes (M 1..129, N 1..768, K 1..4100, codes 255 x +-63) equal the naive "
          "integer product bit for bit (%ld elements wrong)", ks[i].name, ks[i].shapes,
          ks[i].wrong);
    CHECK(ks[i].spill == 0, "%s: nothing written past acc [M,N] (%ld guards overwritten)",
          ks[i].name, ks[i].spill);
    CHECK(ks[i].deq_wrong == 0 && ks[i].deq_spill == 0,
          "%s: dequantized in the product (row and column scales, zero points, bias or none, = or "
          "+=) equals el__qdeq_apart on the exact product bit for bit (%ld wrong, %ld guards "
          "overwritten)", ks[i].name, ks[i].deq_wrong, ks[i].deq_spill);
    if (ks[i].isa != EL__QGEMM_NONE)
      CHECK(ks[i].cols_wrong == 0,
            "%s: the same in two column ranges (el__qgemm_cols, cut at a panel near N / 2, the "
            "second range first) equals it bit for bit (%ld wrong)", ks[i].name, ks[i].cols_wrong);
  }
}

/* The layout of quant_gemm.h, padding included. */
static void test_pack(void) {
  enum { N = 37, K = 5, Kp = 8 };
  int8_t q[N * K], P[64 * Kp + 1];
  for (int i = 0; i < N * K; i++) q[i] = (int8_t)(i % 127 - 63);
  P[64 * Kp] = 99; /* a guard after the packed bytes */
  CHECK(el__qgemm_packed_bytes(N, K) == 64 * Kp, "packed size: N 37 -> 64, K 5 -> 8 (%zu bytes)",
        el__qgemm_packed_bytes(N, K));
  el__qgemm_pack(P, q, N, K);
  int ok = P[64 * Kp] == 99;
  for (int c = 0; c < 64; c++)
    for (int k = 0; k < Kp; k++) {
      const int8_t want = c < N && k < K ? q[c * K + k] : 0;
      ok = ok && P[(c / 32) * 32 * Kp + (k / 4) * 128 + (c % 32) * 4 + k % 4] == want;
    }
  CHECK(ok, "pack: %d x %d into two 32-column panels of 4-k groups, zero codes in the padding", N,
        K);
}

/* A layer on the engine's kernel holds its packed codes, scales and sums,
 * and nothing for oneDNN. */
static void test_bytes(void) {
  const el__qgemm_isa_t best = el__qgemm_isa();
  if (best == EL__QGEMM_NONE || !el__quant_available()) {
    SKIP("layer memory: no engine kernel on this CPU or no oneDNN in this build");
    return;
  }
  enum { N = 100, K = 130 };
  float *w = malloc(sizeof(float) * N * K);
  make_weights(w, N, K);
  el__qdense *d = NULL;
  el_error err = {0};
  int rc = el__qdense_new(w, N, K, &d, &err);
  const size_t want = el__qgemm_packed_bytes(N, K) + (sizeof(float) + sizeof(int32_t)) * N;
  CHECK(rc == EL_OK && el__qdense_bytes(d) == want && el__qdense_scratch(d) == 0,
        "a %d x %d layer on the engine's kernel holds %zu bytes (packed codes, scales, sums; "
        "%zu) and needs no scratchpad", N, K, want, el__qdense_bytes(d));
  el__qdense_free(d);
  free(w);
}

/* The kernel el__qgemm_isa picks in a child with these variables set (the
 * choice is read once per process; the parent has not read it yet). */
static int isa_with(const char *var, const char *value) {
  pid_t p = fork();
  if (p == 0) {
    unsetenv("ELECTRA_QGEMM"), unsetenv("ELECTRA_GEMM");
    if (var) setenv(var, value, 1);
    _exit((int)el__qgemm_isa());
  }
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_switch(void) {
  const int best = isa_with(NULL, NULL);
  const int capped = best > EL__QGEMM_AVX2 ? EL__QGEMM_AVX2 : best;
  CHECK(isa_with("ELECTRA_QGEMM", "onednn") == EL__QGEMM_NONE &&
            isa_with("ELECTRA_GEMM", "openblas") == EL__QGEMM_NONE,
        "ELECTRA_QGEMM=onednn and ELECTRA_GEMM=openblas keep oneDNN's kernels");
  CHECK(isa_with("ELECTRA_QGEMM", "avx2") == capped && isa_with("ELECTRA_GEMM", "avx2") == capped,
        "ELECTRA_QGEMM=avx2 and ELECTRA_GEMM=avx2 cap the choice at AVX2 (%d; best %d)", capped,
        best);
}

int main(void) {
  test_switch(); /* first: before this process reads the choice */
  test_pack();
  test_bytes();
  test_products();
  return el_test_done();
}
