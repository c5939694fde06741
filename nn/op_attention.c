/* Multi-head self-attention over packed sequences. Each sequence attends only
 * to itself, so no padding mask is needed. Per sequence and head:
 *   P = softmax((Q_h K_h^T + R_h) / sqrt(dh)),  ctx_h = dropout(P) V_h
 * with R_h = 0 for absolute positions, else the relative-key terms of
 * op_relpos.c, whose gradient for the shared distance embedding is summed per
 * (sequence, head) and added in task order, so it too is thread-count free.
 * The fast path runs both products as strided el__matmul calls (matmul.h)
 * over the [T,H] buffers, one (sequence, head) pair per task of the op pool
 * (op_pool.h); each thread has its own scratch, so the passed scratch is used
 * only by serial calls. Results do not depend on the thread count (each pair
 * is computed the same way whichever thread takes it). Run with OpenBLAS at 1 thread. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "op_fastmath.h"
#include "op_pool.h"
#include "matmul.h"
#include "ops.h"

/* Offsets of each sequence's first token and first probability; [n_seqs + 1]. */
static void offsets(const int *seq_len, int n_seqs, int nh, size_t *tok, size_t *prob) {
  tok[0] = prob[0] = 0;
  for (int s = 0; s < n_seqs; s++) {
    tok[s + 1] = tok[s] + (size_t)seq_len[s];
    prob[s + 1] = prob[s] + (size_t)nh * seq_len[s] * seq_len[s];
  }
}

/* The arguments of one call, shared by its tasks. */
typedef struct att_job {
  float *ctx, *probs, *dq, *dk, *dv;
  const float *q, *k, *v, *drop, *dctx, *saved; /* saved: backward's probs */
  const int *seq_len;
  const size_t *tok, *prob;
  int H, nh, dh, ml;
  float scale;
  const el__relpos *rel; /* NULL: absolute positions */
  float *parts;          /* backward with rel: [task][2 ml - 1, dh] distance gradients */
  float *bufs;           /* [width][per_thread] per-thread scratch, or the caller's */
  size_t per_thread;     /* floats of one thread's scratch */
} att_job;

/* Per thread: P or Pd [ml,ml], dP [ml,ml], and with relative positions the
 * relative terms [ml, 2ml-1]; absolute models need only the first two. */
static size_t scratch_per_thread(int ml, int relative) {
  return (relative ? 4 : 2) * (size_t)ml * ml;
}

/* Per-thread scratch when the work is worth splitting; else NULL (serial). */
static float *team_scratch(int n_tasks, size_t per_thread, size_t T, int ml) {
  const int nt = el__pool_avail(); /* 1 inside a task: the run would be inline */
  if (n_tasks < 2 || nt < 2 || T * (size_t)ml <= 4096) return NULL;
  return malloc(sizeof(float) * per_thread * (size_t)nt);
}

static int max_len_of(const int *seq_len, int n_seqs) {
  int m = 1;
  for (int s = 0; s < n_seqs; s++) m = seq_len[s] > m ? seq_len[s] : m;
  return m;
}

size_t el__attention_probs_size(const int *seq_len, int n_seqs, int nh) {
  size_t n = 0;
  for (int s = 0; s < n_seqs; s++) n += (size_t)nh * seq_len[s] * seq_len[s];
  return n;
}

size_t el__attention_scratch_size(int max_len, int relative) {
  return scratch_per_thread(max_len, relative);
}

static void softmax_rows(float *p, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *x = p + (size_t)r * cols;
    float mx = x[0];
#pragma omp simd reduction(max : mx)
    for (int c = 1; c < cols; c++) mx = x[c] > mx ? x[c] : mx;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int c = 0; c < cols; c++) {
      x[c] = el__expf(x[c] - mx);
      sum += x[c];
    }
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int c = 0; c < cols; c++) x[c] *= inv;
  }
}

/* One (sequence, head) pair; P and Pd are [L,L] buffers (P may be the saved
 * probs), G [L, 2L-1] the relative terms' scratch. */
static void attend_one(float *ctx, float *P, float *Pd, float *G, const float *q, const float *k,
                       const float *v, const float *dm, const el__relpos *rel, int L, int H, int dh,
                       float scale) {
  el__matmul(0, 1, L, L, dh, scale, q, H, k, H, 0.0f, P, L);
  if (rel) el__relpos_scores(P, L, q, H, 0, L, L, dh, rel, scale, G);
  softmax_rows(P, L, L);
  const float *Pu = P;
  if (dm) {
    for (size_t i = 0; i < (size_t)L * L; i++) Pd[i] = P[i] * dm[i];
    Pu = Pd;
  }
  el__matmul(0, 0, L, dh, L, 1.0f, Pu, L, v, H, 0.0f, ctx,
              H);
}

static void forward_task(void *p, int task, int worker) {
  const att_job *j = p;
  const int s = task / j->nh, h = task % j->nh, L = j->seq_len[s], H = j->H;
  const size_t off = j->tok[s] * H + (size_t)h * j->dh, poff = j->prob[s] + (size_t)h * L * L;
  float *buf = j->bufs + (size_t)worker * j->per_thread;
  const size_t mm = (size_t)j->ml * j->ml;
  attend_one(j->ctx + off, j->probs ? j->probs + poff : buf, buf + mm, buf + 2 * mm, j->q + off,
             j->k + off, j->v + off, j->drop ? j->drop + poff : NULL, j->rel, L, H, j->dh,
             j->scale);
}

int el__attention_forward(float *ctx, float *probs, const float *q, const float *k,
                          const float *v, const float *drop, const int *seq_len, int n_seqs,
                          int H, int nh, const el__relpos *rel, float *scratch) {
  size_t *tok = malloc(sizeof(size_t) * 2 * (size_t)(n_seqs + 1));
  if (!tok) return -1;
  size_t *prob = tok + n_seqs + 1;
  offsets(seq_len, n_seqs, nh, tok, prob);
  const int n_tasks = n_seqs * nh, ml = max_len_of(seq_len, n_seqs);
  att_job j = {.ctx = ctx, .probs = probs, .q = q, .k = k, .v = v, .drop = drop,
               .seq_len = seq_len, .tok = tok, .prob = prob, .H = H, .nh = nh, .dh = H / nh,
               .ml = ml, .scale = 1.0f / sqrtf((float)(H / nh)), .rel = rel,
               .per_thread = scratch_per_thread(ml, rel != NULL)};
  float *team = team_scratch(n_tasks, j.per_thread, tok[n_seqs], ml);
  j.bufs = team ? team : scratch;
  if (team)
    el__pool_run(n_tasks, forward_task, &j);
  else
    for (int t = 0; t < n_tasks; t++) forward_task(&j, t, 0);
  free(team);
  free(tok);
  return 0;
}

void el__attention_forward_naive(float *ctx, float *probs, const float *q, const float *k,
                                const float *v, const float *drop, const int *seq_len,
                                int n_seqs, int H, int nh, const el__relpos *rel) {
  const int dh = H / nh;
  size_t t0 = 0, poff = 0;
  for (int s = 0; s < n_seqs; s++) {
    const int L = seq_len[s];
    for (int h = 0; h < nh; h++) {
      for (int i = 0; i < L; i++) {
        double row[L > 0 ? L : 1];
        double mx = -1e300, sum = 0.0;
        for (int j = 0; j < L; j++) {
          double acc = 0.0;
          for (int d = 0; d < dh; d++)
            acc += (double)q[(t0 + i) * H + h * dh + d] * k[(t0 + j) * H + h * dh + d];
          if (rel) acc += el__relpos_term_naive(rel, q + (t0 + i) * H + h * dh, i, j, dh);
          row[j] = acc / sqrt((double)dh);
          if (row[j] > mx) mx = row[j];
        }
        for (int j = 0; j < L; j++) sum += (row[j] = exp(row[j] - mx));
        for (int j = 0; j < L; j++) {
          row[j] /= sum;
          if (probs) probs[poff + (size_t)i * L + j] = (float)row[j];
          if (drop) row[j] *= drop[poff + (size_t)i * L + j];
        }
        for (int d = 0; d < dh; d++) {
          double acc = 0.0;
          for (int j = 0; j < L; j++) acc += row[j] * v[(t0 + j) * H + h * dh + d];
          ctx[(t0 + i) * H + h * dh + d] = (float)acc;
        }
      }
      poff += (size_t)L * L;
    }
    t0 += L;
  }
}

/* Per sequence and head, with Pd = dropout(P):
 *   dV += Pd^T dctx;  dPd = dctx V^T;  dP = dPd * drop;
 *   dS = P * (dP - rowsum(dP * P));  dQ += scale dS K;  dK += scale dS^T Q.
 * Pairs write disjoint slices of dq/dk/dv, so they run in parallel. */
static void attend_back_one(float *dq, float *dk, float *dv, const float *dctx, const float *P,
                            const float *q, const float *k, const float *v, const float *dm,
                            const el__relpos *rel, float *dpart, float *buf, int L, int H, int dh,
                            float scale) {
  const float *Pd = P;
  float *dP = buf + (size_t)L * L;
  if (dm) {
    for (size_t i = 0; i < (size_t)L * L; i++) buf[i] = P[i] * dm[i];
    Pd = buf;
  }
  el__matmul(1, 0, L, dh, L, 1.0f, Pd, L, dctx, H, 1.0f, dv,
              H);
  el__matmul(0, 1, L, L, dh, 1.0f, dctx, H, v, H, 0.0f, dP, L);
  for (int i = 0; i < L; i++) {
    float *dr = dP + (size_t)i * L;
    const float *pr = P + (size_t)i * L;
    if (dm) {
      const float *mr = dm + (size_t)i * L;
      for (int j = 0; j < L; j++) dr[j] *= mr[j];
    }
    float dot = 0.0f;
    for (int j = 0; j < L; j++) dot += dr[j] * pr[j];
    for (int j = 0; j < L; j++) dr[j] = pr[j] * (dr[j] - dot);
  }
  el__matmul(0, 0, L, dh, L, scale, dP, L, k, H, 1.0f, dq,
              H);
  el__matmul(1, 0, L, dh, L, scale, dP, L, q, H, 1.0f, dk, H);
  if (rel) el__relpos_backward(dq, H, dpart, dP, q, L, dh, rel, scale, buf + 2 * (size_t)L * L);
}

static void backward_task(void *p, int task, int worker) {
  const att_job *j = p;
  const int s = task / j->nh, h = task % j->nh, L = j->seq_len[s], H = j->H;
  const size_t off = j->tok[s] * H + (size_t)h * j->dh, poff = j->prob[s] + (size_t)h * L * L;
  float *dpart = j->rel ? j->parts + (size_t)task * (2 * j->ml - 1) * j->dh : NULL;
  attend_back_one(j->dq + off, j->dk + off, j->dv + off, j->dctx + off, j->saved + poff,
                  j->q + off, j->k + off, j->v + off, j->drop ? j->drop + poff : NULL, j->rel,
                  dpart, j->bufs + (size_t)worker * j->per_thread, L, H, j->dh,
                  j->scale);
}

int el__attention_backward(float *dq, float *dk, float *dv, const float *dctx,
                           const float *probs, const float *q, const float *k, const float *v,
                           const float *drop, const int *seq_len, int n_seqs, int H, int nh,
                           const el__relpos *rel, float *scratch) {
  size_t *tok = malloc(sizeof(size_t) * 2 * (size_t)(n_seqs + 1));
  if (!tok) return -1;
  size_t *prob = tok + n_seqs + 1;
  offsets(seq_len, n_seqs, nh, tok, prob);
  const int n_tasks = n_seqs * nh, ml = max_len_of(seq_len, n_seqs), dh = H / nh;
  att_job j = {.dq = dq, .dk = dk, .dv = dv, .dctx = dctx, .saved = probs, .q = q,
               .k = k, .v = v, .drop = drop, .seq_len = seq_len, .tok = tok, .prob = prob,
               .H = H, .nh = nh, .dh = dh, .ml = ml, .scale = 1.0f / sqrtf((float)dh), .rel = rel,
               .per_thread = scratch_per_thread(ml, rel != NULL)};
  if (rel && !(j.parts = malloc(sizeof(float) * (size_t)n_tasks * (2 * ml - 1) * dh))) {
    free(tok);
    return -1;
  }
  float *team = team_scratch(n_tasks, j.per_thread, tok[n_seqs], ml);
  j.bufs = team ? team : scratch;
  if (team)
    el__pool_run(n_tasks, backward_task, &j);
  else
    for (int t = 0; t < n_tasks; t++) backward_task(&j, t, 0);
  for (int t = 0; rel && t < n_tasks; t++) /* in task order: the sum is thread-count free */
    el__relpos_accumulate(rel, j.parts + (size_t)t * (2 * ml - 1) * dh, seq_len[t / nh], dh);
  free(j.parts);
  free(team);
  free(tok);
  return 0;
}

void el__attention_backward_naive(float *dq, float *dk, float *dv, const float *dctx,
                                 const float *probs, const float *q, const float *k,
                                 const float *v, const float *drop, const int *seq_len,
                                 int n_seqs, int H, int nh, const el__relpos *rel) {
  const int dh = H / nh;
  const double scale = 1.0 / sqrt((double)dh);
  size_t t0 = 0, poff = 0;
  for (int s = 0; s < n_seqs; s++) {
    const int L = seq_len[s];
    for (int h = 0; h < nh; h++) {
#define AT(x, t, d) (x)[(t0 + (t)) * H + (size_t)h * dh + (d)]
      for (int i = 0; i < L; i++) {
        const float *pr = probs + poff + (size_t)i * L;
        const float *dm = drop ? drop + poff + (size_t)i * L : NULL;
        double dp[L > 0 ? L : 1], dot = 0.0;
        for (int j = 0; j < L; j++) {
          double dpd = 0.0;
          for (int d = 0; d < dh; d++) dpd += (double)AT(dctx, i, d) * AT(v, j, d);
          dp[j] = dm ? dpd * dm[j] : dpd;
          dot += dp[j] * pr[j];
          double pd = dm ? (double)pr[j] * dm[j] : pr[j];
          for (int d = 0; d < dh; d++) AT(dv, j, d) += (float)(pd * AT(dctx, i, d));
        }
        for (int j = 0; j < L; j++) {
          double ds = pr[j] * (dp[j] - dot) * scale;
          for (int d = 0; d < dh; d++) {
            AT(dq, i, d) += (float)(ds * AT(k, j, d));
            AT(dk, j, d) += (float)(ds * AT(q, i, d));
          }
          if (rel) el__relpos_grad_naive(rel, &AT(dq, i, 0), &AT(q, i, 0), i, j, dh, ds);
        }
      }
#undef AT
      poff += (size_t)L * L;
    }
    t0 += L;
  }
}
