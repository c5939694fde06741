/* LayerNorm over the last dimension (eps from the config, 1e-12 for ELECTRA). */
#include <math.h>
#include "ops.h"

void el_layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *g,
                          const float *b, int N, int C, float eps) {
  for (int n = 0; n < N; n++) {
    const float *x = in + (size_t)n * C;
    float *y = out + (size_t)n * C;
    float m = 0.0f;
    for (int c = 0; c < C; c++) m += x[c];
    m /= (float)C;
    float v = 0.0f;
    for (int c = 0; c < C; c++) {
      float d = x[c] - m;
      v += d * d;
    }
    v /= (float)C;
    float s = 1.0f / sqrtf(v + eps);
    for (int c = 0; c < C; c++) y[c] = (x[c] - m) * s * g[c] + b[c];
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

void el_layernorm_forward_naive(float *out, float *mean, float *rstd, const float *in,
                                const float *g, const float *b, int N, int C, float eps) {
  for (int n = 0; n < N; n++) {
    const float *x = in + (size_t)n * C;
    double m = 0.0, v = 0.0;
    for (int c = 0; c < C; c++) m += x[c];
    m /= C;
    for (int c = 0; c < C; c++) v += (x[c] - m) * (x[c] - m);
    v /= C;
    double s = 1.0 / sqrt(v + eps);
    for (int c = 0; c < C; c++) out[(size_t)n * C + c] = (float)((x[c] - m) * s * g[c] + b[c]);
    if (mean) mean[n] = (float)m;
    if (rstd) rstd[n] = (float)s;
  }
}
