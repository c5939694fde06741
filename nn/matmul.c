/* The training ops' matrix product (matmul.h). Under --precision bf16 a
 * CPU with AVX512_BF16 does a pair of bf16 multiply-adds for the cost of one
 * fp32 FMA, so the products that are most of a training step take about
 * half the time (docs/TRAINING.md). Operands are rounded to bf16 as they are
 * converted; sums, outputs, gradients and the weights the optimizer updates
 * stay fp32 (mixed precision, as ELECTRA was trained on TPUs).
 *
 * The bf16 kernel (bf16_gemm.h) reads A as bf16 rows and B packed in panels:
 * each call converts both into scratch buffers of the calling thread, kept
 * between calls (op pool workers and model copies each have their own, freed
 * when the thread ends). */
#include "matmul.h"
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <pthread.h>
#include <stdlib.h>
#include "bf16_gemm.h"

enum { SCRATCH_ROWS, SCRATCH_PACKED, SCRATCH_N };

typedef struct scratch {
  uint16_t *buf[SCRATCH_N];
  size_t cap[SCRATCH_N];
} scratch;

static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static int g_bf16;

static void scratch_free(void *p) {
  scratch *s = p;
  for (int i = 0; i < SCRATCH_N; i++) free(s->buf[i]);
  free(s);
}

static void key_init(void) { (void)pthread_key_create(&g_key, scratch_free); }

/* The calling thread's buffer `which`, at least elems long; NULL when out of
 * memory. */
static uint16_t *scratch_get(int which, size_t elems) {
  pthread_once(&g_key_once, key_init);
  scratch *s = pthread_getspecific(g_key);
  if (!s) {
    if (!(s = calloc(1, sizeof *s))) return NULL;
    if (pthread_setspecific(g_key, s)) return free(s), NULL;
  }
  if (s->cap[which] < elems) {
    free(s->buf[which]);
    s->buf[which] = aligned_alloc(64, (elems * sizeof(uint16_t) + 63) / 64 * 64);
    s->cap[which] = s->buf[which] ? elems : 0;
  }
  return s->buf[which];
}

int el__matmul_set_bf16(int on) {
  g_bf16 = on && el__bgemm_available();
  return on && !g_bf16 ? -1 : 0;
}

int el__matmul_bf16(void) { return g_bf16; }

int el__matmul_in_bf16(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                       const float *B, int ldb, float beta, float *C, int ldc) {
  const int lda2 = (K + 1) / 2 * 2;
  uint16_t *rows = scratch_get(SCRATCH_ROWS, (size_t)M * lda2);
  uint16_t *packed = scratch_get(SCRATCH_PACKED, el__bgemm_packed_elems(N, K));
  if (!rows || !packed) return -1;
  /* op(A) = A^T: pair-major words, one run per pair of A's rows */
  const size_t rs = ta ? 2 : (size_t)lda2, ps = ta ? 2 * (size_t)M : 2;
  if (ta)
    el__bf16_pairs(rows, A, (size_t)lda, M, K);
  else
    el__bf16_rows(rows, (size_t)lda2, A, (size_t)lda, M, K);
  /* the kernel's "weights" [N, K] are op(B)^T: element (n, k) = op(B)[k][n] */
  if (tb)
    el__bgemm_pack_strided(packed, B, (size_t)ldb, 1, N, K, alpha);
  else
    el__bgemm_pack_strided(packed, B, 1, (size_t)ldb, N, K, alpha);
  if (beta != 0.0f && beta != 1.0f)
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) C[(size_t)m * ldc + n] *= beta;
  el__bgemm_strided(M, N, K, rows, rs, ps, packed, C, (size_t)ldc, beta != 0.0f);
  return 0;
}

void el__matmul(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc) {
  if (M <= 0 || N <= 0) return;
  if (g_bf16 && K > 0 &&
      !el__matmul_in_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
    return;
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
              K, alpha, A, lda, B, ldb, beta, C, ldc);
}
