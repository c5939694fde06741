/* Multi-head self-attention over packed sequences. Each sequence attends only
 * to itself, so no padding mask is needed. Per sequence and head:
 *   P = softmax(Q_h K_h^T / sqrt(dh)),  ctx_h = dropout(P) V_h
 * The fast path runs both products as strided SGEMMs over the [T,H] buffers. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <math.h>
#include <string.h>
#include "ops.h"

size_t el_attention_probs_size(const int *seq_len, int n_seqs, int nh) {
  size_t n = 0;
  for (int s = 0; s < n_seqs; s++) n += (size_t)nh * seq_len[s] * seq_len[s];
  return n;
}

size_t el_attention_scratch_size(int max_len, int H, int nh) {
  (void)H;
  (void)nh;
  return 2 * (size_t)max_len * max_len;
}

static void softmax_rows(float *p, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    float *x = p + (size_t)r * cols;
    float mx = x[0];
    for (int c = 1; c < cols; c++) mx = x[c] > mx ? x[c] : mx;
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) {
      x[c] = expf(x[c] - mx);
      sum += x[c];
    }
    float inv = 1.0f / sum;
    for (int c = 0; c < cols; c++) x[c] *= inv;
  }
}

void el_attention_forward(float *ctx, float *probs, const float *q, const float *k,
                          const float *v, const float *drop, const int *seq_len, int n_seqs,
                          int H, int nh, float *scratch) {
  const int dh = H / nh;
  const float scale = 1.0f / sqrtf((float)dh);
  size_t t0 = 0, poff = 0;
  for (int s = 0; s < n_seqs; s++) {
    const int L = seq_len[s];
    for (int h = 0; h < nh; h++) {
      float *P = probs ? probs + poff : scratch;
      const float *qh = q + t0 * H + (size_t)h * dh;
      const float *kh = k + t0 * H + (size_t)h * dh;
      const float *vh = v + t0 * H + (size_t)h * dh;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, dh, scale, qh, H, kh, H, 0.0f,
                  P, L);
      softmax_rows(P, L, L);
      const float *Pu = P;
      if (drop) {
        float *Pd = scratch + (size_t)L * L;
        const float *dm = drop + poff;
        for (size_t i = 0; i < (size_t)L * L; i++) Pd[i] = P[i] * dm[i];
        Pu = Pd;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, dh, L, 1.0f, Pu, L, vh, H, 0.0f,
                  ctx + t0 * H + (size_t)h * dh, H);
      poff += (size_t)L * L;
    }
    t0 += L;
  }
}

void el_attention_forward_naive(float *ctx, float *probs, const float *q, const float *k,
                                const float *v, const float *drop, const int *seq_len,
                                int n_seqs, int H, int nh) {
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
 *   dS = P * (dP - rowsum(dP * P));  dQ += scale dS K;  dK += scale dS^T Q. */
void el_attention_backward(float *dq, float *dk, float *dv, const float *dctx,
                           const float *probs, const float *q, const float *k, const float *v,
                           const float *drop, const int *seq_len, int n_seqs, int H, int nh,
                           float *scratch) {
  const int dh = H / nh;
  const float scale = 1.0f / sqrtf((float)dh);
  size_t t0 = 0, poff = 0;
  for (int s = 0; s < n_seqs; s++) {
    const int L = seq_len[s];
    for (int h = 0; h < nh; h++) {
      const size_t off = t0 * H + (size_t)h * dh;
      const float *P = probs + poff;
      const float *Pd = P;
      float *dP = scratch + (size_t)L * L;
      if (drop) {
        float *tmp = scratch;
        const float *dm = drop + poff;
        for (size_t i = 0; i < (size_t)L * L; i++) tmp[i] = P[i] * dm[i];
        Pd = tmp;
      }
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L, dh, L, 1.0f, Pd, L, dctx + off, H,
                  1.0f, dv + off, H);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, dh, 1.0f, dctx + off, H, v + off,
                  H, 0.0f, dP, L);
      for (int i = 0; i < L; i++) {
        float *dr = dP + (size_t)i * L;
        const float *pr = P + (size_t)i * L;
        if (drop) {
          const float *dm = drop + poff + (size_t)i * L;
          for (int j = 0; j < L; j++) dr[j] *= dm[j];
        }
        float dot = 0.0f;
        for (int j = 0; j < L; j++) dot += dr[j] * pr[j];
        for (int j = 0; j < L; j++) dr[j] = pr[j] * (dr[j] - dot);
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, dh, L, scale, dP, L, k + off, H,
                  1.0f, dq + off, H);
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, L, dh, L, scale, dP, L, q + off, H,
                  1.0f, dk + off, H);
      poff += (size_t)L * L;
    }
    t0 += L;
  }
}

void el_attention_backward_naive(float *dq, float *dk, float *dv, const float *dctx,
                                 const float *probs, const float *q, const float *k,
                                 const float *v, const float *drop, const int *seq_len,
                                 int n_seqs, int H, int nh) {
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
        }
      }
#undef AT
      poff += (size_t)L * L;
    }
    t0 += L;
  }
}
