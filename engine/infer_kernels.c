/* Fused inference kernels (see infer_kernels.h). The element-wise loops are
 * written so that GCC vectorises them (`omp simd`, branch-free selects, fmaf);
 * the matrix products inside attention are OpenBLAS SGEMMs. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "infer_kernels.h"
#include "op_pool.h"

#define LOG2E 1.44269504088896341f
#define LN2_HI 0.693145751953125f /* ln 2 split so n * LN2_HI is exact */
#define LN2_LO 1.42860682030941723e-6f
#define ROUND_MAGIC 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer */
#define INV_SQRT2 0.70710678118654752440f

/* exp(x) = 2^n * e^r, n = round(x / ln 2), |r| <= ln2 / 2; e^r by its Taylor
 * series to degree 7 (truncation error < 1e-8 relative on that interval). */
static inline float exp_core(float x) {
  x = x < -87.3f ? -87.3f : x; /* not fminf/fmaxf: their NaN rules block vectorising */
  x = x > 88.3f ? 88.3f : x;   /* keeps n <= 127: 2^n stays finite */
  float n = (x * LOG2E + ROUND_MAGIC) - ROUND_MAGIC;
  float r = fmaf(-n, LN2_HI, x);
  r = fmaf(-n, LN2_LO, r);
  float p = 1.0f / 5040.0f;
  p = fmaf(p, r, 1.0f / 720.0f);
  p = fmaf(p, r, 1.0f / 120.0f);
  p = fmaf(p, r, 1.0f / 24.0f);
  p = fmaf(p, r, 1.0f / 6.0f);
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.0f);
  p = fmaf(p, r, 1.0f);
  union {
    int32_t i;
    float f;
  } scale = {.i = ((int32_t)n + 127) << 23};
  return p * scale.f;
}

/* gelu(x) = x/2 * erfc(-x/sqrt 2). With z = |x|/sqrt 2 and y = erfc(z):
 * x >= 0 gives x - x*y/2, x < 0 gives x*y/2. erfc(z) = t exp(-z^2 + P(t)),
 * t = 1/(1 + z/2), P the Chebyshev fit of Numerical Recipes (erfcc). */
static inline float gelu_core(float x) {
  float z = fabsf(x) * INV_SQRT2;
  float t = 1.0f / fmaf(0.5f, z, 1.0f);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  float y = t * exp_core(fmaf(-z, z, p));
  float h = 0.5f * x * y;
  return x >= 0.0f ? x - h : h;
}

void el__expf_vec(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = exp_core(in[i]);
}

void el__gelu_vec(float *out, const float *in, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) out[i] = gelu_core(in[i]);
}

void el__bias_layernorm(float *x, const float *b, const float *g, const float *beta, int N, int C,
                        float eps) {
  const float invC = 1.0f / (float)C;
  for (int r = 0; r < N; r++) {
    float *row = x + (size_t)r * C;
    float sum = 0.0f;
    if (b) {
#pragma omp simd reduction(+ : sum)
      for (int c = 0; c < C; c++) {
        row[c] += b[c];
        sum += row[c];
      }
    } else {
#pragma omp simd reduction(+ : sum)
      for (int c = 0; c < C; c++) sum += row[c];
    }
    const float mean = sum * invC;
    float var = 0.0f;
#pragma omp simd reduction(+ : var)
    for (int c = 0; c < C; c++) {
      float d = row[c] - mean;
      var += d * d;
    }
    const float rstd = 1.0f / sqrtf(var * invC + eps);
#pragma omp simd
    for (int c = 0; c < C; c++) row[c] = (row[c] - mean) * rstd * g[c] + beta[c];
  }
}

/* Scores of one task: rows x L floats on the stack, at most this many. */
#define ATT_SCRATCH 8192

/* S holds scaled scores [rows,L]; replaces each row by exp(row - max) and
 * stores 1/sum in inv (the normalisation is applied to ctx, which has dh
 * columns instead of L). */
static void softmax_unnormalised(float *S, float *inv, int rows, int L) {
  for (int i = 0; i < rows; i++) {
    float *row = S + (size_t)i * L;
    float mx = row[0];
#pragma omp simd reduction(max : mx)
    for (int j = 0; j < L; j++) mx = row[j] > mx ? row[j] : mx;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int j = 0; j < L; j++) {
      float e = exp_core(row[j] - mx);
      row[j] = e;
      sum += e;
    }
    inv[i] = 1.0f / sum;
  }
}

/* One sequence of L tokens from token t0 on. */
typedef struct att_job {
  float *ctx;
  const float *q, *k, *v;
  size_t t0;
  int L, rows, nb, H, dh;
  float scale;
  const el__relpos *rel; /* NULL: absolute positions */
} att_job;

/* Query rows of a block: rows x L scores fit the stack scratch; rows <= L and
 * rows * L <= ATT_SCRATCH keep rows <= sqrt(ATT_SCRATCH) < ATT_MAX_ROWS. */
#define ATT_MAX_ROWS 128
static int att_rows(int L) {
  int r = ATT_SCRATCH / L;
  return r < 1 ? 1 : r > L ? L : r;
}

/* Task (head h, block b): the b-th block of query rows of head h. */
static void att_task(void *p, int task, int worker) {
  (void)worker;
  const att_job *j = p;
  const int h = task / j->nb, i0 = (task % j->nb) * j->rows, L = j->L;
  const int n = L - i0 < j->rows ? L - i0 : j->rows;
  const int H = j->H, dh = j->dh;
  const size_t off = j->t0 * H + (size_t)h * dh;
  float S[ATT_SCRATCH], inv[ATT_MAX_ROWS];
  const float *qs = j->q + off + (size_t)i0 * H;
  float *cs = j->ctx + off + (size_t)i0 * H;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, L, dh, j->scale, qs, H, j->k + off, H,
              0.0f, S, L);
  if (j->rel) { /* n (n + L - 1) <= 2 ATT_SCRATCH, as n <= L and n L <= ATT_SCRATCH */
    float G[2 * ATT_SCRATCH];
    el__relpos_scores(S, L, qs, H, i0, n, L, dh, j->rel, j->scale, G);
  }
  softmax_unnormalised(S, inv, n, L);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, dh, L, 1.0f, S, L, j->v + off, H, 0.0f,
              cs, H);
  for (int i = 0; i < n; i++) {
    float *row = cs + (size_t)i * H;
    const float w = inv[i];
#pragma omp simd
    for (int d = 0; d < dh; d++) row[d] *= w;
  }
}

/* One pool run per sequence: a batch of several sequences runs its chunks
 * in parallel already (encoder.c), where these runs are inline. */
void el__attention(float *ctx, const float *q, const float *k, const float *v, const int *seq_len,
                   int n_seqs, int H, int nh, const el__relpos *rel) {
  att_job j = {.ctx = ctx, .q = q, .k = k, .v = v, .H = H, .dh = H / nh,
               .scale = 1.0f / sqrtf((float)(H / nh)), .rel = rel};
  for (int s = 0; s < n_seqs; j.t0 += (size_t)seq_len[s++]) {
    j.L = seq_len[s];
    j.rows = att_rows(j.L);
    j.nb = (j.L + j.rows - 1) / j.rows;
    el__pool_run(nh * j.nb, att_task, &j);
  }
}

const el__relpos *el__layer_relpos(const el__layer_w *lw, int max_pos, el__relpos *slot) {
  if (!lw->dist) return NULL;
  *slot = (el__relpos){.dist = lw->dist, .ddist = NULL, .max_pos = max_pos};
  return slot;
}
