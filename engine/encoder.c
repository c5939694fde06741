/* The ELECTRA encoder at inference (docs/MODEL.md §1), over packed
 * batches: embeddings -> LayerNorm -> projection (E != H) -> post-LN layers.
 * Dense layers run once over all T tokens (no padding, no wasted FLOPs);
 * attention runs per sequence. Eval mode: no dropout. The model is only read,
 * so any number of threads may share it, each with its own workspace. */
#include <string.h>
#include "infer_internal.h"
#include "infer_kernels.h"
#include "op_pool.h"
#include "ops.h"
#include "quant.h"

int el__check_batch(const el_model *m, const el_workspace *ws, const el_batch *b, const char *fn,
                    int *T, el_error *err) {
  if (!m || !ws || !b)
    return el_error_set(err, EL_EINVAL, "%s: NULL model, workspace or batch", fn);
  const el_config *c = &m->cfg;
  if (ws->H != c->hidden_size || ws->E != c->embedding_size || ws->inter != c->intermediate_size ||
      ws->nh != c->num_heads || ws->max_pos != c->max_position_embeddings)
    return el_error_set(err, EL_EINVAL,
                        "%s: the workspace was sized for another model shape (hidden %d, "
                        "embedding %d, intermediate %d, heads %d; this model: %d, %d, %d, %d)",
                        fn, ws->H, ws->E, ws->inter, ws->nh, c->hidden_size, c->embedding_size,
                        c->intermediate_size, c->num_heads);
  if (m->q && !ws->q)
    return el_error_set(err, EL_EINVAL, "%s: the workspace was made for an fp32 model, this "
                        "model is int8", fn);
  if (b->n_seqs < 1)
    return el_error_set(err, EL_EINVAL, "%s: batch has %d sequences (need >= 1)", fn, b->n_seqs);
  if (b->n_seqs > ws->max_seqs)
    return el_error_set(err, EL_ETOOLONG, "%s: batch has %d sequences, the workspace holds %d", fn,
                        b->n_seqs, ws->max_seqs);
  if (!b->seq_len || !b->ids)
    return el_error_set(err, EL_EINVAL, "%s: batch without seq_len or ids", fn);
  long long total = 0;
  for (int s = 0; s < b->n_seqs; s++) {
    const int L = b->seq_len[s];
    if (L < 1)
      return el_error_set(err, EL_EINVAL, "%s: sequence %d has length %d (need >= 1)", fn, s, L);
    if (L > c->max_position_embeddings)
      return el_error_set(err, EL_ETOOLONG,
                          "%s: sequence %d has %d tokens, the model takes at most %d "
                          "(max_position_embeddings)",
                          fn, s, L, c->max_position_embeddings);
    total += L;
  }
  if (total > ws->max_tokens)
    return el_error_set(err, EL_ETOOLONG, "%s: batch has %lld tokens, the workspace holds %d", fn,
                        total, ws->max_tokens);
  const int n = (int)total;
  for (int s = 0, t = 0; s < b->n_seqs; s++) {
    for (int p = 0; p < b->seq_len[s]; p++, t++) {
      if (b->ids[t] < 0 || b->ids[t] >= c->vocab_size)
        return el_error_set(err, EL_EINVAL,
                            "%s: token %d (sequence %d, position %d): id %d outside [0, %d)", fn, t,
                            s, p, b->ids[t], c->vocab_size);
      if (b->type_ids && (b->type_ids[t] < 0 || b->type_ids[t] >= c->type_vocab_size))
        return el_error_set(err, EL_EINVAL,
                            "%s: token %d (sequence %d, position %d): type id %d outside [0, %d)",
                            fn, t, s, p, b->type_ids[t], c->type_vocab_size);
    }
  }
  *T = n;
  return EL_OK;
}

/* One post-LN layer over the Tc tokens of n_seqs sequences whose hidden
 * states are x [Tc,H] (a slice of ws->x); ctx [Tc,H] and big [Tc,width] are
 * the chunk's slices of the scratch. Biases, GELU, residuals and LayerNorms
 * ride in the dense layers' epilogues (infer_dense.c). */
static void encoder_layer(const el__layer_w *lw, const el_workspace *ws, float *x, float *ctx,
                          float *big, const int *seq_len, int n_seqs, int Tc, float eps) {
  const int H = ws->H, In = ws->inter;
  float *qkv[3] = {big, big + (size_t)Tc * H, big + (size_t)2 * Tc * H};
  const el__dense_w qkv_w[3] = {lw->q, lw->k, lw->v};
  el__dense_fused(3, qkv, x, qkv_w, NULL, 0, Tc, H, H, EL__EPI_BIAS);
  el__relpos rp;
  el__attention(ctx, qkv[0], qkv[1], qkv[2], seq_len, n_seqs, H, ws->nh,
                el__layer_relpos(lw, ws->max_pos, &rp), 0);
  el__dense_fused(1, &x, ctx, &lw->attn_out, &lw->attn_ln, eps, Tc, H, H, EL__EPI_RESIDUAL_LN);
  el__dense_fused(1, &big, x, &lw->inter, NULL, 0, Tc, H, In, EL__EPI_BIAS_GELU);
  el__dense_fused(1, &x, big, &lw->out, &lw->out_ln, eps, Tc, In, H, EL__EPI_RESIDUAL_LN);
}

/* Embeddings and all layers for sequences [s0, s0+ns) holding Tc tokens
 * from token t0 on, with big [Tc, big_width] as scratch; every buffer it
 * touches is the chunk's own. */
static void encode_chunk(const el_model *m, const el_workspace *ws, const el_batch *b, int s0,
                         int ns, int t0, int Tc, float *big) {
  const el_config *c = &m->cfg;
  const el__weights *w = &m->w;
  const int E = c->embedding_size, H = c->hidden_size;
  float *x = ws->x + (size_t)t0 * H, *ctx = ws->ctx + (size_t)t0 * H;
  float *emb = E == H ? x : big;
  if (m->q && m->q->word) /* int8 word embeddings (quant.h) */
    el__quant_embed(m, emb, b->ids + t0, b->type_ids ? b->type_ids + t0 : NULL, b->seq_len + s0,
                    ns);
  else
    el__embed_forward(emb, b->ids + t0, b->type_ids ? b->type_ids + t0 : NULL, b->seq_len + s0,
                      ns, w->word, m->cfg.relative_positions ? NULL : w->pos, w->type, E);
  el__bias_layernorm(emb, NULL, w->emb_ln.g, w->emb_ln.b, Tc, E, c->layer_norm_eps);
  if (E != H) el__dense_fused(1, &x, emb, &w->project, NULL, 0, Tc, E, H, EL__EPI_BIAS);
  for (int l = 0; l < c->num_layers; l++)
    if (m->q)
      el__quant_layer(m, l, ws, x, ctx, big, b->seq_len + s0, ns, Tc);
    else
      encoder_layer(&w->layer[l], ws, x, ctx, big, b->seq_len + s0, ns, Tc, c->layer_norm_eps);
}

/* A plan of chunks: runs of whole sequences. */
typedef struct chunk_plan {
  const el_model *m;
  const el_workspace *ws;
  const el_batch *b;
  int n;                           /* chunks */
  int slots, slot_tokens;          /* slot_tokens > 0: each thread's scratch, this many tokens */
  int s0[EL_MAX_CHUNKS + 1];       /* first sequence of each chunk; s0[n] = n_seqs */
  int t0[EL_MAX_CHUNKS + 1];       /* first token of each chunk; t0[n] = T */
} chunk_plan;

static void chunk_task(void *p, int task, int worker) {
  const chunk_plan *c = p;
  const el_workspace *ws = c->ws;
  /* a thread's own slot of `big` when all fit, else the chunk's own rows */
  const size_t row = c->slot_tokens > 0 && worker < c->slots ? (size_t)worker * c->slot_tokens
                                                              : (size_t)c->t0[task];
  encode_chunk(c->m, ws, c->b, c->s0[task], c->s0[task + 1] - c->s0[task], c->t0[task],
               c->t0[task + 1] - c->t0[task], ws->big + row * ws->big_width);
}

/* Cuts the batch into chunks of whole sequences, each chunk's tokens close
 * to T / n: n is the number of ws->chunk_tokens budgets the batch needs,
 * raised to a multiple of the threads so that the chunks share out evenly
 * (at most one chunk per sequence, at most EL_MAX_CHUNKS). A sequence longer
 * than a share is a chunk by itself. */
static void plan_chunks(chunk_plan *c, int T, int width) {
  const el_batch *b = c->b;
  int n = (T + c->ws->chunk_tokens - 1) / c->ws->chunk_tokens;
  if (width > 1) n = (n + width - 1) / width * width;
  if (n > b->n_seqs) n = b->n_seqs;
  if (n > EL_MAX_CHUNKS) n = EL_MAX_CHUNKS;
  c->n = 0;
  for (int s = 0, t = 0; s < b->n_seqs;) {
    const int k = c->n++;
    c->s0[k] = s, c->t0[k] = t;
    const long goal = (long)T * (k + 1) / n; /* where this chunk should end */
    do t += b->seq_len[s++];
    while (s < b->n_seqs && (k == n - 1 || (t + b->seq_len[s] / 2 <= goal &&
                                              b->n_seqs - s > n - k - 1)));
  }
  c->s0[c->n] = b->n_seqs, c->t0[c->n] = T;
  /* Scratch by thread rather than by chunk keeps the memory a batch touches
   * to threads x the largest chunk (a batch of 4096 tokens on 2 threads:
   * half of `big`). Worker ids run below el__pool_width(). */
  int most = 0;
  for (int k = 0; k < c->n; k++) {
    const int Tc = c->t0[k + 1] - c->t0[k];
    most = Tc > most ? Tc : most;
  }
  c->slots = c->n > 1 ? el__pool_width() : 1;
  c->slot_tokens = (long)c->slots * most <= c->ws->max_tokens ? most : 0;
}

/* Large batches run as chunks of whole sequences through all layers, so a
 * chunk's per-layer scratch stays in the caches from one GEMM to the next
 * while the GEMMs stay tall enough to run at full speed (the budget,
 * ws->chunk_tokens, is set in workspace.c). With several chunks the op
 * pool's threads each take whole chunks through all layers, with no
 * hand-over between layers; a single chunk (one sequence, say) shares out
 * the work inside each layer instead. Call inside el__blas_single_begin/end
 * (the parallelism is the pool's). */
void el__encode(const el_model *m, el_workspace *ws, const el_batch *b) {
  int T = 0;
  for (int s = 0; s < b->n_seqs; s++) T += b->seq_len[s];
  chunk_plan c = {.m = m, .ws = ws, .b = b};
  /* int8: one chunk at a time, its products spread over the pool row by row
   * (quant_forward.c); fp32: whole chunks per thread */
  plan_chunks(&c, T, m->q ? 1 : el__pool_avail());
  if (c.n == 1 || m->q) {
    for (int k = 0; k < c.n; k++) /* not through the pool: a one-task run would be inline */
      encode_chunk(m, ws, b, c.s0[k], c.s0[k + 1] - c.s0[k], c.t0[k], c.t0[k + 1] - c.t0[k],
                   ws->big);
  } else {
    el__pool_run(c.n, chunk_task, &c);
  }
}

int el_run_hidden(const el_model *m, el_workspace *ws, const el_batch *b, float *hidden,
                  el_error *err) {
  int T = 0;
  int rc = el__check_batch(m, ws, b, "el_run_hidden", &T, err);
  if (rc) return rc;
  if (!hidden) return el_error_set(err, EL_EINVAL, "el_run_hidden: NULL output");
  el__blas_single_begin();
  el__encode(m, ws, b);
  el__blas_single_end();
  memcpy(hidden, ws->x, sizeof(float) * (size_t)T * m->cfg.hidden_size);
  return EL_OK;
}
