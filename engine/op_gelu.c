/* Exact (erf) GELU, as HF "gelu" and Google's modeling.gelu compute it. */
#include <math.h>
#include "ops.h"

#define EL_INV_SQRT2 0.70710678118654752440f

void el_gelu_forward(float *out, const float *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float x = in[i];
    out[i] = 0.5f * x * (1.0f + erff(x * EL_INV_SQRT2));
  }
}

void el_gelu_forward_naive(float *out, const float *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
  }
}
