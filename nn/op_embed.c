/* Embedding sum over packed sequences: word + position + token type. Position
 * ids restart at 0 for every sequence (no padding offset, docs/MODEL.md §1). */
#include <string.h>
#include "ops.h"

void el__embed_forward(float *out, const int *ids, const int *type_ids, const int *seq_len,
                      int n_seqs, const float *word, const float *pos, const float *type, int E) {
  size_t t = 0;
  for (int s = 0; s < n_seqs; s++) {
    for (int p = 0; p < seq_len[s]; p++, t++) {
      const float *we = word + (size_t)ids[t] * E;
      const float *te = type + (size_t)(type_ids ? type_ids[t] : 0) * E;
      float *o = out + t * E;
      if (pos) { /* word + position + type, in this order (float sums are order-sensitive) */
        const float *pe = pos + (size_t)p * E;
        for (int e = 0; e < E; e++) o[e] = we[e] + pe[e] + te[e];
      } else { /* relative positions: none added */
        for (int e = 0; e < E; e++) o[e] = we[e] + te[e];
      }
    }
  }
}

/* Scatter-add: repeated ids (and every position/type row) accumulate. Serial
 * in token order so the sums do not depend on the thread count. */
void el__embed_backward(float *dword, float *dpos, float *dtype, const float *dout,
                       const int *ids, const int *type_ids, const int *seq_len, int n_seqs,
                       int E) {
  size_t t = 0;
  for (int s = 0; s < n_seqs; s++) {
    for (int p = 0; p < seq_len[s]; p++, t++) {
      const float *d = dout + t * E;
      if (dword) {
        float *w = dword + (size_t)ids[t] * E;
        for (int e = 0; e < E; e++) w[e] += d[e];
      }
      if (dpos) {
        float *q = dpos + (size_t)p * E;
        for (int e = 0; e < E; e++) q[e] += d[e];
      }
      if (dtype) {
        float *y = dtype + (size_t)(type_ids ? type_ids[t] : 0) * E;
        for (int e = 0; e < E; e++) y[e] += d[e];
      }
    }
  }
}
