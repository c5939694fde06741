/* Small element-wise ops: dropout with a precomputed mask, residual add, sigmoid. */
#include <math.h>
#include "ops.h"

/* Element-wise loops split across the OpenMP team above this size. */
#define PAR_N 65536

void el_dropout_forward(float *out, const float *in, const float *mask, size_t n) {
#pragma omp parallel for schedule(static) if (n > PAR_N)
  for (size_t i = 0; i < n; i++) out[i] = in[i] * mask[i];
}

void el_dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
#pragma omp parallel for schedule(static) if (n > PAR_N)
  for (size_t i = 0; i < n; i++) din[i] += dout[i] * mask[i];
}

void el_add_inplace(float *y, const float *x, size_t n) {
#pragma omp parallel for schedule(static) if (n > PAR_N)
  for (size_t i = 0; i < n; i++) y[i] += x[i];
}

float el_sigmoidf(float x) {
  if (x >= 0) return 1.0f / (1.0f + expf(-x));
  float e = expf(x);
  return e / (1.0f + e);
}
