/* Dense (nn.Linear) forward and backward: out = in . W^T + b, W in HF layout
 * [out, in]. The fast path is el__matmul (OpenBLAS SGEMM, or bf16 under
 * --precision bf16: matmul.h); the naive loops are the reference the tests
 * compare it with.
 *
 * Threading: large products are cut into FIXED blocks (of rows of the output,
 * or of its columns when it is much wider than tall) shared out by the op
 * pool (op_pool.h); each block is one single-threaded product. The blocks depend
 * only on the shapes, so results are identical for any thread count. Run with
 * OpenBLAS at 1 thread (el__tmodel does): two thread pools on the same cores
 * spin against each other. */
#include <string.h>
#include "op_pool.h"
#include "matmul.h"
#include "ops.h"

#define ROW_BLOCK 1024 /* rows of out / din per block (each block re-packs W) */
#define COL_BLOCK 512  /* columns of out per block (wide outputs: the vocabulary) */
#define DW_BLOCK 256   /* rows of dW per block (each block re-packs the input) */
#define PAR_MACS (1L << 21) /* below this many multiply-adds one call is cheaper */

typedef struct dense_job {
  float *out, *din, *dw, *db;
  const float *in, *w, *b, *dout;
  int N, Cin, Cout, by_cols, nb, nb_in, nb_w;
  int dw_first; /* backward: the dW blocks before the din blocks */
} dense_job;

static void forward_block(void *p, int k, int worker) {
  (void)worker;
  const dense_job *j = p;
  const int N = j->N, Cin = j->Cin, Cout = j->Cout;
  int r0 = 0, r1 = N, c0 = 0, c1 = Cout;
  if (j->nb > 1 && j->by_cols) {
    c0 = k * COL_BLOCK;
    c1 = c0 + COL_BLOCK < Cout ? c0 + COL_BLOCK : Cout;
  } else if (j->nb > 1) {
    r0 = k * ROW_BLOCK;
    r1 = r0 + ROW_BLOCK < N ? r0 + ROW_BLOCK : N;
  }
  if (j->b)
    for (int n = r0; n < r1; n++)
      memcpy(j->out + (size_t)n * Cout + c0, j->b + c0, sizeof(float) * (size_t)(c1 - c0));
  el__matmul(0, 1, r1 - r0, c1 - c0, Cin, 1.0f,
              j->in + (size_t)r0 * Cin, Cin, j->w + (size_t)c0 * Cin, Cin, j->b ? 1.0f : 0.0f,
              j->out + (size_t)r0 * Cout + c0, Cout);
}

void el__dense_forward(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                      int Cout) {
  if (N <= 0) return;
  dense_job j = {.out = out, .in = in, .w = w, .b = b, .N = N, .Cin = Cin, .Cout = Cout};
  j.by_cols = Cout >= 8 * N; /* generator logits: 608 x 30522 */
  j.nb = (long)N * Cin * Cout < PAR_MACS ? 1
         : j.by_cols                     ? el__blocks(Cout, COL_BLOCK)
                                         : el__blocks(N, ROW_BLOCK);
  el__pool_run(j.nb, forward_block, &j);
}

void el__dense_forward_naive(float *out, const float *in, const float *w, const float *b, int N,
                            int Cin, int Cout) {
  for (int n = 0; n < N; n++)
    for (int o = 0; o < Cout; o++) {
      double acc = b ? b[o] : 0.0;
      for (int i = 0; i < Cin; i++) acc += (double)in[(size_t)n * Cin + i] * w[(size_t)o * Cin + i];
      out[(size_t)n * Cout + o] = (float)acc;
    }
}

/* Backward tasks: blocks of dW rows and blocks of din rows, the kind with the
 * larger blocks first, then db column blocks. The pool hands tasks out in
 * index order, so a block that is large beside the rest must come first:
 * with Cout = 256 dW is one block as large as all the din blocks together;
 * for the generator's vocabulary-wide head (608 rows) din is one block as
 * large as all 120 dW blocks. Claimed last, either leaves the other thread
 * idle for all of it. */
static void backward_dw(const dense_job *j, int i) {
  const int o0 = j->nb_w > 1 ? i * DW_BLOCK : 0;
  const int o1 = j->nb_w > 1 && o0 + DW_BLOCK < j->Cout ? o0 + DW_BLOCK : j->Cout;
  el__matmul(1, 0, o1 - o0, j->Cin, j->N, 1.0f, j->dout + o0,
              j->Cout, j->in, j->Cin, 1.0f, j->dw + (size_t)o0 * j->Cin, j->Cin);
}

static void backward_din(const dense_job *j, int i) {
  const int r0 = j->nb_in > 1 ? i * ROW_BLOCK : 0;
  const int r1 = j->nb_in > 1 && r0 + ROW_BLOCK < j->N ? r0 + ROW_BLOCK : j->N;
  el__matmul(0, 0, r1 - r0, j->Cin, j->Cout, 1.0f,
              j->dout + (size_t)r0 * j->Cout, j->Cout, j->w, j->Cin, 1.0f,
              j->din + (size_t)r0 * j->Cin, j->Cin);
}

/* bias: a column block summed over rows in order */
static void backward_db(const dense_job *j, int i) {
  const int o0 = i * 64, o1 = o0 + 64 < j->Cout ? o0 + 64 : j->Cout;
  float acc[64] = {0};
  for (int n = 0; n < j->N; n++) {
    const float *d = j->dout + (size_t)n * j->Cout;
    for (int o = o0; o < o1; o++) acc[o - o0] += d[o];
  }
  for (int o = o0; o < o1; o++) j->db[o] += acc[o - o0];
}

static void backward_block(void *p, int k, int worker) {
  (void)worker;
  const dense_job *j = p;
  const int first = j->dw_first ? j->nb_w : j->nb_in;
  if (k < first)
    j->dw_first ? backward_dw(j, k) : backward_din(j, k);
  else if (k < j->nb_w + j->nb_in)
    j->dw_first ? backward_din(j, k - first) : backward_dw(j, k - first);
  else
    backward_db(j, k - j->nb_w - j->nb_in);
}

void el__dense_backward(float *din, float *dw, float *db, const float *dout, const float *in,
                       const float *w, int N, int Cin, int Cout) {
  if (N <= 0) return;
  const int par = (long)N * Cin * Cout >= PAR_MACS;
  dense_job j = {.din = din, .dw = dw, .db = db, .dout = dout, .in = in, .w = w, .N = N,
                 .Cin = Cin, .Cout = Cout};
  j.nb_in = din ? (par ? el__blocks(N, ROW_BLOCK) : 1) : 0;
  j.nb_w = dw ? (par ? el__blocks(Cout, DW_BLOCK) : 1) : 0;
  const int nb_b = db ? el__blocks(Cout, 64) : 0;
  /* multiply-adds of one block of each kind */
  const long in_rows = j.nb_in > 1 ? ROW_BLOCK : N, w_rows = j.nb_w > 1 ? DW_BLOCK : Cout;
  j.dw_first = w_rows * N >= in_rows * Cout;
  el__pool_run(j.nb_w + j.nb_in + nb_b, backward_block, &j);
}

void el__dense_backward_naive(float *din, float *dw, float *db, const float *dout,
                             const float *in, const float *w, int N, int Cin, int Cout) {
  if (din)
    for (int n = 0; n < N; n++)
      for (int i = 0; i < Cin; i++) {
        double acc = 0.0;
        for (int o = 0; o < Cout; o++)
          acc += (double)dout[(size_t)n * Cout + o] * w[(size_t)o * Cin + i];
        din[(size_t)n * Cin + i] += (float)acc;
      }
  if (dw)
    for (int o = 0; o < Cout; o++)
      for (int i = 0; i < Cin; i++) {
        double acc = 0.0;
        for (int n = 0; n < N; n++)
          acc += (double)dout[(size_t)n * Cout + o] * in[(size_t)n * Cin + i];
        dw[(size_t)o * Cin + i] += (float)acc;
      }
  if (db)
    for (int o = 0; o < Cout; o++) {
      double acc = 0.0;
      for (int n = 0; n < N; n++) acc += dout[(size_t)n * Cout + o];
      db[o] += (float)acc;
    }
}
