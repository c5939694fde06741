/* Exact (erf) GELU, as HF "gelu" and Google's modeling.gelu compute it. */
#include <math.h>
#include "op_fastmath.h"
#include "ops.h"

#define EL_INV_SQRT2 0.70710678118654752440f

/* Phi(x) = erfc(-x / sqrt 2) / 2 with the vectorisable erfc of op_fastmath.h. */
void el_gelu_forward(float *out, const float *in, size_t n) {
#pragma omp parallel for simd schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; i++) {
    const float x = in[i];
    out[i] = 0.5f * x * el__erfcf(-x * EL_INV_SQRT2);
  }
}

void el_gelu_forward_naive(float *out, const float *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
  }
}

/* d/dx [x Phi(x)] = Phi(x) + x phi(x) */
#define EL_INV_SQRT_2PI 0.39894228040143267794f

void el_gelu_backward(float *din, const float *in, const float *dout, size_t n) {
#pragma omp parallel for simd schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; i++) {
    const float x = in[i];
    const float cdf = 0.5f * el__erfcf(-x * EL_INV_SQRT2);
    const float pdf = EL_INV_SQRT_2PI * el__expf(-0.5f * x * x);
    din[i] += dout[i] * (cdf + x * pdf);
  }
}

void el_gelu_backward_naive(float *din, const float *in, const float *dout, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    double cdf = 0.5 * (1.0 + erf(x / sqrt(2.0)));
    double pdf = exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
    din[i] += (float)(dout[i] * (cdf + x * pdf));
  }
}
