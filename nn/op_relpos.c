/* Relative-key position scores (config position_embedding_type "relative_key",
 * as Hugging Face's ElectraSelfAttention computes them; Shaw et al. 2018): for
 * query i and key j of one sequence and head, the score q_i.k_j gains
 *   q_i . D[i - j + P - 1],   D [2P - 1, dh] the layer's distance embedding,
 * before both are scaled by 1/sqrt(dh). No absolute position embedding is
 * added then, so what a head learns about "the word before" holds at every
 * position of a sentence (with absolute positions a small model learnt
 * agreement only where its training pairs stood: docs/RESULTS.md §1b).
 *
 * For a block of queries [i0, i0 + n) against L keys, the distances needed
 * are i - j + P - 1 for i in the block and j in [0, L): the n + L - 1
 * consecutive rows of D from (i0 - (L - 1) + P - 1) on. One product
 * G = Q_block Dsub^T [n, n + L - 1] gives every term, read back by gather:
 * the term for (i, j) is G[i][i - j + L - 1]. */
#include <string.h>
#include "matmul.h"
#include "ops.h"

/* The first row of D the block [i0, ...) against L keys needs. */
static const float *dsub(const el__relpos *rel, int i0, int L, int dh) {
  return rel->dist + (size_t)(i0 - (L - 1) + rel->max_pos - 1) * dh;
}

void el__relpos_gather(float *S, int ldS, const float *G, int ldG, int g0, int n, int L) {
  for (int i = 0; i < n; i++) {
    float *s = S + (size_t)i * ldS;
    const float *g = G + (size_t)i * ldG + g0 + i + L - 1; /* g[-j] is the term of key j */
    for (int j = 0; j < L; j++) s[j] += g[-j];
  }
}

void el__relpos_scores(float *S, int ldS, const float *q, int ldq, int i0, int n, int L, int dh,
                       const el__relpos *rel, float scale, float *G) {
  const int W = n + L - 1;
  el__matmul(0, 1, n, W, dh, scale, q, ldq,
              dsub(rel, i0, L, dh), dh, 0.0f, G, W);
  el__relpos_gather(S, ldS, G, W, 0, n, L);
}

void el__relpos_backward(float *dq, int ldq, float *dpart, const float *dS, const float *q,
                         int L, int dh, const el__relpos *rel, float scale, float *dG) {
  const int W = 2 * L - 1;
  memset(dG, 0, sizeof(float) * (size_t)L * W);
  for (int i = 0; i < L; i++) {
    const float *ds = dS + (size_t)i * L;
    float *g = dG + (size_t)i * W + i + L - 1;
    for (int j = 0; j < L; j++) g[-j] = ds[j];
  }
  el__matmul(0, 0, L, dh, W, scale, dG, W,
              dsub(rel, 0, L, dh), dh, 1.0f, dq, ldq);
  el__matmul(1, 0, W, dh, L, scale, dG, W, q, ldq, 0.0f,
              dpart, dh);
}

void el__relpos_accumulate(const el__relpos *rel, const float *dpart, int L, int dh) {
  float *d = rel->ddist + (size_t)(rel->max_pos - L) * dh;
  const size_t n = (size_t)(2 * L - 1) * dh;
  for (size_t i = 0; i < n; i++) d[i] += dpart[i];
}

double el__relpos_term_naive(const el__relpos *rel, const float *qi, int i, int j, int dh) {
  const float *d = rel->dist + (size_t)(i - j + rel->max_pos - 1) * dh;
  double acc = 0.0;
  for (int k = 0; k < dh; k++) acc += (double)qi[k] * d[k];
  return acc;
}

void el__relpos_grad_naive(const el__relpos *rel, float *dqi, const float *qi, int i, int j,
                           int dh, double ds) {
  const float *d = rel->dist + (size_t)(i - j + rel->max_pos - 1) * dh;
  float *dd = rel->ddist + (size_t)(i - j + rel->max_pos - 1) * dh;
  for (int k = 0; k < dh; k++) {
    dqi[k] += (float)(ds * d[k]);
    dd[k] += (float)(ds * qi[k]);
  }
}
