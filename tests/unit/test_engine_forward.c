/* Fast C-only checks of the inference engine (no PyTorch, no files):
 *  - the fused kernels of engine/infer_kernels.c against the naive ops of ops.h;
 *  - the whole forward pass and all four heads of random in-memory models against a
 *    forward composed of the naive ops (max |diff| <= 1e-4);
 *  - workspace limits and bad batches refused with the right code and a message, and a
 *    refused call leaves the workspace usable;
 *  - one model shared by 4 threads, each with its own workspace: results identical
 *    (bit for bit) to a single thread's.
 * The PyTorch comparison is tests/reference/test_engine_reference.sh. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "electra/engine.h"
#include "bf16_gemm.h"
#include "infer_gemm.h"
#include "infer_internal.h"
#include "infer_kernels.h"
#include "model_internal.h"
#include "ops.h"
#include "ref_fixture.h" /* run_head */
#include "rng.h"
#include "../test.h"

/* ---- random numbers (self-contained LCG; tests only need variety) ---- */
static unsigned long long g_seed = 88172645463325252ull;
static float urand(void) { /* [0, 1) */
  g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
  return (float)((g_seed >> 40) * (1.0 / 16777216.0));
}
static float nrand(void) { return (urand() + urand() + urand() + urand() - 2.0f) * 1.7f; }
static void fill(float *x, size_t n, float scale) {
  for (size_t i = 0; i < n; i++) x[i] = nrand() * scale;
}

static double max_abs_diff(const float *a, const float *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (!(d <= m)) m = d;
  }
  return m;
}

/* ---- kernels vs naive ops ---- */

/* w [out,in] -> t [in,out]: the inference layout (infer_layout.c). */
static void transposed(float *t, const float *w, int out, int in) {
  for (int o = 0; o < out; o++)
    for (int i = 0; i < in; i++) t[(size_t)i * out + o] = w[(size_t)o * in + i];
}

/* W [out,in] in `layout` (weights.h): what el__dense_fused reads. */
static void in_layout(float *t, const float *w, int out, int in, el__wlayout layout) {
  if (layout == EL__W_IN_OUT) transposed(t, w, out, in);
  else if (layout == EL__W_PACKED) el__gemm_pack(t, w, out, in);
  else memcpy(t, w, sizeof(float) * (size_t)out * in);
}

/* el__dense_fused's three epilogues against the naive dense, GELU and LayerNorm,
 * on row counts that do and do not split into blocks (with 2 threads), W in
 * the file's [out,in] layout or an inference layout ([in,out] for OpenBLAS,
 * packed panels). With Cout >= 128 and fewer rows than Cout the blocks are
 * blocks of columns. */
static void test_dense_fused(int Cin, int Cout, el__wlayout lay) {
  const int rows[] = {1, 31, 100};
  const size_t wn = (size_t)Cout * Cin;
  float *in = malloc(sizeof(float) * 100 * Cin), *w = malloc(sizeof(float) * 3 * wn);
  float *wt = malloc(sizeof(float) * 3 * wn);
  float *b = malloc(sizeof(float) * 3 * Cout), *g = malloc(sizeof(float) * Cout);
  float *be = malloc(sizeof(float) * Cout), *res = malloc(sizeof(float) * 100 * Cout);
  float *out = malloc(sizeof(float) * 3 * 100 * Cout), *ref = malloc(sizeof(float) * 100 * Cout);
  fill(in, 100 * (size_t)Cin, 1.0f), fill(w, 3 * wn, 0.3f);
  fill(b, 3 * (size_t)Cout, 0.5f), fill(g, Cout, 0.3f), fill(be, Cout, 0.3f);
  fill(res, 100 * (size_t)Cout, 1.0f);
  for (int c = 0; c < Cout; c++) g[c] += 1.0f;
  for (int m = 0; m < 3; m++) in_layout(wt + m * wn, w + m * wn, Cout, Cin, lay);
  const el__dense_w d[3] = {{wt, b, lay}, {wt + wn, b + Cout, lay}, {wt + 2 * wn, b + 2 * Cout, lay}};
  const el__ln_w ln = {g, be};
  const char *layout = lay == EL__W_IN_OUT ? "[in,out]" : lay == EL__W_PACKED ? "packed" : "[out,in]";
  el_set_threads(2);
  for (int i = 0; i < 3; i++) {
    const int N = rows[i];
    const size_t n = (size_t)N * Cout;
    float *o3[3] = {out, out + n, out + 2 * n};
    el__dense_fused(3, o3, in, d, NULL, 0, N, Cin, Cout, EL__EPI_BIAS);
    double worst = 0;
    for (int m = 0; m < 3; m++) {
      el__dense_forward_naive(ref, in, w + m * wn, b + m * Cout, N, Cin, Cout);
      worst = fmax(worst, max_abs_diff(o3[m], ref, n));
    }
    CHECK(worst <= 1e-5, "dense x3 + bias, %dx%d W %s, %d rows, matches naive (%.3g)", Cout, Cin,
          layout, N, worst);
    el__dense_fused(1, o3, in, d, NULL, 0, N, Cin, Cout, EL__EPI_BIAS_GELU);
    el__dense_forward_naive(ref, in, w, b, N, Cin, Cout);
    el__gelu_forward_naive(ref, ref, n);
    CHECK(max_abs_diff(out, ref, n) <= 1e-5,
          "dense + bias + GELU, %dx%d W %s, %d rows, matches naive (%.3g)", Cout, Cin, layout, N,
          max_abs_diff(out, ref, n));
    memcpy(out, res, sizeof(float) * n);
    el__dense_fused(1, o3, in, d, &ln, 1e-12f, N, Cin, Cout, EL__EPI_RESIDUAL_LN);
    el__dense_forward_naive(ref, in, w, b, N, Cin, Cout);
    for (size_t e = 0; e < n; e++) ref[e] += res[e];
    el__layernorm_forward_naive(ref, NULL, NULL, ref, g, be, N, Cout, 1e-12f);
    CHECK(max_abs_diff(out, ref, n) <= 1e-5,
          "dense + bias + residual + LayerNorm, %dx%d W %s, %d rows, matches naive (%.3g)", Cout,
          Cin, layout, N, max_abs_diff(out, ref, n));
  }
  free(in), free(w), free(wt), free(b), free(g), free(be), free(res), free(out), free(ref);
}

/* The int8 forward pass's attention (bf16 products where the CPU has
 * AVX512_BF16): ctx against the naive fp32 attention in ref. Its error is
 * bf16's rounding of q, k, v and the probabilities (8 significant bits);
 * differing from fp32 at all shows the bf16 kernel ran. */
static void bf16_attention(float *ctx, const float *ref, const float *q, const float *k,
                           const float *v, const int *lens, int ns, int H, int nh,
                           const el__relpos *rel) {
  const size_t n = (size_t)(1 + 5 + 33 + 64 + 2 + 200 + 300) * H;
  if (!el__bgemm_available() || el__gemm_isa() != EL__GEMM_AVX512) {
    SKIP("bf16 attention H=%d: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off, ELECTRA_GEMM=avx2|openblas)", H);
    return;
  }
  el__attention(ctx, q, k, v, lens, ns, H, nh, rel, 1);
  const double d = max_abs_diff(ctx, ref, n);
  CHECK(d > 1e-6 && d <= 2e-2, "%sattention in bf16, H=%d heads=%d: within 2e-2 of naive fp32 "
        "and not equal to it (%.3g)", rel ? "relative-key " : "", H, nh, d);
}

/* el__bias_layernorm over widths with and without AVX-512 tails (37, 1030)
 * and the model's (256, 1024) against the naive op;
 * el__bias_layernorm_range gives the same floats bit for bit and each row's
 * exact min(0, row) / max(0, row) (under ELECTRA_GEMM=avx2: its loop). */
static void layernorm_widths(void) {
  const int widths[] = {37, 256, 1024, 1030}, R = 5;
  for (int wi = 0; wi < 4; wi++) {
    const int C = widths[wi];
    float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C),
          *z = malloc(sizeof(float) * R * C), *r = malloc(sizeof(float) * R * C);
    float *b = malloc(sizeof(float) * C), *g = malloc(sizeof(float) * C), *be = malloc(sizeof(float) * C);
    fill(x, (size_t)R * C, 2.0f), fill(b, C, 1.0f), fill(g, C, 0.3f), fill(be, C, 0.3f);
    for (int c = 0; c < C; c++) g[c] += 1.0f;
    for (int c = 0; c < C; c++) x[c] += 3.0f; /* row 0 far from zero mean */
    for (int i = 0; i < R * C; i++) r[i] = x[i] + b[i % C];
    memcpy(y, x, sizeof(float) * R * C);
    el__bias_layernorm(y, b, g, be, R, C, 1e-12f);
    el__layernorm_forward_naive(r, NULL, NULL, r, g, be, R, C, 1e-12f);
    CHECK(max_abs_diff(y, r, (size_t)R * C) <= 1e-5, "LayerNorm of width %d matches naive (%.3g)", C,
          max_abs_diff(y, r, (size_t)R * C));
    float lo[5], hi[5];
    int bad = 0;
    memcpy(z, x, sizeof(float) * R * C);
    el__bias_layernorm_range(z, b, g, be, R, C, 1e-12f, lo, hi);
    for (int rr = 0; rr < R; rr++) {
      float l = 0.0f, h = 0.0f;
      for (int c = 0; c < C; c++) l = fminf(l, z[rr * C + c]), h = fmaxf(h, z[rr * C + c]);
      bad += l != lo[rr] || h != hi[rr];
    }
    CHECK(!memcmp(y, z, sizeof(float) * R * C) && bad == 0,
          "LayerNorm of width %d with ranges: the same floats, each row's range exact (%d rows off)",
          C, bad);
    free(x), free(y), free(z), free(r), free(b), free(g), free(be);
  }
}

static void test_kernels(void) {
  enum { N = 200001 };
  float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
        *r = malloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) x[i] = -12.0f + 24.0f * (float)i / (N - 1);
  el__gelu_vec(y, x, N);
  el__gelu_forward_naive(r, x, N);
  double worst = 0;
  for (int i = 0; i < N; i++)
    worst = fmax(worst, fabs((double)y[i] - r[i]) / fmax(1.0, fabs(x[i])));
  CHECK(worst <= 3e-7, "gelu kernel within 3e-7 * max(1,|x|) of erf GELU on [-12, 12] (%.3g)",
        worst);
  el__gelu_vec(x, x, 1); /* aliasing allowed */
  for (int i = 0; i < N; i++) x[i] = -87.0f + 175.0f * (float)i / (N - 1);
  el__expf_vec(y, x, N);
  worst = 0;
  for (int i = 0; i < N; i++)
    worst = fmax(worst, fabs(y[i] - exp((double)x[i])) / exp((double)x[i]));
  CHECK(worst <= 2e-7, "exp kernel relative error <= 2e-7 on [-87, 88] (%.3g)", worst);
  float big[2] = {-1000.0f, 1000.0f}, e2[2];
  el__expf_vec(e2, big, 2);
  CHECK(e2[0] >= 0 && e2[0] < 1e-37f && isfinite(e2[1]), "exp kernel clamps huge inputs");

  /* el_log_softmax against log-softmax in double: rows of a vocabulary's
   * width (past one chunk of the kernel), one with a huge spread */
  {
    enum { ROWS = 3, V = 8193 };
    float *lp = malloc(sizeof(float) * ROWS * V);
    for (int i = 0; i < ROWS * V; i++) lp[i] = 8.0f * (urand() - 0.5f);
    lp[2 * V + 17] = 60.0f, lp[2 * V + 18] = -60.0f;
    double *ref = malloc(sizeof(double) * ROWS * V);
    for (int rr = 0; rr < ROWS; rr++) {
      double mx = -1e300, sum = 0;
      for (int i = 0; i < V; i++) mx = fmax(mx, lp[rr * V + i]);
      for (int i = 0; i < V; i++) sum += exp(lp[rr * V + i] - mx);
      for (int i = 0; i < V; i++) ref[rr * V + i] = lp[rr * V + i] - mx - log(sum);
    }
    el_log_softmax(lp, ROWS, V);
    double lw = 0, mass = 0;
    for (int i = 0; i < ROWS * V; i++) lw = fmax(lw, fabs(lp[i] - ref[i]));
    for (int i = 0; i < V; i++) mass += exp((double)lp[i]);
    CHECK(lw <= 2e-5, "el_log_softmax within 2e-5 of log-softmax in double (%.3g)", lw);
    CHECK(fabs(mass - 1.0) <= 1e-5, "el_log_softmax's row is a distribution (mass %.7f)", mass);
    free(lp), free(ref);
  }

  /* bias + LayerNorm over rows (bias + GELU: test_dense_fused) */
  const int R = 9, C = 96;
  float *b = malloc(sizeof(float) * C), *g = malloc(sizeof(float) * C),
        *be = malloc(sizeof(float) * C);
  fill(x, (size_t)R * C, 1.0f), fill(b, C, 1.0f), fill(g, C, 0.3f), fill(be, C, 0.3f);
  for (int c = 0; c < C; c++) g[c] += 1.0f;
  for (int i = 0; i < R * C; i++) r[i] = x[i] + b[i % C];
  memcpy(y, x, sizeof(float) * R * C);
  el__bias_layernorm(y, b, g, be, R, C, 1e-12f);
  el__layernorm_forward_naive(r, NULL, NULL, r, g, be, R, C, 1e-12f);
  CHECK(max_abs_diff(y, r, (size_t)R * C) <= 1e-5, "bias+residual LayerNorm matches naive (%.3g)",
        max_abs_diff(y, r, (size_t)R * C));
  memcpy(y, x, sizeof(float) * R * C);
  el__bias_layernorm(y, NULL, g, be, R, C, 1e-12f);
  el__layernorm_forward_naive(r, NULL, NULL, x, g, be, R, C, 1e-12f);
  CHECK(max_abs_diff(y, r, (size_t)R * C) <= 1e-5, "LayerNorm without bias matches naive");
  layernorm_widths();

  /* attention vs naive attention; 200 tokens take several blocks of query rows, 300 two
   * blocks of k in the packed kernel's S V (infer_gemm.c's KC, 256) */
  const int shapes[2][2] = {{48, 4}, {64, 1}};
  const int lens[] = {1, 5, 33, 64, 2, 200, 300};
  const int ns = 7, T = 1 + 5 + 33 + 64 + 2 + 200 + 300;
  for (int si = 0; si < 2; si++) {
    const int H = shapes[si][0], nh = shapes[si][1];
    size_t n = (size_t)T * H;
    float *q = malloc(sizeof(float) * n * 3), *k = q + n, *v = k + n;
    float *ctx = malloc(sizeof(float) * n), *ref = malloc(sizeof(float) * n);
    fill(q, 3 * n, 0.8f);
    el__attention(ctx, q, k, v, lens, ns, H, nh, NULL, 0);
    el__attention_forward_naive(ref, NULL, q, k, v, NULL, lens, ns, H, nh, NULL);
    double d = max_abs_diff(ctx, ref, n);
    CHECK(d <= 1e-5, "attention H=%d heads=%d, lengths 1..300, matches naive (%.3g)", H, nh, d);
    bf16_attention(ctx, ref, q, k, v, lens, ns, H, nh, NULL);
    float *dist = malloc(sizeof(float) * (2 * 512 - 1) * (size_t)(H / nh));
    fill(dist, (2 * 512 - 1) * (size_t)(H / nh), 0.8f);
    const el__relpos rel = {dist, NULL, 512};
    el__attention(ctx, q, k, v, lens, ns, H, nh, &rel, 0);
    el__attention_forward_naive(ref, NULL, q, k, v, NULL, lens, ns, H, nh, &rel);
    d = max_abs_diff(ctx, ref, n);
    CHECK(d <= 1e-5, "relative-key attention H=%d heads=%d, lengths 1..300, matches naive (%.3g)",
          H, nh, d);
    bf16_attention(ctx, ref, q, k, v, lens, ns, H, nh, &rel);
    free(dist);
    free(q), free(ctx), free(ref);
  }
  for (el__wlayout lay = EL__W_HF; lay <= EL__W_PACKED; lay++) {
    if (lay == EL__W_PACKED && el__gemm_isa() == EL__GEMM_NONE) {
      SKIP("dense with packed weights: this CPU has neither AVX2 + FMA nor AVX-512F");
      continue;
    }
    test_dense_fused(40, 24, lay);
    test_dense_fused(40, 256, lay);
    test_dense_fused(37, 200, lay); /* column blocks of 128 + a narrow last panel */
  }
  free(x), free(y), free(r), free(b), free(g), free(be);
}

/* ---- random in-memory models ---- */
static el_model *make_model(el_arch arch, int H, int E, int L, int nh, int I, int V, int P,
                            int labels, int relative) {
  el_model *m = calloc(1, sizeof *m);
  el_config *c = &m->cfg;
  c->arch = arch, c->vocab_size = V, c->embedding_size = E, c->hidden_size = H;
  c->num_layers = L, c->num_heads = nh, c->intermediate_size = I;
  c->max_position_embeddings = P, c->type_vocab_size = 2, c->pad_token_id = 0;
  c->layer_norm_eps = 1e-12f, c->initializer_range = 0.02f, c->num_labels = labels;
  c->hidden_dropout_prob = c->attention_probs_dropout_prob = 0.1f;
  c->relative_positions = relative;
  size_t n = el__weights_numel(c);
  m->owned = malloc(sizeof(float) * n);
  m->owned_floats = m->n_params = n;
  el_error err = {0};
  if (!n || el__weights_point(c, &m->w, m->owned, &err)) {
    printf("# make_model: %s\n", err.msg);
    exit(1);
  }
  fill(m->owned, n, 0.25f);
  /* LayerNorm gains near 1, as trained models have. */
  el__weights *w = &m->w;
  for (int i = 0; i < E; i++) w->emb_ln.g[i] += 1.0f;
  for (int l = 0; l < L; l++)
    for (int i = 0; i < H; i++) w->layer[l].attn_ln.g[i] += 1.0f, w->layer[l].out_ln.g[i] += 1.0f;
  if (arch == EL_ARCH_MASKED_LM)
    for (int i = 0; i < E; i++) w->gen_ln.g[i] += 1.0f;
  return m;
}

/* Forward composed of the naive ops: final hidden states [T,H]. */
static void naive_hidden(const el_model *m, const el_batch *b, int T, float *x) {
  const el_config *c = &m->cfg;
  const el__weights *w = &m->w;
  const int H = c->hidden_size, E = c->embedding_size, I = c->intermediate_size;
  float *emb = malloc(sizeof(float) * (size_t)T * E);
  float *q = malloc(sizeof(float) * (size_t)T * H), *k = malloc(sizeof(float) * (size_t)T * H);
  float *v = malloc(sizeof(float) * (size_t)T * H), *ctx = malloc(sizeof(float) * (size_t)T * H);
  float *f = malloc(sizeof(float) * (size_t)T * I), *o = malloc(sizeof(float) * (size_t)T * H);
  el__embed_forward(emb, b->ids, b->type_ids, b->seq_len, b->n_seqs, w->word,
                    c->relative_positions ? NULL : w->pos, w->type, E);
  el__layernorm_forward_naive(emb, NULL, NULL, emb, w->emb_ln.g, w->emb_ln.b, T, E,
                             c->layer_norm_eps);
  if (E != H)
    el__dense_forward_naive(x, emb, w->project.w, w->project.b, T, E, H);
  else
    memcpy(x, emb, sizeof(float) * (size_t)T * H);
  for (int l = 0; l < c->num_layers; l++) {
    const el__layer_w *lw = &w->layer[l];
    el__dense_forward_naive(q, x, lw->q.w, lw->q.b, T, H, H);
    el__dense_forward_naive(k, x, lw->k.w, lw->k.b, T, H, H);
    el__dense_forward_naive(v, x, lw->v.w, lw->v.b, T, H, H);
    const el__relpos rel = {lw->dist, NULL, c->max_position_embeddings};
    el__attention_forward_naive(ctx, NULL, q, k, v, NULL, b->seq_len, b->n_seqs, H, c->num_heads,
                                lw->dist ? &rel : NULL);
    el__dense_forward_naive(o, ctx, lw->attn_out.w, lw->attn_out.b, T, H, H);
    for (size_t i = 0; i < (size_t)T * H; i++) o[i] += x[i];
    el__layernorm_forward_naive(x, NULL, NULL, o, lw->attn_ln.g, lw->attn_ln.b, T, H,
                               c->layer_norm_eps);
    el__dense_forward_naive(f, x, lw->inter.w, lw->inter.b, T, H, I);
    el__gelu_forward_naive(f, f, (size_t)T * I);
    el__dense_forward_naive(o, f, lw->out.w, lw->out.b, T, I, H);
    for (size_t i = 0; i < (size_t)T * H; i++) o[i] += x[i];
    el__layernorm_forward_naive(x, NULL, NULL, o, lw->out_ln.g, lw->out_ln.b, T, H,
                               c->layer_norm_eps);
  }
  free(emb), free(q), free(k), free(v), free(ctx), free(f), free(o);
}

/* Naive head outputs: replaced [T] | logits [n*labels] | start,end [T] | mlm [n_pos*V]. */
static void naive_head(const el_model *m, const el_batch *b, int T, const float *x, const int *pos,
                       int n_pos, float *o0, float *o1) {
  const el_config *c = &m->cfg;
  const el__weights *w = &m->w;
  const int H = c->hidden_size, E = c->embedding_size;
  float *d = malloc(sizeof(float) * (size_t)(T > n_pos ? T : n_pos) * (H > E ? H : E));
  float *g = malloc(sizeof(float) * (size_t)(T > n_pos ? T : n_pos) * H);
  switch (c->arch) {
    case EL_ARCH_PRETRAINING:
      el__dense_forward_naive(d, x, w->disc_dense.w, w->disc_dense.b, T, H, H);
      el__gelu_forward_naive(d, d, (size_t)T * H);
      el__dense_forward_naive(o0, d, w->disc_pred.w, w->disc_pred.b, T, H, 1);
      for (int t = 0; t < T; t++) o0[t] = (float)(1.0 / (1.0 + exp(-(double)o0[t])));
      break;
    case EL_ARCH_SEQ_CLS:
      for (int s = 0, t = 0; s < b->n_seqs; t += b->seq_len[s], s++)
        memcpy(g + (size_t)s * H, x + (size_t)t * H, sizeof(float) * H);
      el__dense_forward_naive(d, g, w->cls_dense.w, w->cls_dense.b, b->n_seqs, H, H);
      el__gelu_forward_naive(d, d, (size_t)b->n_seqs * H);
      el__dense_forward_naive(o0, d, w->cls_out.w, w->cls_out.b, b->n_seqs, H, c->num_labels);
      break;
    case EL_ARCH_TOKEN_CLS:
      el__dense_forward_naive(o0, x, w->tok_cls.w, w->tok_cls.b, T, H, c->num_labels);
      break;
    case EL_ARCH_QA: {
      float *se = malloc(sizeof(float) * 2 * (size_t)T);
      el__dense_forward_naive(se, x, w->qa.w, w->qa.b, T, H, 2);
      for (int t = 0; t < T; t++) o0[t] = se[2 * t], o1[t] = se[2 * t + 1];
      free(se);
      break;
    }
    case EL_ARCH_MASKED_LM:
      for (int i = 0; i < n_pos; i++)
        memcpy(g + (size_t)i * H, x + (size_t)pos[i] * H, sizeof(float) * H);
      el__dense_forward_naive(d, g, w->gen_dense.w, w->gen_dense.b, n_pos, H, E);
      el__gelu_forward_naive(d, d, (size_t)n_pos * E);
      el__layernorm_forward_naive(d, NULL, NULL, d, w->gen_ln.g, w->gen_ln.b, n_pos, E,
                                 c->layer_norm_eps);
      el__dense_forward_naive(o0, d, w->lm_w, w->lm_b, n_pos, E, c->vocab_size);
      break;
    default:
      break;
  }
  free(d), free(g);
}

typedef struct {
  int n_seqs, T;
  int len[8], ids[512], types[512], pos[64], n_pos;
} batch_buf;

static void make_batch(batch_buf *bb, const el_config *c, const int *lens, int n) {
  memset(bb, 0, sizeof *bb);
  bb->n_seqs = n;
  for (int s = 0; s < n; s++) bb->len[s] = lens[s], bb->T += lens[s];
  for (int t = 0; t < bb->T; t++) {
    bb->ids[t] = (int)(urand() * c->vocab_size);
    bb->types[t] = t % 3 == 0;
  }
  for (int t = 0; t < bb->T && bb->n_pos < 64; t += 3) bb->pos[bb->n_pos++] = t;
}

static void test_against_naive(void) {
  const struct {
    el_arch arch;
    int H, E, L, nh, I, labels, relative;
    const char *name;
  } models[] = {
      {EL_ARCH_PRETRAINING, 32, 32, 2, 2, 64, 0, 0, "pretraining E=H"},
      {EL_ARCH_PRETRAINING, 48, 24, 2, 4, 80, 0, 0, "pretraining E<H"},
      {EL_ARCH_MASKED_LM, 32, 48, 2, 2, 64, 0, 0, "masked LM E>H"},
      {EL_ARCH_SEQ_CLS, 32, 16, 2, 1, 64, 3, 0, "classifier 3 labels"},
      {EL_ARCH_QA, 40, 40, 3, 5, 72, 0, 0, "QA"},
      {EL_ARCH_TOKEN_CLS, 32, 16, 2, 2, 64, 5, 0, "token classifier 5 labels"},
      {EL_ARCH_PRETRAINING, 48, 24, 2, 4, 80, 0, 1, "pretraining, relative-key positions"},
      {EL_ARCH_TOKEN_CLS, 32, 16, 2, 2, 64, 5, 1, "token classifier, relative-key positions"},
  };
  const int lens[] = {7, 1, 30, 12};
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    el_model *m = make_model(models[i].arch, models[i].H, models[i].E, models[i].L, models[i].nh,
                             models[i].I, 97, 40, models[i].labels, models[i].relative);
    batch_buf bb;
    make_batch(&bb, &m->cfg, lens, 4);
    el_batch b = {bb.n_seqs, bb.len, bb.ids, bb.types};
    el_workspace *ws = NULL;
    el_error err = {0};
    CHECK(el_workspace_new(m, 64, 4, &ws, &err) == EL_OK, "%s: workspace", models[i].name);
    size_t nh = (size_t)bb.T * m->cfg.hidden_size;
    size_t no = (size_t)bb.T * 97 * 2 + 64;
    float *h = malloc(sizeof(float) * nh), *hr = malloc(sizeof(float) * nh);
    float *o[2] = {malloc(sizeof(float) * no), malloc(sizeof(float) * no)};
    float *r[2] = {malloc(sizeof(float) * no), malloc(sizeof(float) * no)};
    int rc = el_run_hidden(m, ws, &b, h, &err);
    naive_hidden(m, &b, bb.T, hr);
    CHECK(rc == EL_OK && max_abs_diff(h, hr, nh) <= 1e-4,
          "%s: hidden states match the naive-op forward (%.3g)", models[i].name,
          max_abs_diff(h, hr, nh));
    rc = run_head(m, ws, &b, bb.pos, bb.n_pos, o[0], o[1], &err);
    naive_head(m, &b, bb.T, hr, bb.pos, bb.n_pos, r[0], r[1]);
    size_t n0 = m->cfg.arch == EL_ARCH_SEQ_CLS     ? (size_t)4 * m->cfg.num_labels
                : m->cfg.arch == EL_ARCH_MASKED_LM ? (size_t)bb.n_pos * 97
                : m->cfg.arch == EL_ARCH_TOKEN_CLS ? (size_t)bb.T * m->cfg.num_labels
                                                   : (size_t)bb.T;
    double d = max_abs_diff(o[0], r[0], n0);
    if (m->cfg.arch == EL_ARCH_QA) d = fmax(d, max_abs_diff(o[1], r[1], (size_t)bb.T));
    CHECK(rc == EL_OK && d <= 1e-4, "%s: head output matches the naive-op head (%.3g)",
          models[i].name, d);
    /* Again in chunks of <= 10 tokens ({7,1}, {30}, {12}): same results. */
    ws->chunk_tokens = 10;
    rc = el_run_hidden(m, ws, &b, h, &err);
    CHECK(rc == EL_OK && max_abs_diff(h, hr, nh) <= 1e-4,
          "%s: hidden states in 3 chunks match the naive-op forward (%.3g)", models[i].name,
          max_abs_diff(h, hr, nh));
    rc = run_head(m, ws, &b, bb.pos, bb.n_pos, o[0], o[1], &err);
    d = max_abs_diff(o[0], r[0], n0);
    if (m->cfg.arch == EL_ARCH_QA) d = fmax(d, max_abs_diff(o[1], r[1], (size_t)bb.T));
    CHECK(rc == EL_OK && d <= 1e-4, "%s: head output in 3 chunks matches (%.3g)", models[i].name,
          d);
    free(h), free(hr), free(o[0]), free(o[1]), free(r[0]), free(r[1]);
    el_workspace_free(ws);
    el_model_free(m);
  }
}

/* ---- refusals ---- */
static void expect(int rc, int code, const el_error *err, const char *word, const char *what) {
  CHECK(rc == code && strstr(err->msg, word) != NULL, "%s -> %s, message names \"%s\" (%s: %s)",
        what, el_status_name(code), word, el_status_name(rc), err->msg);
}

static void test_refusals(void) {
  el_model *m = make_model(EL_ARCH_PRETRAINING, 32, 16, 1, 2, 48, 50, 20, 0, 0);
  el_model *other = make_model(EL_ARCH_PRETRAINING, 64, 16, 1, 2, 48, 50, 20, 0, 0);
  el_workspace *ws = NULL;
  el_error err = {0};
  int rc = el_workspace_new(m, 0, 1, &ws, &err);
  expect(rc, EL_EINVAL, &err, "max_tokens", "workspace with max_tokens 0");
  CHECK(ws == NULL, "no workspace returned on failure");
  rc = el_workspace_new(m, 10, 0, &ws, &err);
  expect(rc, EL_EINVAL, &err, "max_seqs", "workspace with max_seqs 0");
  rc = el_workspace_new(NULL, 10, 1, &ws, &err);
  expect(rc, EL_EINVAL, &err, "NULL", "workspace without a model");
  CHECK(el_workspace_new(m, 30, 3, &ws, &err) == EL_OK, "workspace for 30 tokens, 3 sequences");
  el_workspace_free(NULL); /* allowed */

  int len[4] = {10, 10, 5, 3}, ids[40] = {0}, types[40] = {0};
  for (int i = 0; i < 40; i++) ids[i] = i % 50;
  float out[64], ref[64];
  el_batch good = {3, len, ids, types};
  CHECK(el_run_replaced(m, ws, &good, ref, &err) == EL_OK, "a valid batch runs");

  el_batch b = good;
  b.n_seqs = 4;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_ETOOLONG, &err, "sequences",
         "4 sequences > max_seqs 3");
  b = good;
  len[0] = 21;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_ETOOLONG, &err, "max_position_embeddings",
         "sequence longer than max_position_embeddings");
  len[0] = 18;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_ETOOLONG, &err, "workspace",
         "33 tokens > max_tokens 30");
  len[0] = 0;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_EINVAL, &err, "length 0", "empty sequence");
  len[0] = 10;
  b.n_seqs = 0;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_EINVAL, &err, "0 sequences", "empty batch");
  b = good;
  ids[12] = 50;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_EINVAL, &err, "position 2", "id == vocab_size");
  ids[12] = -1;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_EINVAL, &err, "id -1", "negative id");
  ids[12] = 12;
  types[24] = 2;
  expect(el_run_replaced(m, ws, &b, out, &err), EL_EINVAL, &err, "type id 2",
         "type id == type_vocab_size");
  types[24] = 0;
  expect(el_run_replaced(m, ws, &b, NULL, &err), EL_EINVAL, &err, "NULL", "NULL output");
  expect(el_run_classify(m, ws, &b, out, &err), EL_EINVAL, &err, "ElectraForPreTraining",
         "classify on a pretraining model");
  expect(el_run_qa(m, ws, &b, out, out, &err), EL_EINVAL, &err, "ElectraForQuestionAnswering",
         "qa on a pretraining model");
  int pos[1] = {0};
  expect(el_run_mlm(m, ws, &b, pos, 1, out, &err), EL_EINVAL, &err, "ElectraForMaskedLM",
         "mlm on a pretraining model");
  expect(el_run_token_classify(m, ws, &b, out, &err), EL_EINVAL, &err,
         "ElectraForTokenClassification", "token classify on a pretraining model");
  expect(el_run_hidden(other, ws, &b, out, &err), EL_EINVAL, &err, "workspace",
         "workspace of another model shape");
  expect(el_run_hidden(m, NULL, &b, out, &err), EL_EINVAL, &err, "NULL", "NULL workspace");

  CHECK(el_run_replaced(m, ws, &good, out, &err) == EL_OK && !memcmp(out, ref, sizeof(float) * 25),
        "after the refusals the workspace gives the same result");
  b = good;
  b.type_ids = NULL;
  for (int i = 0; i < 25; i++) types[i] = 0;
  float out0[64];
  CHECK(el_run_replaced(m, ws, &b, out0, &err) == EL_OK &&
            el_run_replaced(m, ws, &good, out, &err) == EL_OK &&
            !memcmp(out, out0, sizeof(float) * 25),
        "type_ids NULL == all zero type ids");
  el_workspace_free(ws);

  /* MLM positions */
  el_model *g = make_model(EL_ARCH_MASKED_LM, 32, 16, 1, 2, 48, 50, 20, 0, 0);
  CHECK(el_workspace_new(g, 30, 3, &ws, &err) == EL_OK, "MLM workspace");
  float *lg = malloc(sizeof(float) * 50 * 31);
  int p2[2] = {3, 25};
  expect(el_run_mlm(g, ws, &good, p2, 2, lg, &err), EL_EINVAL, &err, "position 1 is 25",
         "MLM position past the batch's 25 tokens");
  p2[1] = -1;
  expect(el_run_mlm(g, ws, &good, p2, 2, lg, &err), EL_EINVAL, &err, "outside",
         "negative MLM position");
  expect(el_run_mlm(g, ws, &good, p2, 31, lg, &err), EL_ETOOLONG, &err, "positions",
         "31 positions > 30");
  CHECK(el_run_mlm(g, ws, &good, NULL, 0, NULL, &err) == EL_OK, "MLM with no positions is a no-op");
  p2[1] = 24;
  CHECK(el_run_mlm(g, ws, &good, p2, 2, lg, &err) == EL_OK && isfinite(lg[0]) && isfinite(lg[99]),
        "MLM at the last token runs");
  free(lg);
  el_workspace_free(ws);
  el_model_free(g);
  el_model_free(other);
  el_model_free(m);
}

/* ---- one model, many threads ---- */
enum { N_THREADS = 4, N_BATCHES = 3, N_ROUNDS = 6 };
typedef struct {
  const el_model *m;
  batch_buf *batches;
  float (*expect)[512];
  int failures, errors;
} thread_arg;

static void *worker(void *p) {
  thread_arg *a = p;
  el_workspace *ws = NULL;
  el_error err = {0};
  if (el_workspace_new(a->m, 128, 8, &ws, &err)) {
    a->errors++;
    return NULL;
  }
  float out[512];
  for (int r = 0; r < N_ROUNDS; r++)
    for (int i = 0; i < N_BATCHES; i++) {
      batch_buf *bb = &a->batches[(i + r) % N_BATCHES];
      el_batch b = {bb->n_seqs, bb->len, bb->ids, bb->types};
      if (el_run_replaced(a->m, ws, &b, out, &err))
        a->errors++;
      else if (memcmp(out, a->expect[(i + r) % N_BATCHES], sizeof(float) * (size_t)bb->T))
        a->failures++;
    }
  el_workspace_free(ws);
  return NULL;
}

static void test_threads(void) {
  el_model *m = make_model(EL_ARCH_PRETRAINING, 64, 32, 2, 4, 128, 300, 128, 0, 0);
  batch_buf batches[N_BATCHES];
  static float expect_out[N_BATCHES][512];
  const int l0[] = {100}, l1[] = {5, 60, 1, 33}, l2[] = {128};
  make_batch(&batches[0], &m->cfg, l0, 1);
  make_batch(&batches[1], &m->cfg, l1, 4);
  make_batch(&batches[2], &m->cfg, l2, 1);
  el_workspace *ws = NULL;
  el_error err = {0};
  el_workspace_new(m, 128, 8, &ws, &err);
  for (int i = 0; i < N_BATCHES; i++) {
    el_batch b = {batches[i].n_seqs, batches[i].len, batches[i].ids, batches[i].types};
    el_run_replaced(m, ws, &b, expect_out[i], &err);
  }
  el_workspace_free(ws);
  pthread_t th[N_THREADS];
  thread_arg args[N_THREADS];
  for (int t = 0; t < N_THREADS; t++) {
    args[t] = (thread_arg){m, batches, expect_out, 0, 0};
    pthread_create(&th[t], NULL, worker, &args[t]);
  }
  int fails = 0, errs = 0;
  for (int t = 0; t < N_THREADS; t++) {
    pthread_join(th[t], NULL);
    fails += args[t].failures, errs += args[t].errors;
  }
  CHECK(errs == 0 && fails == 0,
        "%d threads sharing one model, own workspaces: %d runs bit-identical to one thread "
        "(%d differ, %d errors)",
        N_THREADS, N_THREADS * N_ROUNDS * N_BATCHES, fails, errs);
  el_model_free(m);
}

static void test_threads_api(void) {
  el_set_threads(1);
  CHECK(el_get_threads() == 1, "el_set_threads(1) -> el_get_threads() == 1");
  el_set_threads(0);
  int q = el_cpu_quota();
  CHECK(el_get_threads() == q && q >= 1, "el_set_threads(0) uses the CPU quota (%d)", q);
  el_set_threads(2);
  CHECK(el_get_threads() == 2, "el_set_threads(2)");
}

int main(void) {
  test_threads_api();
  test_kernels();
  test_against_naive();
  test_refusals();
  test_threads();
  return el_test_done();
}
