/* Dense (nn.Linear) forward and backward: out = in . W^T + b, W in HF layout
 * [out, in]. The fast path is OpenBLAS SGEMM; the naive loops are the
 * reference the tests compare it with.
 *
 * Threading: large products are cut into FIXED blocks (of rows of the output,
 * or of its columns when it is much wider than tall) that an OpenMP team
 * shares out; each block is one single-threaded SGEMM. The blocks depend only
 * on the shapes, so results are identical for any thread count. Run with
 * OpenBLAS at 1 thread (el_tmodel does): two thread pools on the same cores
 * spin against each other. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <string.h>
#include "ops.h"

#define ROW_BLOCK 512  /* rows of out / din per block (each block re-packs W) */
#define COL_BLOCK 512  /* columns of out per block (wide outputs: the vocabulary) */
#define DW_BLOCK 128   /* rows of dW per block (each block re-packs the input) */
#define PAR_MACS (1L << 21) /* below this many multiply-adds one call is cheaper */

static int blocks(int n, int b) { return (n + b - 1) / b; }

void el_dense_forward(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                      int Cout) {
  if (N <= 0) return;
  const long macs = (long)N * Cin * Cout;
  const int by_cols = Cout >= 8 * N; /* generator logits: 608 x 30522 */
  const int nb = macs < PAR_MACS ? 1 : by_cols ? blocks(Cout, COL_BLOCK) : blocks(N, ROW_BLOCK);
#pragma omp parallel for schedule(dynamic, 1) if (nb > 1)
  for (int k = 0; k < nb; k++) {
    int r0 = 0, r1 = N, c0 = 0, c1 = Cout;
    if (nb > 1 && by_cols) {
      c0 = k * COL_BLOCK;
      c1 = c0 + COL_BLOCK < Cout ? c0 + COL_BLOCK : Cout;
    } else if (nb > 1) {
      r0 = k * ROW_BLOCK;
      r1 = r0 + ROW_BLOCK < N ? r0 + ROW_BLOCK : N;
    }
    float *o = out + (size_t)r0 * Cout + c0;
    if (b)
      for (int n = r0; n < r1; n++)
        memcpy(out + (size_t)n * Cout + c0, b + c0, sizeof(float) * (size_t)(c1 - c0));
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r1 - r0, c1 - c0, Cin, 1.0f,
                in + (size_t)r0 * Cin, Cin, w + (size_t)c0 * Cin, Cin, b ? 1.0f : 0.0f, o, Cout);
  }
}

void el_dense_forward_naive(float *out, const float *in, const float *w, const float *b, int N,
                            int Cin, int Cout) {
  for (int n = 0; n < N; n++)
    for (int o = 0; o < Cout; o++) {
      double acc = b ? b[o] : 0.0;
      for (int i = 0; i < Cin; i++) acc += (double)in[(size_t)n * Cin + i] * w[(size_t)o * Cin + i];
      out[(size_t)n * Cout + o] = (float)acc;
    }
}

void el_dense_backward(float *din, float *dw, float *db, const float *dout, const float *in,
                       const float *w, int N, int Cin, int Cout) {
  if (N <= 0) return;
  const int par = (long)N * Cin * Cout >= PAR_MACS;
  const int nb_in = din && par ? blocks(N, ROW_BLOCK) : (din ? 1 : 0);
  const int nb_w = dw && par ? blocks(Cout, DW_BLOCK) : (dw ? 1 : 0);
  const int nb_b = db ? blocks(Cout, 64) : 0;
  /* one team for the three products: din row blocks, dW row blocks, db column blocks */
#pragma omp parallel for schedule(dynamic, 1) if (par && nb_in + nb_w > 1)
  for (int k = 0; k < nb_in + nb_w + nb_b; k++) {
    if (k < nb_in) {
      const int r0 = nb_in > 1 ? k * ROW_BLOCK : 0;
      const int r1 = nb_in > 1 && r0 + ROW_BLOCK < N ? r0 + ROW_BLOCK : N;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r1 - r0, Cin, Cout, 1.0f,
                  dout + (size_t)r0 * Cout, Cout, w, Cin, 1.0f, din + (size_t)r0 * Cin, Cin);
    } else if (k < nb_in + nb_w) {
      const int j = k - nb_in;
      const int o0 = nb_w > 1 ? j * DW_BLOCK : 0;
      const int o1 = nb_w > 1 && o0 + DW_BLOCK < Cout ? o0 + DW_BLOCK : Cout;
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, o1 - o0, Cin, N, 1.0f, dout + o0, Cout,
                  in, Cin, 1.0f, dw + (size_t)o0 * Cin, Cin);
    } else {
      /* bias: a column block summed over rows in order */
      const int o0 = (k - nb_in - nb_w) * 64, o1 = o0 + 64 < Cout ? o0 + 64 : Cout;
      float acc[64] = {0};
      for (int n = 0; n < N; n++) {
        const float *d = dout + (size_t)n * Cout;
        for (int o = o0; o < o1; o++) acc[o - o0] += d[o];
      }
      for (int o = o0; o < o1; o++) db[o] += acc[o - o0];
    }
  }
}

void el_dense_backward_naive(float *din, float *dw, float *db, const float *dout,
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
