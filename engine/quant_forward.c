/* One encoder layer with int8 dense layers: the steps of encoder.c's
 * encoder_layer (infer_internal.h has the layer's equations), each x W^T
 * becoming quantize rows -> int32 product -> dequantize (in the product's
 * kernel where it can, quant_gemm.h's el__qdeq, bias and GELU included) into
 * the same fp32 buffer the fp32 path fills, so attention and the LayerNorm
 * of infer_kernels.h are shared unchanged. A product whose output the next
 * one reads (attention output -> FFN in -> FFN out -> the next layer's Q, K,
 * V) quantizes its rows for it in the same task, into the other of the
 * workspace's two activation slots, and hands them over (el__qws_ready).
 *
 * The three steps run per block of token rows, the blocks spread over the op
 * pool (nn/op_pool.h; why not oneDNN's OpenMP threads: quant.h). Every step
 * is row-wise and the product is exact in int32, so the answer does not
 * depend on the blocks, the thread count or who ran which block. */
#include "infer_internal.h"
#include "infer_kernels.h"
#include "op_pool.h"
#include "ops.h"
#include "quant.h"
#include "quant_gemm.h"

/* Rows per task: about two tasks per thread (a thread that gets no CPU
 * time for a while leaves at most one to wait for; four per thread measured
 * 1.5-2 % slower at batches 8 and 32 on an idle Zen 4, each task reading
 * the layer's weights again), within [32, 256] rows: fewer and each block's
 * product reads the whole weight matrix for few rows (and oneDNN's kernel
 * packs the weights on every call), more and the tasks get too coarse to
 * share. */
#define MAX_TASK_ROWS 256
static int rows_per_task(int M) {
  int r = (M + 2 * el__pool_width() - 1) / (2 * el__pool_width());
  r = r < 32 ? 32 : r > MAX_TASK_ROWS ? MAX_TASK_ROWS : r;
  return (r + 7) & ~7;
}

/* What follows a product on the same rows, while they are in cache: the
 * fp32 path's fused kernel (infer_kernels.h), row-wise like everything here.
 * (GELU needs no pass of its own: the product's dequantization ends with it,
 * quant_gemm.h.) */
typedef enum { EPI_NONE, EPI_LAYERNORM } epilogue;

/* out_i (= or += when accumulate) x W_i^T (+ bias_i, then GELU when gelu)
 * for the n products reading the same input x [M,K] (q, k and v all read
 * x), then the epilogue on out_0: LayerNorm(out + b) * g + beta. */
typedef struct qjob {
  el__qws *ws;
  const float *x;
  int M, K, n, accumulate, rows; /* rows per task */
  const el__qdense *d[3];
  float *out[3];
  int N[3];
  const float *bias[3]; /* each product's own bias, added on its rows (NULL: none) */
  int gelu;
  epilogue epi;
  const float *b, *g, *beta;
  float eps;
  int in_slot, quantized_in; /* the activation slot x's codes are in; already there */
  int out_slot;              /* >= 0: out_0 after the epilogue quantized into this slot */
} qjob;

/* After a block's products: the LayerNorm when the job has one, and with an
 * out_slot the codes of the block's output rows for the next product, while
 * they are in cache (after a LayerNorm that found their ranges, the same
 * floats, in one pass). */
static void finish_rows(const qjob *j, float *o, int lo, int rows) {
  const int N = j->N[0], ranged = j->out_slot >= 0 && j->epi == EPI_LAYERNORM;
  float rlo[MAX_TASK_ROWS], rhi[MAX_TASK_ROWS];
  if (ranged) el__bias_layernorm_range(o, j->b, j->g, j->beta, rows, N, j->eps, rlo, rhi);
  else if (j->epi == EPI_LAYERNORM) el__bias_layernorm(o, j->b, j->g, j->beta, rows, N, j->eps);
  if (j->out_slot < 0) return;
  float *sa;
  int32_t *za, *acc;
  uint8_t *qo = el__qws_act(j->ws, j->out_slot, &sa, &za, &acc);
  qo += (size_t)lo * N, sa += lo, za += lo;
  if (ranged) el__quant_rows_ranged(qo, sa, za, o, rlo, rhi, rows, N);
  else el__quant_rows(qo, sa, za, o, rows, N);
}

static void qjob_task(void *ctx, int task, int worker) {
  const qjob *j = ctx;
  const int lo = task * j->rows, rows = j->M - lo < j->rows ? j->M - lo : j->rows;
  float *sa;
  int32_t *za, *acc;
  uint8_t *a = el__qws_act(j->ws, j->in_slot, &sa, &za, &acc);
  a += (size_t)lo * j->K, sa += lo, za += lo;
  if (!j->quantized_in) el__quant_rows(a, sa, za, j->x + (size_t)lo * j->K, rows, j->K);
  for (int i = 0; i < j->n; i++) {
    int32_t *acc_i = acc + (size_t)lo * j->N[i]; /* this block's rows of an [M, N_i] product */
    /* dequantized and biased in the product's kernel where it can (quant_gemm.h) */
    const el__qdeq deq = {j->out[i] + (size_t)lo * j->N[i], sa, el__qdense_scale(j->d[i]), j->bias[i],
                          za, el__qdense_colsum(j->d[i]), j->accumulate, j->gelu};
    el__qdense_run(j->d[i], j->ws, worker, a, acc_i, rows, &deq);
  }
  finish_rows(j, j->out[0] + (size_t)lo * j->N[0], lo, rows);
}

/* ---- few rows (a sentence or two): the columns shared out instead ----
 * With rows split, every thread reads all of a layer's weights for a few
 * rows each, and 42 rows cut into blocks of 32 give one thread three times
 * the other's work. Cut by columns, each thread reads its share of the
 * weights once: the rows are quantized first (blocks of QUANT_ROWS over the
 * pool), then each product's column blocks go over the pool (GELU in their
 * dequantization); a LayerNorm, which needs whole rows, follows on the
 * calling thread. The floats are the row split's: each is the same exact
 * integer sum, dequantized the same way. */
#define COLUMN_ROWS 96 /* products of at most this many rows are split by columns */
#define QUANT_ROWS 8

static int by_columns(const qjob *j) {
  if (j->M > COLUMN_ROWS || el__pool_avail() < 2) return 0;
  for (int i = 0; i < j->n; i++)
    if (!el__qdense_by_columns(j->d[i])) return 0;
  return 1;
}

static void quant_task(void *ctx, int task, int worker) {
  (void)worker;
  const qjob *j = ctx;
  const int lo = task * QUANT_ROWS, rows = j->M - lo < QUANT_ROWS ? j->M - lo : QUANT_ROWS;
  float *sa;
  int32_t *za, *acc;
  uint8_t *a = el__qws_act(j->ws, j->in_slot, &sa, &za, &acc);
  el__quant_rows(a + (size_t)lo * j->K, sa + lo, za + lo, j->x + (size_t)lo * j->K, rows, j->K);
}

typedef struct cjob {
  const qjob *j;
  int i, cols; /* the product, columns per task (a multiple of EL_QGEMM_NR) */
} cjob;

static void column_task(void *ctx, int task, int worker) {
  (void)worker;
  const cjob *c = ctx;
  const qjob *j = c->j;
  const int i = c->i, N = j->N[i], n0 = task * c->cols, n1 = n0 + c->cols < N ? n0 + c->cols : N;
  float *sa;
  int32_t *za, *acc;
  const uint8_t *a = el__qws_act(j->ws, j->in_slot, &sa, &za, &acc);
  const el__qdeq deq = {j->out[i], sa, el__qdense_scale(j->d[i]), j->bias[i], za,
                        el__qdense_colsum(j->d[i]), j->accumulate, j->gelu};
  el__qdense_run_cols(j->d[i], a, acc, j->M, &deq, n0, n1);
}

static void qgemm_by_columns(const qjob *j) {
  if (!j->quantized_in) el__pool_run(el__blocks(j->M, QUANT_ROWS), quant_task, (void *)j);
  for (int i = 0; i < j->n; i++) { /* one after another: they share the int32 buffer */
    const int per = (j->N[i] + 4 * el__pool_width() - 1) / (4 * el__pool_width());
    cjob c = {.j = j, .i = i, .cols = (per + EL_QGEMM_NR - 1) / EL_QGEMM_NR * EL_QGEMM_NR};
    el__pool_run(el__blocks(j->N[i], c.cols), column_task, &c);
  }
  if (j->epi == EPI_LAYERNORM) el__bias_layernorm(j->out[0], j->b, j->g, j->beta, j->M, j->N[0], j->eps);
}

/* The products of j on x [M,K]. x's codes are taken from the last product
 * when its epilogue made them (el__qws_ready); with hand_over, this one's
 * epilogue (row split only) makes the codes of its output for the next. */
static void qgemm(qjob *j, el__qws *ws, const float *x, int M, int K, int N, int hand_over) {
  j->ws = ws, j->x = x, j->M = M, j->K = K, j->rows = rows_per_task(M);
  for (int i = 0; i < j->n; i++) j->N[i] = N;
  el__qready *ready = el__qws_ready(ws);
  j->quantized_in = ready->of == x;
  j->in_slot = j->quantized_in ? ready->slot : 0;
  ready->of = NULL;
  j->out_slot = -1;
  if (by_columns(j)) {
    qgemm_by_columns(j);
    return;
  }
  if (hand_over) j->out_slot = 1 - j->in_slot;
  el__pool_run(el__blocks(M, j->rows), qjob_task, j);
  if (j->out_slot >= 0) ready->of = j->out[0], ready->slot = j->out_slot;
}

void el__quant_layer(const el_model *m, int l, const el_workspace *ws, float *x, float *ctx,
                     float *big, const int *seq_len, int n_seqs, int Tc) {
  const el__layer_w *lw = &m->w.layer[l];
  const el__qlayer *ql = &m->q->layer[l];
  const int H = ws->H, In = ws->inter;
  const float eps = m->cfg.layer_norm_eps;
  float *q = big, *k = q + (size_t)Tc * H, *v = k + (size_t)Tc * H;
  /* x of layer 0 is new (the embeddings'): nothing handed over to it; the
   * last layer's output feeds no product */
  if (l == 0) el__qws_ready(ws->q)->of = NULL;
  const int more = l + 1 < m->cfg.num_layers;
  qjob j_qkv = {.n = 3, .d = {ql->q, ql->k, ql->v}, .out = {q, k, v},
                .bias = {lw->q.b, lw->k.b, lw->v.b}};
  qgemm(&j_qkv, ws->q, x, Tc, H, H, 0);
  el__relpos rp; /* fp32, shared with the fp32 path */
  el__attention(ctx, q, k, v, seq_len, n_seqs, H, ws->nh, el__layer_relpos(lw, ws->max_pos, &rp), 1);
  qjob j_ao = {.n = 1, .accumulate = 1, .d = {ql->attn_out}, .out = {x}, .epi = EPI_LAYERNORM,
               .b = lw->attn_out.b, .g = lw->attn_ln.g, .beta = lw->attn_ln.b, .eps = eps};
  qgemm(&j_ao, ws->q, ctx, Tc, H, H, 1);
  float *f = big;
  qjob j_in = {.n = 1, .d = {ql->inter}, .out = {f}, .bias = {lw->inter.b}, .gelu = 1};
  qgemm(&j_in, ws->q, x, Tc, H, In, 1);
  qjob j_out = {.n = 1, .accumulate = 1, .d = {ql->out}, .out = {x}, .epi = EPI_LAYERNORM,
                .b = lw->out.b, .g = lw->out_ln.g, .beta = lw->out_ln.b, .eps = eps};
  qgemm(&j_out, ws->q, f, Tc, In, H, more);
}

void el__quant_dense(const el_workspace *ws, const el__qdense *d, const float *x, float *out,
                     const float *bias, int gelu, int M, int K, int N) {
  qjob j = {.n = 1, .d = {d}, .out = {out}, .bias = {bias}, .gelu = gelu};
  qgemm(&j, ws->q, x, M, K, N, 0);
}

void el__quant_embed(const el_model *m, float *out, const int *ids, const int *type_ids,
                     const int *seq_len, int n_seqs) {
  const int E = m->cfg.embedding_size;
  const int8_t *word = m->q->word;
  const float *scale = m->q->word_scale, *type = m->w.type;
  const float *pos = m->cfg.relative_positions ? NULL : m->w.pos; /* relative: none added */
  size_t t = 0;
  for (int s = 0; s < n_seqs; s++)
    for (int p = 0; p < seq_len[s]; p++, t++) {
      const int8_t *we = word + (size_t)ids[t] * E;
      const float ws = scale[ids[t]];
      const float *te = type + (size_t)(type_ids ? type_ids[t] : 0) * E;
      float *o = out + t * E;
      if (pos) { /* word + position + type, the fp32 path's order */
        const float *pe = pos + (size_t)p * E;
#pragma omp simd
        for (int e = 0; e < E; e++) o[e] = ws * (float)we[e] + pe[e] + te[e];
      } else { /* relative positions: none added */
#pragma omp simd
        for (int e = 0; e < E; e++) o[e] = ws * (float)we[e] + te[e];
      }
    }
}
