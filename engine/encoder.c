/* The ELECTRA encoder at inference (docs/MODEL.md §1), over packed
 * batches: embeddings -> LayerNorm -> projection (E != H) -> post-LN layers.
 * Dense layers run once over all T tokens (no padding, no wasted FLOPs);
 * attention runs per sequence. Eval mode: no dropout. The model is only read,
 * so any number of threads may share it, each with its own workspace. */
#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <string.h>
#include "infer_internal.h"
#include "infer_kernels.h"
#include "ops.h"
#include "quant.h"

void el__gemm_nt(float *out, const float *in, const float *w, const float *b, int N, int Cin,
                 int Cout, int accumulate) {
  if (N <= 0) return;
  if (b && !accumulate) {
    for (int n = 0; n < N; n++) memcpy(out + (size_t)n * Cout, b, sizeof(float) * (size_t)Cout);
    accumulate = 1;
  } else if (b) {
    for (int n = 0; n < N; n++) el__add_inplace(out + (size_t)n * Cout, b, (size_t)Cout);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, Cout, Cin, 1.0f, in, Cin, w, Cin,
              accumulate ? 1.0f : 0.0f, out, Cout);
}

int el__check_batch(const el_model *m, const el_workspace *ws, const el_batch *b, int need,
                    const char *fn, int *T, el_error *err) {
  if (!m || !ws || !b)
    return el_error_set(err, EL_EINVAL, "%s: NULL model, workspace or batch", fn);
  const el_config *c = &m->cfg;
  if (need >= 0 && (int)c->arch != need)
    return el_error_set(err, EL_EINVAL, "%s: the model is %s, this call needs %s", fn,
                        el_arch_name(c->arch) ? el_arch_name(c->arch) : "an unknown architecture",
                        el_arch_name((el_arch)need));
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
 * states are x [Tc,H] (a slice of ws->x); ctx and big are scratch. */
static void encoder_layer(const el__layer_w *lw, el_workspace *ws, float *x, const int *seq_len,
                          int n_seqs, int Tc, float eps) {
  const int H = ws->H, In = ws->inter;
  float *ctx = ws->ctx;
  float *q = ws->big, *k = q + (size_t)Tc * H, *v = k + (size_t)Tc * H;
  el__gemm_nt(q, x, lw->q.w, NULL, Tc, H, H, 0);
  el__gemm_nt(k, x, lw->k.w, NULL, Tc, H, H, 0);
  el__gemm_nt(v, x, lw->v.w, NULL, Tc, H, H, 0);
  el__attention(ctx, q, k, v, lw->q.b, lw->k.b, lw->v.b, seq_len, n_seqs, H, ws->nh, ws->att);
  el__gemm_nt(x, ctx, lw->attn_out.w, NULL, Tc, H, H, 1);
  el__bias_layernorm(x, lw->attn_out.b, lw->attn_ln.g, lw->attn_ln.b, Tc, H, eps);
  float *f = ws->big;
  el__gemm_nt(f, x, lw->inter.w, NULL, Tc, H, In, 0);
  el__bias_gelu(f, lw->inter.b, Tc, In);
  el__gemm_nt(x, f, lw->out.w, NULL, Tc, In, H, 1);
  el__bias_layernorm(x, lw->out.b, lw->out_ln.g, lw->out_ln.b, Tc, H, eps);
}

/* Embeddings and all layers for sequences [s0, s0+ns) holding Tc tokens
 * from token t0 on. */
static void encode_chunk(const el_model *m, el_workspace *ws, const el_batch *b, int s0, int ns,
                         int t0, int Tc) {
  const el_config *c = &m->cfg;
  const el__weights *w = &m->w;
  const int E = c->embedding_size, H = c->hidden_size;
  float *x = ws->x + (size_t)t0 * H;
  float *emb = E == H ? x : ws->big;
  if (m->q && m->q->word) /* int8 word embeddings (quant.h) */
    el__quant_embed(m, emb, b->ids + t0, b->type_ids ? b->type_ids + t0 : NULL, b->seq_len + s0,
                    ns);
  else
    el__embed_forward(emb, b->ids + t0, b->type_ids ? b->type_ids + t0 : NULL, b->seq_len + s0,
                      ns, w->word, w->pos, w->type, E);
  el__bias_layernorm(emb, NULL, w->emb_ln.g, w->emb_ln.b, Tc, E, c->layer_norm_eps);
  if (E != H) el__gemm_nt(x, emb, w->project.w, w->project.b, Tc, E, H, 0);
  for (int l = 0; l < c->num_layers; l++)
    if (m->q)
      el__quant_layer(m, l, ws, x, b->seq_len + s0, ns, Tc);
    else
      encoder_layer(&w->layer[l], ws, x, b->seq_len + s0, ns, Tc, c->layer_norm_eps);
}

/* Large batches run as chunks of whole sequences through all layers, so a
 * chunk's per-layer scratch stays in the caches from one GEMM to the next
 * while the GEMMs stay tall enough to run at full speed (the budget,
 * ws->chunk_tokens, is set in workspace.c). A sequence longer than the
 * budget is a chunk by itself. */
void el__encode(const el_model *m, el_workspace *ws, const el_batch *b) {
  const int chunk = ws->chunk_tokens;
  const int blas = m->q ? el__quant_blas_single() : 0; /* int8: one thread pool (quant.h) */
  for (int s0 = 0, t0 = 0; s0 < b->n_seqs;) {
    int ns = 0, Tc = 0;
    while (s0 + ns < b->n_seqs && (ns == 0 || Tc + b->seq_len[s0 + ns] <= chunk))
      Tc += b->seq_len[s0 + ns++];
    encode_chunk(m, ws, b, s0, ns, t0, Tc);
    s0 += ns;
    t0 += Tc;
  }
  if (m->q) el__quant_blas_restore(blas);
}

int el_run_hidden(const el_model *m, el_workspace *ws, const el_batch *b, float *hidden,
                  el_error *err) {
  int T = 0;
  int rc = el__check_batch(m, ws, b, -1, "el_run_hidden", &T, err);
  if (rc) return rc;
  if (!hidden) return el_error_set(err, EL_EINVAL, "el_run_hidden: NULL output");
  el__encode(m, ws, b);
  memcpy(hidden, ws->x, sizeof(float) * (size_t)T * m->cfg.hidden_size);
  return EL_OK;
}
