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
