/* Dense (nn.Linear) forward and backward: out = in . W^T + b, W in HF layout
 * [out, in]. The fast path is OpenBLAS SGEMM; the naive loops are the
 * reference the tests compare it with. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <string.h>
#include "ops.h"

void el_dense_forward(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                      int Cout) {
  if (N <= 0) return;
  if (b) {
    for (int n = 0; n < N; n++) memcpy(out + (size_t)n * Cout, b, sizeof(float) * (size_t)Cout);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, Cout, Cin, 1.0f, in, Cin, w, Cin,
              b ? 1.0f : 0.0f, out, Cout);
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
  if (din)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, Cin, Cout, 1.0f, dout, Cout, w,
                Cin, 1.0f, din, Cin);
  if (dw)
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, Cout, Cin, N, 1.0f, dout, Cout, in, Cin,
                1.0f, dw, Cin);
  if (db) {
    /* Columns split across threads, rows summed in order: the same result for
     * any thread count. */
#pragma omp parallel for schedule(static) if ((long)N * Cout > 65536)
    for (int o0 = 0; o0 < Cout; o0 += 64) {
      const int o1 = o0 + 64 < Cout ? o0 + 64 : Cout;
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
