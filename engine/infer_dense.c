/* Dense layers of the inference forward with their element-wise work fused
 * in (infer_kernels.h, el__dense_fused). Each task runs one single-threaded
 * product over a block of the output (on W packed at load, infer_gemm.h, or
 * OpenBLAS's SGEMM on a CPU without AVX2) and then its epilogue on that block
 * while it is still in cache, so the bias, GELU, residual and LayerNorm
 * passes are shared out by the op pool like the products instead of running
 * on one thread while the other waits. Blocks are cut only when another
 * thread can take one. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <string.h>
#include "infer_gemm.h"
#include "infer_kernels.h"
#include "op_pool.h"

#define MIN_ROWS 16 /* a block's rows at least: fewer re-pack W for too little work */
#define MIN_COLS 64 /* the same for a block of columns */

typedef struct dense_job {
  float *const *out;
  const float *in;
  const el__dense_w *d;
  const el__ln_w *ln;
  float eps;
  int N, Cin, Cout;
  int rows, nbr, cols, nbc; /* block shape and counts */
  el__epilogue epi;
  int ln_apart; /* RESIDUAL_LN by blocks of columns: LayerNorm in a pass of its own */
} dense_job;

static int min_int(int a, int b) { return a < b ? a : b; }

static void dense_block(void *p, int task, int worker) {
  (void)worker;
  const dense_job *j = p;
  const int per_mat = j->nbr * j->nbc, m = task / per_mat, t = task % per_mat;
  const int r0 = (t / j->nbc) * j->rows, c0 = (t % j->nbc) * j->cols;
  const int n = min_int(j->N - r0, j->rows), nc = min_int(j->Cout - c0, j->cols);
  const el__dense_w *d = &j->d[m];
  const int Cout = j->Cout, Cin = j->Cin;
  float *out = j->out[m] + (size_t)r0 * Cout + c0;
  const int from_bias = j->epi != EL__EPI_RESIDUAL_LN; /* else out holds the residual */
  if (from_bias && d->layout != EL__W_PACKED) /* start from the bias: beta = 1 adds to it */
    for (int r = 0; r < n; r++)
      memcpy(out + (size_t)r * Cout, d->b + c0, sizeof(float) * (size_t)nc);
  if (d->layout == EL__W_PACKED) /* the kernel starts from the bias itself */
    el__gemm_packed(el__gemm_isa(), n, nc, Cin, j->in + (size_t)r0 * Cin, (size_t)Cin, d->w, Cout,
                    c0, from_bias ? d->b + c0 : NULL, out, (size_t)Cout);
  else if (d->layout == EL__W_IN_OUT)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, nc, Cin, 1.0f,
                j->in + (size_t)r0 * Cin, Cin, d->w + c0, Cout, 1.0f, out, Cout);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, nc, Cin, 1.0f,
                j->in + (size_t)r0 * Cin, Cin, d->w + (size_t)c0 * Cin, Cin, 1.0f, out, Cout);
  if (j->epi == EL__EPI_BIAS_GELU)
    for (int r = 0; r < n; r++) {
      float *row = out + (size_t)r * Cout;
      el__gelu_vec(row, row, (size_t)nc);
    }
  if (j->epi == EL__EPI_RESIDUAL_LN && !j->ln_apart)
    el__bias_layernorm(out, d->b, j->ln->g, j->ln->b, n, Cout, j->eps);
}

static void ln_rows(void *p, size_t lo, size_t hi) {
  const dense_job *j = p;
  el__bias_layernorm(j->out[0] + lo * j->Cout, j->d->b, j->ln->g, j->ln->b, (int)(hi - lo), j->Cout,
                     j->eps);
}

/* Blocks of n items for `width` threads, at least `min` items each: the
 * block size (a multiple of `align`, a power of 2) and their count. */
static void cut(int n, int width, int min, int align, int *size, int *count) {
  int per = (n + width - 1) / width;
  per = per < min ? min : (per + align - 1) & ~(align - 1);
  *size = per;
  *count = (n + per - 1) / per;
}

/* Each block reads its slice of W and of the input (OpenBLAS also copies
 * both into its panels): blocks of rows all read the whole W, blocks of
 * columns all read the whole input. So columns when the output is wider
 * than it is tall (one sequence: 128 tokens against 256..1024 features),
 * rows otherwise (big batches). */
void el__dense_fused(int n_mats, float *const *out, const float *in, const el__dense_w *d,
                     const el__ln_w *ln, float eps, int N, int Cin, int Cout, el__epilogue epi) {
  if (N <= 0) return;
  dense_job j = {out, in, d, ln, eps, N, Cin, Cout, N, 1, Cout, 1, epi, 0};
  const int width = el__pool_avail();
  if (width > 1 && Cout > N && Cout >= 2 * MIN_COLS) {
    /* packed W: a block of columns starts at a panel */
    cut(Cout, width, MIN_COLS, d->layout == EL__W_PACKED ? EL_GEMM_NR : 8, &j.cols, &j.nbc);
    j.ln_apart = epi == EL__EPI_RESIDUAL_LN; /* LayerNorm needs whole rows */
  } else if (width > 1 && N >= 2 * MIN_ROWS) {
    cut(N, width, MIN_ROWS, 8, &j.rows, &j.nbr);
  }
  el__pool_run(n_mats * j.nbr * j.nbc, dense_block, &j);
  if (j.ln_apart) {
    int rows, nb;
    cut(N, width, 8, 8, &rows, &nb);
    el__pool_for((size_t)N, (size_t)rows, ln_rows, &j);
  }
}
