/* Internal: the inference workspace and the encoder pass shared by
 * encoder.c (el_run_hidden) and heads.c (the four task heads).
 *
 * One encoder layer, with every buffer [rows, cols] over the T packed tokens:
 *   q,k,v = x Wq^T + bq, x Wk^T + bk, x Wv^T + bv   (SGEMMs onto the bias)
 *   ctx   = attention(q, k, v)
 *   x    += ctx Wo^T ; x = LN(x + bo)   (SGEMM accumulates into the residual;
 *                                        LayerNorm in the same task, rows in cache)
 *   f     = gelu(x Wi^T + bi)           (GELU in the same task)
 *   x    += f Wf^T ; x = LN(x + bf)
 * so a layer needs x [T,H], ctx [T,H] and one region `big` of
 * T * max(3H, I, E) floats holding q|k|v, then f (and the embeddings before
 * the projection when E != H). A chunk of tokens [t0, t0+Tc) uses rows
 * [t0, t0+Tc) of all three, so chunks can run at the same time. */
#ifndef EL_INFER_INTERNAL_H
#define EL_INFER_INTERNAL_H

#include <stddef.h>
#include "electra/engine.h"
#include "model_internal.h"

/* el__encode's chunks per batch at most (the threads each take whole chunks). */
#define EL_MAX_CHUNKS 256

struct el_workspace {
  /* Limits and the model shape the buffers were sized for. */
  int max_tokens, max_seqs, max_len;
  int H, E, inter, nh, max_pos; /* hidden, embedding, intermediate, heads, positions */
  int chunk_tokens;             /* el__encode's tokens per chunk (tests may lower it) */
  float *x;                     /* [max_tokens, H] hidden states */
  float *ctx;                   /* [max_tokens, H] attention context; head scratch */
  float *big;                   /* [max_tokens, big_width] */
  int big_width;                /* max(3H, I, E) */
  void *block;                  /* the single allocation the pointers above live in */
  struct el__qws *q;            /* an int8 model's buffers (quant.h); NULL for fp32 */
};

/* Checks m, ws and b (batch shape, ids, type ids, workspace limits, that ws
 * was sized for m's shape); the heads check their architecture first
 * (heads.c). `fn` names the caller in messages. Sets *T to the token count. */
int el__check_batch(const el_model *m, const el_workspace *ws, const el_batch *b, const char *fn,
                    int *T, el_error *err);

/* Runs embeddings and all encoder layers on a checked batch; the final hidden
 * states are left in ws->x [T, H]. Call between el__blas_single_begin and
 * _end (op_pool.h), around the head's products too: every product then runs
 * single-threaded in the op pool's tasks, whatever other threads do. */
void el__encode(const el_model *m, el_workspace *ws, const el_batch *b);

#endif
