/* Internal: the inference workspace and the encoder pass shared by
 * encoder.c (el_run_hidden) and heads.c (the four task heads).
 *
 * One encoder layer, with every buffer [rows, cols] over the T packed tokens:
 *   q,k,v = x Wq^T, x Wk^T, x Wv^T          (bias added inside attention)
 *   ctx   = attention(q, k, v)
 *   x    += ctx Wo^T ; x = LN(x + bo)         (SGEMM accumulates into the residual)
 *   f     = gelu(x Wi^T + bi)
 *   x    += f Wf^T ; x = LN(x + bf)
 * so a layer needs x [T,H], ctx [T,H] and one region `big` of
 * T * max(3H, I, E) floats holding q|k|v, then f (and the embeddings before
 * the projection when E != H). */
#ifndef EL_INFER_INTERNAL_H
#define EL_INFER_INTERNAL_H

#include <stddef.h>
#include "electra/engine.h"
#include "model_internal.h"

struct el_workspace {
  /* Limits and the model shape the buffers were sized for. */
  int max_tokens, max_seqs, max_len;
  int H, E, inter, nh, max_pos; /* hidden, embedding, intermediate, heads, positions */
  int chunk_tokens;             /* el__encode's tokens per chunk (tests may lower it) */
  float *x;                     /* [max_tokens, H] hidden states */
  float *ctx;                   /* [max_tokens, H] attention context; head scratch */
  float *big;                   /* [max_tokens, max(3H, I, E)] */
  float *att;                   /* el__attention_scratch(max_len) */
  void *block;                  /* the single allocation the pointers above live in */
  struct el__qws *q;            /* an int8 model's buffers (quant.h); NULL for fp32 */
};

/* Checks m, ws and b (batch shape, ids, type ids, workspace limits, that ws
 * was sized for m's shape) and that m's architecture is `need` (or any when
 * need < 0). `fn` names the caller in messages. Sets *T to the token count. */
int el__check_batch(const el_model *m, const el_workspace *ws, const el_batch *b, int need,
                    const char *fn, int *T, el_error *err);

/* Runs embeddings and all encoder layers on a checked batch; the final hidden
 * states are left in ws->x [T, H]. */
void el__encode(const el_model *m, el_workspace *ws, const el_batch *b);

/* out[N,Cout] = in[N,Cin] W^T (+ b when b != NULL, via a row-wise prefill),
 * W [Cout,Cin] in HF layout; accumulate != 0 adds to the current out. */
void el__gemm_nt(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                 int Cout, int accumulate);

#endif
