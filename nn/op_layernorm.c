/* LayerNorm over the last dimension (eps from the config, 1e-12 for ELECTRA). */
#include <math.h>
#include "op_pool.h"
#include "ops.h"

#define LN_ROWS 64 /* rows per task */

typedef struct ln_job {
  float *out, *mean, *rstd, *din, *dg, *db;
  const float *in, *g, *b, *dout, *cmean, *crstd;
  int N, C;
  float eps;
} ln_job;

static void forward_rows(void *p, size_t lo, size_t hi) {
  const ln_job *j = p;
  const int C = j->C;
  for (size_t n = lo; n < hi; n++) {
    const float *x = j->in + n * C;
    float *y = j->out + n * C;
    float m = 0.0f;
    for (int c = 0; c < C; c++) m += x[c];
    m /= (float)C;
    float v = 0.0f;
    for (int c = 0; c < C; c++) {
      float d = x[c] - m;
      v += d * d;
    }
    v /= (float)C;
    float s = 1.0f / sqrtf(v + j->eps);
    for (int c = 0; c < C; c++) y[c] = (x[c] - m) * s * j->g[c] + j->b[c];
    if (j->mean) j->mean[n] = m;
    if (j->rstd) j->rstd[n] = s;
  }
}

void el__layernorm_forward(float *out, float *mean, float *rstd, const float *in, const float *g,
                          const float *b, int N, int C, float eps) {
  ln_job j = {.out = out, .mean = mean, .rstd = rstd, .in = in, .g = g, .b = b, .N = N, .C = C,
              .eps = eps};
  el__pool_for((size_t)(N > 0 ? N : 0), (long)N * C > 32768 ? LN_ROWS : (size_t)N + 1,
               forward_rows, &j);
}

void el__layernorm_forward_naive(float *out, float *mean, float *rstd, const float *in,
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

static void backward_rows(void *p, size_t lo, size_t hi) {
  const ln_job *j = p;
  const int C = j->C;
  for (size_t n = lo; n < hi; n++) {
    const float *x = j->in + n * C, *d = j->dout + n * C;
    float *dx = j->din + n * C;
    const float m = j->cmean[n], s = j->crstd[n];
    float sum_dn = 0.0f, sum_dnx = 0.0f;
    for (int c = 0; c < C; c++) {
      float dn = d[c] * j->g[c];
      sum_dn += dn;
      sum_dnx += dn * (x[c] - m) * s;
    }
    const float a = sum_dn / (float)C, bb = sum_dnx / (float)C;
    for (int c = 0; c < C; c++) {
      float xh = (x[c] - m) * s;
      dx[c] += s * (d[c] * j->g[c] - a - xh * bb);
    }
  }
}

/* dg/db for columns [lo, hi) (at most 64), summed over rows in order */
static void backward_cols(void *p, size_t lo, size_t hi) {
  const ln_job *j = p;
  const int C = j->C;
  float ag[64] = {0}, ab[64] = {0};
  for (int n = 0; n < j->N; n++) {
    const float *x = j->in + (size_t)n * C, *d = j->dout + (size_t)n * C;
    const float m = j->cmean[n], s = j->crstd[n];
    for (size_t c = lo; c < hi; c++) {
      ag[c - lo] += d[c] * (x[c] - m) * s;
      ab[c - lo] += d[c];
    }
  }
  for (size_t c = lo; c < hi; c++) {
    if (j->dg) j->dg[c] += ag[c - lo];
    if (j->db) j->db[c] += ab[c - lo];
  }
}

/* With xhat = (x - mean) rstd and dn = dout g:
 *   dx = rstd (dn - mean(dn) - xhat mean(dn xhat)),  dg += dout xhat,  db += dout.
 * dx is split by rows; dg/db by 64-column blocks summed over rows in order,
 * so results do not depend on the thread count. */
void el__layernorm_backward(float *din, float *dg, float *db, const float *dout, const float *in,
                           const float *mean, const float *rstd, const float *g, int N, int C) {
  if (N <= 0) return;
  ln_job j = {.din = din, .dg = dg, .db = db, .in = in, .g = g, .dout = dout, .cmean = mean,
              .crstd = rstd, .N = N, .C = C};
  const int par = (long)N * C > 32768;
  if (din) el__pool_for((size_t)N, par ? LN_ROWS : (size_t)N + 1, backward_rows, &j);
  if (dg || db) el__pool_for((size_t)C, 64, backward_cols, &j);
}

void el__layernorm_backward_naive(float *din, float *dg, float *db, const float *dout,
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
