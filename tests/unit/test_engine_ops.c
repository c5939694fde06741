/* Every op of nn/ops.h, two ways:
 *  1. fast vs naive reference, forward and backward (tolerance: |a-b| <=
 *     1e-5 + 1e-4 |b|, float kernels vs double-accumulating loops);
 *  2. backward (naive and fast) vs central finite differences of a scalar
 *     loss L = sum_i r_i out_i (r fixed random), evaluated in double over the
 *     float forward with step h = 1e-2 on ~30 random coordinates per tensor;
 *     tolerance |fd - grad| <= 2e-3 + 2e-2 |grad| (float forward rounding
 *     divided by h dominates).
 * Backward ops must ACCUMULATE: gradients start from a random non-zero
 * buffer and the increment is compared.
 * With bf16 products (--precision bf16, nn/matmul.h; where the CPU has
 * AVX512_BF16): dense against the naive reference on the same bf16-rounded
 * operands (the bias gradient on the fp32 ones), one block and several;
 * attention, whose probabilities are rounded inside, against the fp32
 * reference within bf16's precision (3e-2 of the values' scale). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bf16_gemm.h"
#include "matmul.h"
#include "op_fastmath.h"
#include "ops.h"
#include "rng.h"
#include "../test.h"

static el__rng R;

static float *rnd(size_t n, float scale) {
  float *x = malloc(sizeof(float) * (n ? n : 1));
  for (size_t i = 0; i < n; i++) x[i] = scale * el__rng_normal(&R);
  return x;
}
static float *dup(const float *x, size_t n) {
  float *y = malloc(sizeof(float) * (n ? n : 1));
  memcpy(y, x, sizeof(float) * n);
  return y;
}
static double dot(const float *a, const float *b, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
  return s;
}
/* max over i of |a-b| / (atol + rtol |b|); <= 1 passes */
static double worst(const float *a, const float *b, size_t n, double atol, double rtol) {
  double w = 0.0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)a[i] - b[i]) / (atol + rtol * fabs((double)b[i]));
    if (!(e <= w)) w = e; /* NaN propagates */
  }
  return w;
}
/* The fast attention returns -1 only when its bookkeeping allocation fails. */
#define ATT_OK(call) CHECK((call) == 0, "attention call at line %d returns 0", __LINE__)
#define CLOSE(a, b, n, what)                                                        \
  do {                                                                              \
    double w_ = worst((a), (b), (n), 1e-5, 1e-4);                                   \
    CHECK(w_ <= 1.0, "%s fast vs naive (worst error ratio %.3g)", (what), w_);      \
  } while (0)

/* Gradient increment: after - before. */
static float *delta(const float *after, const float *before, size_t n) {
  float *d = malloc(sizeof(float) * (n ? n : 1));
  for (size_t i = 0; i < n; i++) d[i] = after[i] - before[i];
  return d;
}

typedef double (*loss_fn)(void *ctx);

/* Central differences of loss wrt x[idx] for sampled idx; compares with grad. */
static void fd_check(const char *what, loss_fn f, void *ctx, float *x, size_t n,
                     const float *grad) {
  const float h = 1e-2f;
  double worst_e = 0.0;
  int samples = n < 30 ? (int)n : 30;
  for (int s = 0; s < samples; s++) {
    size_t i = n <= 30 ? (size_t)s : el__rng_below(&R, (uint32_t)n);
    float x0 = x[i];
    x[i] = x0 + h;
    double lp = f(ctx);
    x[i] = x0 - h;
    double lm = f(ctx);
    x[i] = x0;
    double fd = (lp - lm) / (2.0 * h);
    double e = fabs(fd - grad[i]) / (2e-3 + 2e-2 * fabs((double)grad[i]));
    if (!(e <= worst_e)) worst_e = e;
  }
  CHECK(worst_e <= 1.0, "%s backward vs finite differences (worst error ratio %.3g)", what,
        worst_e);
}

/* ---------------- dense ---------------- */
typedef struct { float *in, *w, *b, *r, *out; int N, Cin, Cout; } dense_ctx;
static double dense_loss(void *p) {
  dense_ctx *c = p;
  el__dense_forward_naive(c->out, c->in, c->w, c->b, c->N, c->Cin, c->Cout);
  return dot(c->out, c->r, (size_t)c->N * c->Cout);
}

static void test_dense(void) {
  const int N = 37, Cin = 29, Cout = 19;
  dense_ctx c = {rnd((size_t)N * Cin, 1), rnd((size_t)Cout * Cin, 0.3f), rnd(Cout, 0.5f),
                 rnd((size_t)N * Cout, 1), malloc(sizeof(float) * N * Cout), N, Cin, Cout};
  float *o1 = malloc(sizeof(float) * N * Cout), *o2 = malloc(sizeof(float) * N * Cout);
  el__dense_forward(o1, c.in, c.w, c.b, N, Cin, Cout);
  el__dense_forward_naive(o2, c.in, c.w, c.b, N, Cin, Cout);
  CLOSE(o1, o2, (size_t)N * Cout, "dense forward");
  el__dense_forward(o1, c.in, c.w, NULL, N, Cin, Cout);
  el__dense_forward_naive(o2, c.in, c.w, NULL, N, Cin, Cout);
  CLOSE(o1, o2, (size_t)N * Cout, "dense forward without bias");

  float *din0 = rnd((size_t)N * Cin, 1), *dw0 = rnd((size_t)Cout * Cin, 1), *db0 = rnd(Cout, 1);
  float *din1 = dup(din0, (size_t)N * Cin), *dw1 = dup(dw0, (size_t)Cout * Cin), *db1 = dup(db0, Cout);
  float *din2 = dup(din0, (size_t)N * Cin), *dw2 = dup(dw0, (size_t)Cout * Cin), *db2 = dup(db0, Cout);
  el__dense_backward(din1, dw1, db1, c.r, c.in, c.w, N, Cin, Cout);
  el__dense_backward_naive(din2, dw2, db2, c.r, c.in, c.w, N, Cin, Cout);
  CLOSE(din1, din2, (size_t)N * Cin, "dense backward din");
  CLOSE(dw1, dw2, (size_t)Cout * Cin, "dense backward dw");
  CLOSE(db1, db2, Cout, "dense backward db");
  float *gin = delta(din1, din0, (size_t)N * Cin), *gw = delta(dw1, dw0, (size_t)Cout * Cin),
        *gb = delta(db1, db0, Cout);
  fd_check("dense din", dense_loss, &c, c.in, (size_t)N * Cin, gin);
  fd_check("dense dw", dense_loss, &c, c.w, (size_t)Cout * Cin, gw);
  fd_check("dense db", dense_loss, &c, c.b, Cout, gb);
  /* NULL din / db are skipped, dw still accumulated */
  float *dw3 = dup(dw0, (size_t)Cout * Cin);
  el__dense_backward(NULL, dw3, NULL, c.r, c.in, c.w, N, Cin, Cout);
  CLOSE(dw3, dw2, (size_t)Cout * Cin, "dense backward dw with din/db NULL");
  free(c.in); free(c.w); free(c.b); free(c.r); free(c.out); free(o1); free(o2);
  free(din0); free(dw0); free(db0); free(din1); free(dw1); free(db1); free(din2); free(dw2);
  free(db2); free(gin); free(gw); free(gb); free(dw3);
}

/* ---------------- layernorm ---------------- */
typedef struct { float *in, *g, *b, *r, *out, *mean, *rstd; int N, C; } ln_ctx;
static double ln_loss(void *p) {
  ln_ctx *c = p;
  el__layernorm_forward_naive(c->out, c->mean, c->rstd, c->in, c->g, c->b, c->N, c->C, 1e-12f);
  return dot(c->out, c->r, (size_t)c->N * c->C);
}

static void test_layernorm(void) {
  const int N = 23, C = 70; /* C not a multiple of the 64-column blocks */
  ln_ctx c = {rnd((size_t)N * C, 2), rnd(C, 1), rnd(C, 1), rnd((size_t)N * C, 1),
              malloc(sizeof(float) * N * C), malloc(sizeof(float) * N), malloc(sizeof(float) * N),
              N, C};
  for (int i = 0; i < C; i++) c.in[i] += 5.0f; /* a row with a large mean */
  float *o1 = malloc(sizeof(float) * N * C), *m1 = malloc(sizeof(float) * N),
        *s1 = malloc(sizeof(float) * N);
  el__layernorm_forward(o1, m1, s1, c.in, c.g, c.b, N, C, 1e-12f);
  ln_loss(&c);
  CLOSE(o1, c.out, (size_t)N * C, "layernorm forward");
  CLOSE(m1, c.mean, N, "layernorm mean");
  CLOSE(s1, c.rstd, N, "layernorm rstd");
  float *dx0 = rnd((size_t)N * C, 1), *dg0 = rnd(C, 1), *db0 = rnd(C, 1);
  float *dx1 = dup(dx0, (size_t)N * C), *dg1 = dup(dg0, C), *db1 = dup(db0, C);
  float *dx2 = dup(dx0, (size_t)N * C), *dg2 = dup(dg0, C), *db2 = dup(db0, C);
  el__layernorm_backward(dx1, dg1, db1, c.r, c.in, m1, s1, c.g, N, C);
  el__layernorm_backward_naive(dx2, dg2, db2, c.r, c.in, c.mean, c.rstd, c.g, N, C);
  CLOSE(dx1, dx2, (size_t)N * C, "layernorm backward dx");
  CLOSE(dg1, dg2, C, "layernorm backward dgamma");
  CLOSE(db1, db2, C, "layernorm backward dbeta");
  float *gx = delta(dx1, dx0, (size_t)N * C), *gg = delta(dg1, dg0, C), *gb = delta(db1, db0, C);
  fd_check("layernorm dx", ln_loss, &c, c.in, (size_t)N * C, gx);
  fd_check("layernorm dgamma", ln_loss, &c, c.g, C, gg);
  fd_check("layernorm dbeta", ln_loss, &c, c.b, C, gb);
  free(c.in); free(c.g); free(c.b); free(c.r); free(c.out); free(c.mean); free(c.rstd);
  free(o1); free(m1); free(s1); free(dx0); free(dg0); free(db0); free(dx1); free(dg1);
  free(db1); free(dx2); free(dg2); free(db2); free(gx); free(gg); free(gb);
}

/* ---------------- gelu ---------------- */
typedef struct { float *in, *r, *out; size_t n; } gelu_ctx;
static double gelu_loss(void *p) {
  gelu_ctx *c = p;
  el__gelu_forward_naive(c->out, c->in, c->n);
  return dot(c->out, c->r, c->n);
}

static void test_gelu(void) {
  const size_t n = 300;
  gelu_ctx c = {rnd(n, 2.5f), rnd(n, 1), malloc(sizeof(float) * n), n};
  c.in[0] = 0.0f;
  c.in[1] = -8.0f;
  c.in[2] = 8.0f;
  float *o = malloc(sizeof(float) * n);
  el__gelu_forward(o, c.in, n);
  gelu_loss(&c);
  CLOSE(o, c.out, n, "gelu forward");
  CHECK(fabsf(o[2] - 8.0f) < 1e-6f && fabsf(o[1]) < 1e-6f && o[0] == 0.0f,
        "gelu(8) = 8, gelu(-8) = 0, gelu(0) = 0");
  float *d0 = rnd(n, 1), *d1 = dup(d0, n), *d2 = dup(d0, n);
  el__gelu_backward(d1, c.in, c.r, n);
  el__gelu_backward_naive(d2, c.in, c.r, n);
  CLOSE(d1, d2, n, "gelu backward");
  float *g = delta(d1, d0, n);
  CHECK(fabsf(g[0] - 0.5f * c.r[0]) < 1e-6f, "gelu'(0) = 0.5");
  fd_check("gelu", gelu_loss, &c, c.in, n, g);
  /* the fused recompute: activation and derivative against the naive pair */
  float *o2 = malloc(sizeof(float) * n), *gr = malloc(sizeof(float) * n), *one = dup(c.r, n);
  float *gr0 = calloc(n, sizeof(float));
  for (size_t i = 0; i < n; i++) one[i] = 1.0f;
  el__gelu_forward_grad(o2, gr, c.in, n);
  el__gelu_forward_naive(c.out, c.in, n); /* fd_check left c.out at a perturbed input */
  el__gelu_backward_naive(gr0, c.in, one, n);
  CLOSE(o2, c.out, n, "gelu forward_grad: activation");
  CLOSE(gr, gr0, n, "gelu forward_grad: derivative");
  CHECK(gr[0] == 0.5f && fabsf(gr[2] - 1.0f) < 1e-6f && fabsf(gr[1]) < 1e-6f,
        "gelu'(0) = 0.5, gelu'(8) = 1, gelu'(-8) = 0");
  free(o2); free(gr); free(one); free(gr0);
  free(c.in); free(c.r); free(c.out); free(o); free(d0); free(d1); free(d2); free(g);
}

/* ---------------- embeddings ---------------- */
static void test_embed(void) {
  const int V = 7, P = 16, Ty = 2, E = 5, n_seqs = 3;
  const int seq_len[3] = {4, 1, 6};
  const int T = 11;
  /* id 3 occurs 4 times, id 0 twice, across sequences */
  const int ids[11] = {3, 1, 3, 0, 3, 2, 3, 0, 6, 5, 4};
  const int types[11] = {0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1};
  float *word = rnd((size_t)V * E, 1), *pos = rnd((size_t)P * E, 1), *type = rnd((size_t)Ty * E, 1);
  float *out = malloc(sizeof(float) * T * E);
  el__embed_forward(out, ids, types, seq_len, n_seqs, word, pos, type, E);
  int ok = 1;
  for (int s = 0, t = 0; s < n_seqs; s++)
    for (int p = 0; p < seq_len[s]; p++, t++)
      for (int e = 0; e < E; e++)
        ok &= fabsf(out[t * E + e] - (word[ids[t] * E + e] + pos[p * E + e] + type[types[t] * E + e])) < 1e-6f;
  CHECK(ok, "embed forward: word[id] + pos[position in its sequence] + type[type id]");
  el__embed_forward(out, ids, NULL, seq_len, n_seqs, word, pos, type, E);
  CHECK(fabsf(out[2 * E] - (word[3 * E] + pos[2 * E] + type[0])) < 1e-6f,
        "embed forward: NULL type ids mean type 0");

  float *dout = rnd((size_t)T * E, 1);
  float *dw0 = rnd((size_t)V * E, 1), *dp0 = rnd((size_t)P * E, 1), *dt0 = rnd((size_t)Ty * E, 1);
  float *dw = dup(dw0, (size_t)V * E), *dp = dup(dp0, (size_t)P * E), *dt = dup(dt0, (size_t)Ty * E);
  el__embed_backward(dw, dp, dt, dout, ids, types, seq_len, n_seqs, E);
  /* reference: the gradient of sum(r . out) is a scatter-sum, written in double */
  double rw[7 * 5] = {0}, rp[16 * 5] = {0}, rt[2 * 5] = {0};
  for (int s = 0, t = 0; s < n_seqs; s++)
    for (int p = 0; p < seq_len[s]; p++, t++)
      for (int e = 0; e < E; e++) {
        rw[ids[t] * E + e] += dout[t * E + e];
        rp[p * E + e] += dout[t * E + e];
        rt[types[t] * E + e] += dout[t * E + e];
      }
  double ew = 0, ep = 0, et = 0;
  for (int i = 0; i < V * E; i++) ew = fmax(ew, fabs(dw[i] - dw0[i] - rw[i]));
  for (int i = 0; i < P * E; i++) ep = fmax(ep, fabs(dp[i] - dp0[i] - rp[i]));
  for (int i = 0; i < Ty * E; i++) et = fmax(et, fabs(dt[i] - dt0[i] - rt[i]));
  CHECK(ew < 1e-5, "embed backward: repeated ids scatter-add into the word table (max err %.2g)", ew);
  CHECK(ep < 1e-5, "embed backward: position rows restart per sequence (max err %.2g)", ep);
  CHECK(et < 1e-5, "embed backward: token-type rows (max err %.2g)", et);
  CHECK(fabs(dw[5 * E + 0] - dw0[5 * E + 0] - dout[9 * E]) < 1e-6 && rp[15 * E] == 0.0,
        "embed backward: a single-use id gets exactly its token's gradient; unused rows 0");
  free(word); free(pos); free(type); free(out); free(dout); free(dw0); free(dp0); free(dt0);
  free(dw); free(dp); free(dt);
}

/* ---------------- attention ---------------- */
typedef struct {
  float *q, *k, *v, *drop, *r, *ctx, *probs;
  const int *seq_len;
  int n_seqs, H, nh, T;
  const el__relpos *rel; /* NULL: absolute positions */
} att_ctx;
static double att_loss(void *p) {
  att_ctx *c = p;
  el__attention_forward_naive(c->ctx, c->probs, c->q, c->k, c->v, c->drop, c->seq_len, c->n_seqs,
                             c->H, c->nh, c->rel);
  return dot(c->ctx, c->r, (size_t)c->T * c->H);
}

/* relative: relative-key positions (max_pos 16 > the longest sequence, so
 * the distance rows used start past row 0 and some rows stay unused). */
static void test_attention_case(int use_drop, int relative) {
  const int seq_len[5] = {5, 1, 9, 3, 12}, n_seqs = 5, H = 12, nh = 3, T = 30, max_len = 12;
  const int max_pos = 16, dh = H / nh, n_dist = (2 * max_pos - 1) * dh;
  const size_t TH = (size_t)T * H;
  size_t np = el__attention_probs_size(seq_len, n_seqs, nh);
  CHECK(np == (size_t)nh * (25 + 1 + 81 + 9 + 144), "attention probs size = nh * sum len^2");
  float *dist = rnd((size_t)n_dist, 1), *dd1 = calloc((size_t)n_dist, sizeof(float));
  float *dd2 = calloc((size_t)n_dist, sizeof(float));
  el__relpos rel1 = {dist, dd1, max_pos}, rel2 = {dist, dd2, max_pos};
  att_ctx c = {rnd(TH, 1), rnd(TH, 1), rnd(TH, 1), NULL, rnd(TH, 1), malloc(sizeof(float) * TH),
               malloc(sizeof(float) * np), seq_len, n_seqs, H, nh, T, relative ? &rel2 : NULL};
  const el__relpos *rel = relative ? &rel1 : NULL;
  char tag[96];
  snprintf(tag, sizeof tag, "attention (%s, %s positions, packed lengths 5,1,9,3,12)",
           use_drop ? "dropout 0.3" : "no dropout", relative ? "relative-key" : "absolute");
  if (use_drop) {
    c.drop = malloc(sizeof(float) * np);
    for (size_t i = 0; i < np; i++) c.drop[i] = el__rng_uniform(&R) < 0.3f ? 0.0f : 1.0f / 0.7f;
  }
  float *scratch = malloc(sizeof(float) * el__attention_scratch_size(max_len, relative));
  float *ctx1 = malloc(sizeof(float) * TH), *p1 = malloc(sizeof(float) * np);
  ATT_OK(el__attention_forward(ctx1, p1, c.q, c.k, c.v, c.drop, seq_len, n_seqs, H, nh, rel, scratch));
  att_loss(&c);
  char buf[160];
  snprintf(buf, sizeof buf, "%s forward ctx", tag);
  CLOSE(ctx1, c.ctx, TH, buf);
  snprintf(buf, sizeof buf, "%s forward probs", tag);
  CLOSE(p1, c.probs, np, buf);
  /* each row of probs sums to 1 */
  double wr = 0.0;
  for (size_t off = 0, s = 0; s < (size_t)n_seqs; s++)
    for (int h = 0; h < nh; h++)
      for (int i = 0; i < seq_len[s]; i++, off += seq_len[s]) {
        double sum = 0.0;
        for (int j = 0; j < seq_len[s]; j++) sum += p1[off + j];
        wr = fmax(wr, fabs(sum - 1.0));
      }
  CHECK(wr < 1e-5, "%s: probability rows sum to 1 (max err %.2g)", tag, wr);
  /* isolation: changing sequence 2's keys/values leaves sequence 0 untouched */
  float *ctx_b = malloc(sizeof(float) * TH);
  float *k2 = dup(c.k, TH), *v2 = dup(c.v, TH);
  for (size_t i = 6 * (size_t)H; i < 15 * (size_t)H; i++) k2[i] += 1.0f, v2[i] -= 2.0f;
  ATT_OK(el__attention_forward(ctx_b, NULL, c.q, k2, v2, c.drop, seq_len, n_seqs, H, nh, rel, scratch));
  CHECK(!memcmp(ctx_b, ctx1, sizeof(float) * 6 * H) &&
            !memcmp(ctx_b + 15 * H, ctx1 + 15 * H, sizeof(float) * 15 * H) &&
            memcmp(ctx_b + 6 * H, ctx1 + 6 * H, sizeof(float) * 9 * H),
        "%s: sequences do not attend to each other", tag);

  float *dq0 = rnd(TH, 1), *dk0 = rnd(TH, 1), *dv0 = rnd(TH, 1);
  float *dq1 = dup(dq0, TH), *dk1 = dup(dk0, TH), *dv1 = dup(dv0, TH);
  float *dq2 = dup(dq0, TH), *dk2 = dup(dk0, TH), *dv2 = dup(dv0, TH);
  ATT_OK(el__attention_backward(dq1, dk1, dv1, c.r, p1, c.q, c.k, c.v, c.drop, seq_len, n_seqs, H, nh, rel,
                        scratch));
  el__attention_backward_naive(dq2, dk2, dv2, c.r, c.probs, c.q, c.k, c.v, c.drop, seq_len,
                              n_seqs, H, nh, c.rel);
  snprintf(buf, sizeof buf, "%s backward dq", tag);
  CLOSE(dq1, dq2, TH, buf);
  snprintf(buf, sizeof buf, "%s backward dk", tag);
  CLOSE(dk1, dk2, TH, buf);
  snprintf(buf, sizeof buf, "%s backward dv", tag);
  CLOSE(dv1, dv2, TH, buf);
  float *gq = delta(dq1, dq0, TH), *gk = delta(dk1, dk0, TH), *gv = delta(dv1, dv0, TH);
  snprintf(buf, sizeof buf, "%s dq", tag);
  fd_check(buf, att_loss, &c, c.q, TH, gq);
  snprintf(buf, sizeof buf, "%s dk", tag);
  fd_check(buf, att_loss, &c, c.k, TH, gk);
  snprintf(buf, sizeof buf, "%s dv", tag);
  fd_check(buf, att_loss, &c, c.v, TH, gv);
  if (relative) {
    snprintf(buf, sizeof buf, "%s backward: distance embedding", tag);
    CLOSE(dd1, dd2, (size_t)n_dist, buf);
    snprintf(buf, sizeof buf, "%s distance embedding", tag);
    fd_check(buf, att_loss, &c, dist, (size_t)n_dist, dd1);
    double unused = 0; /* distances beyond +-11 (the longest sequence) get no gradient */
    for (int i = 0; i < 4 * dh; i++) unused = fmax(unused, fabs(dd1[i]));
    CHECK(unused == 0.0, "%s: unused distance rows get no gradient", tag);
  }
  free(dist); free(dd1); free(dd2);
  free(c.q); free(c.k); free(c.v); free(c.drop); free(c.r); free(c.ctx); free(c.probs);
  free(scratch); free(ctx1); free(p1); free(ctx_b); free(k2); free(v2);
  free(dq0); free(dk0); free(dv0); free(dq1); free(dk1); free(dv1); free(dq2); free(dk2);
  free(dv2); free(gq); free(gk); free(gv);
}

/* ---------------- dropout ---------------- */
static void test_dropout(void) {
  float in[6] = {1, 2, 3, 4, 5, 6}, mask[6] = {0, 2, 2, 0, 2, 2}, out[6], din[6] = {1, 1, 1, 1, 1, 1};
  el__dropout_forward(out, in, mask, 6);
  CHECK(out[0] == 0 && out[1] == 4 && out[5] == 12, "dropout forward multiplies by the mask");
  el__dropout_backward(din, in, mask, 6);
  CHECK(din[0] == 1 && din[1] == 5 && din[5] == 13, "dropout backward accumulates dout * mask");
}

/* ---------------- softmax cross-entropy ---------------- */
typedef struct { float *logits, *w, *probs; const int *tg; int n, V; } sx_ctx;
static double sx_loss(void *p) {
  sx_ctx *c = p;
  return el__softmax_xent_forward(c->probs, c->logits, c->tg, c->w, c->n, c->V, NULL);
}

static void test_softmax_xent(void) {
  const int n = 6, V = 50;
  const int tg[6] = {3, 0, 49, 3, 17, 8};
  sx_ctx c = {rnd((size_t)n * V, 3), rnd(n, 1), malloc(sizeof(float) * n * V), tg, n, V};
  for (int i = 0; i < n; i++) c.w[i] = i == 4 ? 0.0f : fabsf(c.w[i]);
  c.w[1] = 1.0f;
  c.logits[0 * V + 3] = 20.0f;  /* row 0: argmax is the target */
  c.logits[1 * V + 7] = 1000.0f; /* row 1: huge logit elsewhere, must stay finite */
  int correct = -1;
  double loss = el__softmax_xent_forward(c.probs, c.logits, tg, c.w, n, V, &correct);
  double ref = 0.0;
  int ref_hits = 0;
  for (int i = 0; i < n; i++) {
    const float *x = c.logits + (size_t)i * V;
    double mx = x[0];
    int arg = 0;
    for (int j = 1; j < V; j++)
      if (x[j] > mx) mx = x[j], arg = j;
    double s = 0.0;
    for (int j = 0; j < V; j++) s += exp(x[j] - mx);
    ref += c.w[i] * (mx + log(s) - x[tg[i]]);
    ref_hits += c.w[i] > 0 && arg == tg[i];
  }
  CHECK_NEAR(loss, ref, 1e-6, 1e-6, "softmax xent loss = sum w (logsumexp - logit[target])");
  CHECK(isfinite(loss) && loss > 900.0, "softmax xent with a 1000 logit stays finite (%g)", loss);
  CHECK(correct == ref_hits && correct >= 1, "softmax xent correct count (%d, expected %d)",
        correct, ref_hits);
  /* probs may alias logits */
  float *al = dup(c.logits, (size_t)n * V);
  double l2 = el__softmax_xent_forward(al, al, tg, c.w, n, V, NULL);
  CHECK(l2 == loss && !memcmp(al, c.probs, sizeof(float) * n * V),
        "softmax xent: probs may alias logits");
  float *d = rnd((size_t)n * V, 1), *d0 = dup(d, (size_t)n * V);
  el__softmax_xent_backward(d, c.probs, tg, c.w, 0.7f, n, V);
  float *g = delta(d, d0, (size_t)n * V);
  int zero_row = 1;
  for (int j = 0; j < V; j++) zero_row &= g[4 * V + j] == 0.0f;
  CHECK(zero_row, "softmax xent: a weight-0 row gets no gradient");
  for (size_t i = 0; i < (size_t)n * V; i++) g[i] /= 0.7f;
  /* row 1 saturates (p = 1 at a 1000 logit): finite differences of float
   * logsumexp are meaningless there, so check rows 2..5 only */
  sx_ctx c2 = c;
  c2.logits += 2 * V, c2.w += 2, c2.tg += 2, c2.n = n - 2;
  fd_check("softmax xent", sx_loss, &c2, c2.logits, (size_t)(n - 2) * V, g + 2 * V);
  free(c.logits); free(c.w); free(c.probs); free(d); free(d0); free(g); free(al);
}

/* ---------------- sigmoid cross-entropy ---------------- */
typedef struct { float *x, *y, *w; int n; } bx_ctx;
static double bx_loss(void *p) {
  bx_ctx *c = p;
  return el__sigmoid_xent_forward(c->x, c->y, c->w, c->n);
}

static void test_sigmoid_xent(void) {
  const int n = 40;
  bx_ctx c = {rnd(n, 3), malloc(sizeof(float) * n), rnd(n, 1), n};
  for (int i = 0; i < n; i++) c.y[i] = (float)(i % 3 == 0), c.w[i] = fabsf(c.w[i]);
  double loss = el__sigmoid_xent_forward(c.x, c.y, c.w, n), ref = 0.0;
  for (int i = 0; i < n; i++) {
    double p = 1.0 / (1.0 + exp(-(double)c.x[i]));
    ref += c.w[i] * -(c.y[i] * log(p) + (1 - c.y[i]) * log(1 - p));
  }
  CHECK_NEAR(loss, ref, 1e-9, 1e-6, "sigmoid xent = sum w BCE(sigmoid(x), y)");
  float big[4] = {100.0f, -100.0f, 100.0f, -100.0f}, lab[4] = {0, 1, 1, 0};
  double lb = el__sigmoid_xent_forward(big, lab, NULL, 4);
  CHECK_NEAR(lb, 200.0, 1e-6, 1e-9, "sigmoid xent stable at |x| = 100 (confident wrong = 100 each)");
  float *d = rnd(n, 1), *d0 = dup(d, n);
  el__sigmoid_xent_backward(d, c.x, c.y, c.w, 1.0f, n);
  float *g = delta(d, d0, n);
  fd_check("sigmoid xent", bx_loss, &c, c.x, n, g);
  float dbig[4] = {0};
  el__sigmoid_xent_backward(dbig, big, lab, NULL, 0.5f, 4);
  CHECK(fabsf(dbig[0] - 0.5f) < 1e-6f && fabsf(dbig[1] + 0.5f) < 1e-6f && fabsf(dbig[2]) < 1e-6f,
        "sigmoid xent backward = scale (sigmoid(x) - y)");
  free(c.x); free(c.y); free(c.w); free(d); free(d0); free(g);
}

/* The trainer's in-place mode of both losses' backward: the gradient written
 * over the buffer it is computed from equals the accumulating form from 0. */
static void test_xent_in_place(void) {
  const int n = 5, V = 40, T = 30;
  const int tg[5] = {1, 39, 0, 7, 7};
  float *lg = rnd((size_t)n * V, 2), *pr = malloc(sizeof(float) * n * V);
  float *w = rnd(n, 1);
  for (int i = 0; i < n; i++) w[i] = i == 2 ? 0.0f : fabsf(w[i]);
  el__softmax_xent_forward(pr, lg, tg, w, n, V, NULL);
  float *acc = calloc((size_t)n * V, sizeof(float)), *inpl = dup(pr, (size_t)n * V);
  el__softmax_xent_backward(acc, pr, tg, w, 0.3f, n, V);
  el__softmax_xent_backward(inpl, inpl, tg, w, 0.3f, n, V);
  CHECK(!memcmp(acc, inpl, sizeof(float) * n * V),
        "softmax xent backward in place (dlogits == probs) = accumulating from 0, bit for bit");
  float *x = rnd(T, 3), *y = malloc(sizeof(float) * T), *bw = malloc(sizeof(float) * T);
  for (int t = 0; t < T; t++) y[t] = (float)(t % 4 == 1), bw[t] = (float)(t % 5 != 0);
  float *bacc = calloc(T, sizeof(float)), *binpl = dup(x, T);
  el__sigmoid_xent_backward(bacc, x, y, bw, 1.7f, T);
  el__sigmoid_xent_backward(binpl, binpl, y, bw, 1.7f, T);
  CHECK(!memcmp(bacc, binpl, sizeof(float) * T),
        "sigmoid xent backward in place (dlogits == logits) = accumulating from 0, bit for bit");
  free(lg); free(pr); free(w); free(acc); free(inpl); free(x); free(y); free(bw); free(bacc);
  free(binpl);
}

/* ---------------- the fine-tuning heads' losses (op_loss_head.c) ---------------- */
typedef struct { float *x; int n, stride, target; double w; } seg_ctx;
static double seg_loss(void *p) {
  const seg_ctx *c = p;
  double s = 0.0;
  el__seg_xent_forward(&s, c->x, c->n, c->stride, c->target, c->w);
  return s;
}

static void test_seg_xent(void) {
  const int n = 13, stride = 2, target = 4; /* a QA window's start column */
  seg_ctx c = {rnd((size_t)n * stride, 2), n, stride, target, 0.5};
  double s = 1.25, naive = 0.0; /* the forward adds into *sum */
  el__seg_xent_forward(&s, c.x, n, stride, target, c.w);
  for (int k = 0; k < n; k++) naive += exp((double)c.x[k * stride]);
  naive = c.w * (log(naive) - c.x[target * stride]);
  CHECK_NEAR(s - 1.25, naive, 1e-12, 1e-12, "segment xent = w (log sum exp - x[target]) at stride 2");
  float big[3] = {1000.0f, 0.0f, -1000.0f};
  double sb = 0.0;
  el__seg_xent_forward(&sb, big, 3, 1, 2, 1.0);
  CHECK_NEAR(sb, 2000.0, 1e-9, 1e-12, "segment xent stable at logits of +-1000");
  float *d = rnd((size_t)n * stride, 1), *d0 = dup(d, (size_t)n * stride);
  el__seg_xent_backward(d, c.x, n, stride, target, c.w, 4.0);
  float *g = delta(d, d0, (size_t)n * stride);
  int off = 1;
  for (int k = 0; k < n; k++) off &= g[k * stride + 1] == 0.0f;
  CHECK(off, "segment xent backward leaves the other column alone");
  for (size_t i = 0; i < (size_t)n * stride; i++) g[i] *= 4.0f; /* undo the divisor */
  fd_check("segment xent", seg_loss, &c, c.x, (size_t)n * stride, g);
  free(c.x); free(d); free(d0); free(g);
}

typedef struct { float *x, *y; int n; } sq_ctx;
static double sq_loss(void *p) {
  const sq_ctx *c = p;
  double s = 0.0;
  el__sq_err_forward(&s, c->x, c->y, c->n);
  return s;
}

static void test_sq_err(void) {
  const int n = 9;
  sq_ctx c = {rnd(n, 2), rnd(n, 2), n};
  double s = 0.0, naive = 0.0;
  el__sq_err_forward(&s, c.x, c.y, n);
  for (int i = 0; i < n; i++) naive += pow((double)c.x[i] - c.y[i], 2);
  CHECK_NEAR(s, naive, 1e-12, 1e-12, "squared error = sum (x - y)^2");
  float *d = rnd(n, 1), *d0 = dup(d, n);
  el__sq_err_backward(d, c.x, c.y, n, 1.0);
  float *g = delta(d, d0, n);
  fd_check("squared error", sq_loss, &c, c.x, n, g);
  free(c.x); free(c.y); free(d); free(d0); free(g);
}

typedef struct { float *x; signed char *y; int n; } lx_ctx;
static double lx_loss(void *p) {
  const lx_ctx *c = p;
  double s = 0.0;
  el__label_xent_forward(&s, c->x, c->y, c->n);
  return s;
}

static void test_label_xent(void) {
  const int n = 24;
  lx_ctx c = {rnd(n, 3), malloc(n), n};
  for (int i = 0; i < n; i++) c.y[i] = (signed char)(i % 3 == 2 ? -1 : i % 2);
  double s = 0.0, naive = 0.0;
  el__label_xent_forward(&s, c.x, c.y, n);
  for (int i = 0; i < n; i++) {
    if (c.y[i] < 0) continue;
    const double p = 1.0 / (1.0 + exp(-(double)c.x[i]));
    naive += -(c.y[i] * log(p) + (1 - c.y[i]) * log(1 - p));
  }
  CHECK_NEAR(s, naive, 1e-9, 1e-9, "label xent = sum of BCE(sigmoid(x), y) over the labelled");
  float big[2] = {100.0f, -100.0f};
  signed char lab[2] = {0, 1};
  double sb = 0.0;
  el__label_xent_forward(&sb, big, lab, 2);
  CHECK_NEAR(sb, 200.0, 1e-9, 1e-12, "label xent stable at |x| = 100");
  float *d = rnd(n, 1), *d0 = dup(d, n);
  el__label_xent_backward(d, c.x, c.y, n, 1.0);
  float *g = delta(d, d0, n);
  int unl = 1;
  for (int i = 0; i < n; i++) unl &= c.y[i] >= 0 || g[i] == 0.0f;
  CHECK(unl, "label xent: an unlabelled token (label -1) gets no gradient");
  fd_check("label xent", lx_loss, &c, c.x, n, g);
  free(c.x); free(c.y); free(d); free(d0); free(g);
}

/* ---------------- fast math (op_fastmath.h) ---------------- */
static void test_fastmath(void) {
  double we = 0, wl = 0, wf = 0, wg = 0, wga = 0;
  for (int i = 0; i <= 200000; i++) {
    const float x = -87.0f + 175.0f * (float)i / 200000.0f;
    we = fmax(we, fabs(el__expf(x) - exp((double)x)) / exp((double)x));
    const float y = expf(-20.0f + 35.0f * (float)i / 200000.0f); /* 2e-9 .. 3e6 */
    const double ly = log((double)y);
    wl = fmax(wl, fabs(el__logf(y) - ly) / fmax(fabs(ly), 1e-3));
    const float z = -6.0f + 12.0f * (float)i / 200000.0f;
    wf = fmax(wf, fabs(el__erff(z) - erf((double)z)));
    const double gz = 0.5 * z * erfc(-z / sqrt(2.0)); /* GELU, no cancellation in the left tail */
    wg = fmax(wg, fabs(el__geluf(z) - gz) / fmax(fabs(gz), 1e-2));
    wga = fmax(wga, fabs(el__geluf(z) - gz));
  }
  CHECK(we < 3e-7, "fast exp on [-87, 88]: max relative error %.2g < 3e-7", we);
  CHECK(wl < 3e-7, "fast log on [2e-9, 3e6]: max error %.2g < 3e-7 (relative, absolute near 1)", wl);
  CHECK(wf < 4e-7, "fast erf on [-6, 6]: max absolute error %.2g < 4e-7", wf);
  CHECK(wga < 2e-6 && wg < 1e-4,
        "fast GELU on [-6, 6]: max absolute error %.2g < 2e-6, relative %.2g < 1e-4 where |GELU| >= 0.01",
        wga, wg);
  CHECK(el__erff(10.0f) == 1.0f || fabsf(el__erff(10.0f) - 1.0f) < 1e-7f, "erf saturates: erf(10) = 1");
  CHECK(el__logf(1.0f) == 0.0f && el__expf(0.0f) == 1.0f, "exp(0) = 1, log(1) = 0 exactly");
  /* the log's range reduction switches at mantissa sqrt(2) (bit arithmetic, no select): every
   * float within 64 ulps of sqrt(2) 2^k and of 2^k, for k = -30..30 */
  double wb = 0;
  for (int k = -30; k <= 30; k++)
    for (int c = 0; c < 2; c++) {
      float x = ldexpf(c ? 1.41421356f : 1.0f, k);
      for (int u = 0; u < 64; u++) x = nextafterf(x, 0.0f);
      for (int u = 0; u < 128; u++, x = nextafterf(x, INFINITY)) {
        const double lx = log((double)x);
        wb = fmax(wb, fabs(el__logf(x) - lx) / fmax(fabs(lx), 1e-3));
      }
    }
  CHECK(wb < 3e-7, "fast log around its range-reduction seams: max error %.2g < 3e-7", wb);
}

/* Sizes past the ops' parallel thresholds: the blocked/team paths vs naive. */
static void test_large_paths(void) {
  const int N = 1100, Cin = 70, Cout = 300; /* 2 row blocks of 1024, 2 dW blocks of 256 */
  float *in = rnd((size_t)N * Cin, 1), *w = rnd((size_t)Cout * Cin, 0.3f), *b = rnd(Cout, 1);
  float *o1 = malloc(sizeof(float) * N * Cout), *o2 = malloc(sizeof(float) * N * Cout);
  el__dense_forward(o1, in, w, b, N, Cin, Cout);
  el__dense_forward_naive(o2, in, w, b, N, Cin, Cout);
  CLOSE(o1, o2, (size_t)N * Cout, "dense forward 1100x70->300 (row blocks)");
  float *d = rnd((size_t)N * Cout, 1);
  float *di1 = calloc((size_t)N * Cin, 4), *di2 = calloc((size_t)N * Cin, 4);
  float *dw1 = calloc((size_t)Cout * Cin, 4), *dw2 = calloc((size_t)Cout * Cin, 4);
  float *db1 = calloc(Cout, 4), *db2 = calloc(Cout, 4);
  el__dense_backward(di1, dw1, db1, d, in, w, N, Cin, Cout);
  el__dense_backward_naive(di2, dw2, db2, d, in, w, N, Cin, Cout);
  CLOSE(di1, di2, (size_t)N * Cin, "dense backward din (blocks)");
  { /* dW sums 1100 products of N(0,1) values (magnitude ~33): float rounding
     * of such a sum reaches ~1e-5 absolute, so atol is 1e-4 here */
    double w_ = worst(dw1, dw2, (size_t)Cout * Cin, 1e-4, 1e-4);
    CHECK(w_ <= 1.0, "dense backward dw (blocks, K = 1100) fast vs naive (worst ratio %.3g, atol 1e-4)", w_);
  }
  CLOSE(db1, db2, Cout, "dense backward db (blocks)");
  /* wide output: column blocks (the generator's vocabulary logits) */
  const int Nw = 24, Cw = 3000, Kw = 40;
  float *iw = rnd((size_t)Nw * Kw, 1), *ww = rnd((size_t)Cw * Kw, 0.3f), *bw = rnd(Cw, 1);
  float *ow1 = malloc(sizeof(float) * Nw * Cw), *ow2 = malloc(sizeof(float) * Nw * Cw);
  el__dense_forward(ow1, iw, ww, bw, Nw, Kw, Cw);
  el__dense_forward_naive(ow2, iw, ww, bw, Nw, Kw, Cw);
  CLOSE(ow1, ow2, (size_t)Nw * Cw, "dense forward 24x40->3000 (column blocks)");
  free(in); free(w); free(b); free(o1); free(o2); free(d); free(di1); free(di2); free(dw1);
  free(dw2); free(db1); free(db2); free(iw); free(ww); free(bw); free(ow1); free(ow2);

  const int seq_len[3] = {64, 37, 100}, n_seqs = 3, H = 32, nh = 4, T = 201;
  const size_t TH = (size_t)T * H, np = el__attention_probs_size(seq_len, n_seqs, nh);
  float *q = rnd(TH, 1), *k = rnd(TH, 1), *v = rnd(TH, 1), *dc = rnd(TH, 1);
  float *drop = malloc(sizeof(float) * np);
  for (size_t i = 0; i < np; i++) drop[i] = el__rng_uniform(&R) < 0.1f ? 0.0f : 1.0f / 0.9f;
  float *c1 = malloc(sizeof(float) * TH), *c2 = malloc(sizeof(float) * TH);
  float *p1 = malloc(sizeof(float) * np), *p2 = malloc(sizeof(float) * np);
  float *scratch = malloc(sizeof(float) * el__attention_scratch_size(100, 1));
  ATT_OK(el__attention_forward(c1, p1, q, k, v, drop, seq_len, n_seqs, H, nh, NULL, scratch));
  el__attention_forward_naive(c2, p2, q, k, v, drop, seq_len, n_seqs, H, nh, NULL);
  CLOSE(c1, c2, TH, "attention forward, lengths 64,37,100 (team path)");
  CLOSE(p1, p2, np, "attention probs (team path)");
  float *g1[3], *g2[3];
  for (int j = 0; j < 3; j++) g1[j] = calloc(TH, 4), g2[j] = calloc(TH, 4);
  ATT_OK(el__attention_backward(g1[0], g1[1], g1[2], dc, p1, q, k, v, drop, seq_len, n_seqs, H, nh, NULL, scratch));
  el__attention_backward_naive(g2[0], g2[1], g2[2], dc, p2, q, k, v, drop, seq_len, n_seqs, H, nh, NULL);
  CLOSE(g1[0], g2[0], TH, "attention backward dq (team path)");
  CLOSE(g1[1], g2[1], TH, "attention backward dk (team path)");
  CLOSE(g1[2], g2[2], TH, "attention backward dv (team path)");
  ATT_OK(el__attention_forward(c1, NULL, q, k, v, NULL, seq_len, n_seqs, H, nh, NULL, scratch));
  el__attention_forward_naive(c2, NULL, q, k, v, NULL, seq_len, n_seqs, H, nh, NULL);
  CLOSE(c1, c2, TH, "attention forward without saved probs (inference)");
  { /* relative-key positions on the team path: per-task distance gradients summed in order */
    const int max_pos = 128, nd = (2 * max_pos - 1) * (H / nh);
    float *dist = rnd((size_t)nd, 1), *dd1 = calloc((size_t)nd, 4), *dd2 = calloc((size_t)nd, 4);
    el__relpos r1 = {dist, dd1, max_pos}, r2 = {dist, dd2, max_pos};
    ATT_OK(el__attention_forward(c1, p1, q, k, v, drop, seq_len, n_seqs, H, nh, &r1, scratch));
    el__attention_forward_naive(c2, p2, q, k, v, drop, seq_len, n_seqs, H, nh, &r2);
    CLOSE(c1, c2, TH, "relative-key attention forward (team path)");
    for (int j = 0; j < 3; j++) memset(g1[j], 0, TH * 4), memset(g2[j], 0, TH * 4);
    ATT_OK(el__attention_backward(g1[0], g1[1], g1[2], dc, p1, q, k, v, drop, seq_len, n_seqs, H, nh, &r1,
                           scratch));
    el__attention_backward_naive(g2[0], g2[1], g2[2], dc, p2, q, k, v, drop, seq_len, n_seqs, H,
                                 nh, &r2);
    CLOSE(g1[0], g2[0], TH, "relative-key attention backward dq (team path)");
    CLOSE(g1[1], g2[1], TH, "relative-key attention backward dk (team path)");
    CLOSE(dd1, dd2, (size_t)nd, "relative-key attention backward: distance embedding (team path)");
    free(dist); free(dd1); free(dd2);
  }
  free(q); free(k); free(v); free(dc); free(drop); free(c1); free(c2); free(p1); free(p2);
  free(scratch);
  for (int j = 0; j < 3; j++) free(g1[j]), free(g2[j]);
}

/* ---------------- bf16 products ---------------- */
static float *rounded(const float *x, size_t n) {
  float *y = malloc(sizeof(float) * (n ? n : 1));
  for (size_t i = 0; i < n; i++) {
    const uint32_t u = (uint32_t)el__bf16_round(x[i]) << 16;
    memcpy(&y[i], &u, 4);
  }
  return y;
}

/* fp32 sums of K terms in another order: 1e-6 K absolute (the terms are
 * O(1)), 1e-4 relative */
#define CLOSE_SUM(a, b, n, K, what)                                                 \
  do {                                                                              \
    double w_ = worst((a), (b), (n), 1e-6 * (K), 1e-4);                             \
    CHECK(w_ <= 1.0, "%s fast vs naive (worst error ratio %.3g)", (what), w_);      \
  } while (0)

static void bf16_dense_case(int N, int Cin, int Cout) {
  char what[96];
  const size_t ni = (size_t)N * Cin, nw = (size_t)Cout * Cin, no = (size_t)N * Cout;
  float *in = rnd(ni, 1), *w = rnd(nw, 0.3f), *b = rnd(Cout, 0.5f), *dout = rnd(no, 1);
  float *in_r = rounded(in, ni), *w_r = rounded(w, nw), *dout_r = rounded(dout, no);
  float *o1 = malloc(sizeof(float) * no), *o2 = malloc(sizeof(float) * no);
  el__dense_forward(o1, in, w, b, N, Cin, Cout);
  el__dense_forward_naive(o2, in_r, w_r, b, N, Cin, Cout);
  snprintf(what, sizeof what, "bf16 dense forward %d x %d -> %d", N, Cin, Cout);
  CLOSE_SUM(o1, o2, no, Cin, what);
  float *din0 = rnd(ni, 1), *dw0 = rnd(nw, 1), *db0 = rnd(Cout, 1);
  float *din1 = dup(din0, ni), *dw1 = dup(dw0, nw), *db1 = dup(db0, Cout);
  float *din2 = dup(din0, ni), *dw2 = dup(dw0, nw), *db2 = dup(db0, Cout);
  el__dense_backward(din1, dw1, db1, dout, in, w, N, Cin, Cout);
  el__dense_backward_naive(din2, dw2, NULL, dout_r, in_r, w_r, N, Cin, Cout);
  el__dense_backward_naive(NULL, NULL, db2, dout, in, w, N, Cin, Cout);
  snprintf(what, sizeof what, "bf16 dense backward din %d x %d -> %d", N, Cin, Cout);
  CLOSE_SUM(din1, din2, ni, Cout, what);
  snprintf(what, sizeof what, "bf16 dense backward dw %d x %d -> %d", N, Cin, Cout);
  CLOSE_SUM(dw1, dw2, nw, N, what);
  snprintf(what, sizeof what, "bf16 dense backward db (fp32 sums) %d x %d -> %d", N, Cin, Cout);
  CLOSE_SUM(db1, db2, Cout, N, what);
  free(in); free(w); free(b); free(dout); free(in_r); free(w_r); free(dout_r); free(o1); free(o2);
  free(din0); free(dw0); free(db0); free(din1); free(dw1); free(db1); free(din2); free(dw2);
  free(db2);
}

static void bf16_attention(void) {
  const int seq_len[3] = {5, 17, 12}, n_seqs = 3, H = 32, nh = 2, T = 34, max_pos = 24;
  const size_t TH = (size_t)T * H, nd = (size_t)(2 * max_pos - 1) * (H / nh);
  const size_t np = el__attention_probs_size(seq_len, n_seqs, nh);
  float *q = rnd(TH, 1), *k = rnd(TH, 1), *v = rnd(TH, 1), *dc = rnd(TH, 1), *dist = rnd(nd, 1);
  float *c1 = malloc(sizeof(float) * TH), *c2 = malloc(sizeof(float) * TH);
  float *p1 = malloc(sizeof(float) * np), *p2 = malloc(sizeof(float) * np);
  float *dd1 = calloc(nd, sizeof(float)), *dd2 = calloc(nd, sizeof(float)), *g1[3], *g2[3];
  for (int j = 0; j < 3; j++) g1[j] = calloc(TH, sizeof(float)), g2[j] = calloc(TH, sizeof(float));
  float *scratch = malloc(sizeof(float) * el__attention_scratch_size(17, 1));
  el__relpos r1 = {dist, dd1, max_pos}, r2 = {dist, dd2, max_pos};
  ATT_OK(el__attention_forward(c1, p1, q, k, v, NULL, seq_len, n_seqs, H, nh, &r1, scratch));
  ATT_OK(el__attention_backward(g1[0], g1[1], g1[2], dc, p1, q, k, v, NULL, seq_len, n_seqs, H, nh,
                                &r1, scratch));
  el__attention_forward_naive(c2, p2, q, k, v, NULL, seq_len, n_seqs, H, nh, &r2);
  el__attention_backward_naive(g2[0], g2[1], g2[2], dc, p2, q, k, v, NULL, seq_len, n_seqs, H, nh,
                               &r2);
  const char *names[3] = {"dq", "dk", "dv"};
  double w = worst(c1, c2, TH, 3e-2, 3e-2);
  CHECK(w <= 1.0, "bf16 relative-key attention forward within bf16 precision of fp32 (worst "
                  "error ratio %.3g)", w);
  for (int j = 0; j < 3; j++) {
    w = worst(g1[j], g2[j], TH, 3e-2, 3e-2);
    CHECK(w <= 1.0, "bf16 relative-key attention backward %s within bf16 precision of fp32 "
                    "(worst error ratio %.3g)", names[j], w);
  }
  w = worst(dd1, dd2, nd, 3e-2, 3e-2);
  CHECK(w <= 1.0, "bf16 relative-key attention backward: distance embedding within bf16 "
                  "precision of fp32 (worst error ratio %.3g)", w);
  free(q); free(k); free(v); free(dc); free(dist); free(c1); free(c2); free(p1); free(p2);
  free(dd1); free(dd2); free(scratch);
  for (int j = 0; j < 3; j++) free(g1[j]), free(g2[j]);
}

static void test_bf16_products(void) {
  if (el__matmul_set_bf16(1)) {
    SKIP("bf16 products: this CPU has no AVX512_BF16 (or ELECTRA_BF16=off)");
    return;
  }
  bf16_dense_case(37, 29, 19);
  bf16_dense_case(2100, 64, 300); /* several row blocks and dW blocks, on the op pool */
  bf16_attention();
  el__matmul_set_bf16(0);
}

int main(void) {
  el__rng_seed(&R, 1234);
  test_dense();
  test_layernorm();
  test_gelu();
  test_embed();
  test_attention_case(0, 0);
  test_attention_case(1, 0);
  test_attention_case(0, 1);
  test_attention_case(1, 1);
  test_dropout();
  test_softmax_xent();
  test_sigmoid_xent();
  test_xent_in_place();
  test_seg_xent();
  test_sq_err();
  test_label_xent();
  test_fastmath();
  test_large_paths();
  test_bf16_products();
  return el_test_done();
}
