/* LayerNorm over the last dimension (eps from the config, 1e-12 for ELECTRA). */
#include <math.h>
#include "ops.h"

void el_layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *g,
                          const float *b, int N, int C, float eps) {
#pragma omp parallel for schedule(static) if ((long)N * C > 32768)
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

/* With xhat = (x - mean) rstd and dn = dout g:
 *   dx = rstd (dn - mean(dn) - xhat mean(dn xhat)),  dg += dout xhat,  db += dout.
 * dx is row-parallel; dg/db are summed over rows in order per column block,
 * so results do not depend on the thread count. */
void el_layernorm_backward(float *din, float *dg, float *db, const float *dout, const float *in,
                           const float *mean, const float *rstd, const float *g, int N, int C) {
  const int par = (long)N * C > 32768;
  if (din) {
#pragma omp parallel for schedule(static) if (par)
    for (int n = 0; n < N; n++) {
      const float *x = in + (size_t)n * C, *d = dout + (size_t)n * C;
      float *dx = din + (size_t)n * C;
      const float m = mean[n], s = rstd[n];
      float sum_dn = 0.0f, sum_dnx = 0.0f;
      for (int c = 0; c < C; c++) {
        float dn = d[c] * g[c];
        sum_dn += dn;
        sum_dnx += dn * (x[c] - m) * s;
      }
      const float a = sum_dn / (float)C, bb = sum_dnx / (float)C;
      for (int c = 0; c < C; c++) {
        float xh = (x[c] - m) * s;
        dx[c] += s * (d[c] * g[c] - a - xh * bb);
      }
    }
  }
  if (dg || db) {
#pragma omp parallel for schedule(static) if (par)
    for (int c0 = 0; c0 < C; c0 += 64) {
      const int c1 = c0 + 64 < C ? c0 + 64 : C;
      float ag[64] = {0}, ab[64] = {0};
      for (int n = 0; n < N; n++) {
        const float *x = in + (size_t)n * C, *d = dout + (size_t)n * C;
        const float m = mean[n], s = rstd[n];
        for (int c = c0; c < c1; c++) {
          ag[c - c0] += d[c] * (x[c] - m) * s;
          ab[c - c0] += d[c];
        }
      }
      for (int c = c0; c < c1; c++) {
        if (dg) dg[c] += ag[c - c0];
        if (db) db[c] += ab[c - c0];
      }
    }
  }
}

void el_layernorm_backward_naive(float *din, float *dg, float *db, const float *dout,
                                 const float *in, const float *mean, const float *rstd,
                                 const float *g, int N, int C) {
  for (int n = 0; n < N; n++) {
    const float *x = in + (size_t)n * C, *d = dout + (size_t)n * C;
    double sum_dn = 0.0, sum_dnx = 0.0;
    for (int c = 0; c < C; c++) {
      double xh = ((double)x[c] - mean[n]) * rstd[n];
      sum_dn += (double)d[c] * g[c];
      sum_dnx += (double)d[c] * g[c] * xh;
    }
    for (int c = 0; c < C; c++) {
      double xh = ((double)x[c] - mean[n]) * rstd[n];
      if (din)
        din[(size_t)n * C + c] +=
            (float)(rstd[n] * ((double)d[c] * g[c] - sum_dn / C - xh * sum_dnx / C));
      if (dg) dg[c] += (float)(d[c] * xh);
      if (db) db[c] += d[c];
    }
  }
}
