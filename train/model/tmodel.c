/* Trainable encoder + head (train/model/tmodel.h): forward keeping activations,
 * backward accumulating gradients. Every activation lives in one arena sized
 * by el__tmodel_new; nothing is allocated per step. */
#include "tmodel.h"

#include <cblas.h>
#undef I /* complex.h (pulled in by cblas.h) defines I */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "op_fastmath.h"
#include "op_pool.h"
#include "ops.h"

typedef struct layer_cache {
  float *q, *k, *v;          /* [T,H] projections */
  float *probs, *adrop;      /* [nh sum L^2] softmax probs, attention keep mask (or NULL) */
  float *ctx;                /* [T,H] attention context (heads concatenated) */
  float *ln1_in;             /* [T,H] residual sum before attention LN */
  float *ln1_mean, *ln1_rstd; /* [T] */
  float *a;                  /* [T,H] attention LN output */
  float *pre;                /* [T,I] intermediate before gelu (recomputed in backward) */
  float *ln2_in;             /* [T,H] residual sum before output LN */
  float *ln2_mean, *ln2_rstd; /* [T] */
  float *out;                /* [T,H] layer output */
} layer_cache;

struct el__tmodel {
  el_config cfg;
  const el__weights *w;
  const el__weights *g;
  el__tmodel_limits lim;
  float p_hidden, p_attn;
  /* arena */
  float *arena;
  size_t arena_floats;
  /* the batch of the last forward (copied) */
  int *ids, *types, *seq_len, *positions, *firsts;
  int n_seqs, T, n_pos, has_forward, dropout_on;
  /* embeddings */
  float *emb_sum, *emb_mean, *emb_rstd, *emb_ln, *emb_d, *proj;
  /* hidden-dropout masks are not stored: element (row, c) of the mask with
   * tag t is a function of (dkey, t, the row's key, c) (mask_at), recomputed
   * by backward */
  uint64_t dkey;
  uint64_t seq0;              /* global index of the batch's first sequence */
  uint64_t *tokkey, *seqkey;  /* [T] / [n_seqs] row keys of the last forward */
  layer_cache L[EL_MAX_LAYERS];
  /* heads */
  float *h_in;                    /* gathered hidden [rows,H] (MLM positions or CLS tokens) */
  float *h_pre, *h_act;           /* head dense output / gelu */
  float *h_act_d;                 /* SEQ_CLS: dropped CLS input */
  float *h_mean, *h_rstd, *h_ln;  /* MLM LayerNorm; SEQ_CLS: h_ln = dropped gelu (out_proj input) */
  float *logits;
  /* backward scratch */
  float *dX, *dA, *dT1, *dT2, *dq, *dk, *dv, *dI1, *dI2, *dI3, *dE1, *dE2, *dH1, *dH2, *att_scratch;
};

/* ---------- arena ---------- */

typedef struct carver {
  float *base;
  size_t used;
} carver;

static float *take(carver *c, size_t n) {
  float *p = c->base ? c->base + c->used : NULL;
  c->used += (n + 15) / 16 * 16; /* keep 64-byte alignment */
  return p;
}

/* ---------- the head table ----------
 * What the trainer does with each head it trains, in one entry (the entries
 * and each head's functions are under "heads" below; the engine's entry of
 * the same architecture names its tensors): the rows its buffers need, its
 * buffers, its forward into m->logits and its backward into the encoder
 * output's gradient. An architecture without an entry (TOKEN_CLS) is
 * refused by forward and backward. Adding a trainable head: its functions
 * and one entry. */
typedef enum head_rows_kind {
  ROWS_TOKENS = 0, /* every packed token */
  ROWS_SEQS,       /* each sequence's first token */
  ROWS_POSITIONS   /* the MLM positions the caller passes */
} head_rows_kind;

typedef struct thead {
  head_rows_kind rows;
  void (*carve)(el__tmodel *m, carver *c, size_t R); /* R = head_rows */
  /* the encoder output x [T,H] -> m->logits */
  void (*forward)(el__tmodel *m, const float *x, int drop_h);
  /* d logits -> dX (zeroed by the caller) wrt the encoder output x_top;
   * the head's weight gradients accumulate into m->g */
  void (*backward)(el__tmodel *m, const float *dout, float *dX, const float *x_top);
} thead;

/* The entry of arch a, or NULL when the trainer has none. */
static const thead *head_of(el_arch a);

static int uses_positions(const el_config *c) {
  const thead *h = head_of(c->arch);
  return h && h->rows == ROWS_POSITIONS;
}

static size_t head_rows(const el__tmodel *m) {
  const thead *h = head_of(m->cfg.arch);
  switch (h ? h->rows : ROWS_TOKENS) {
    case ROWS_POSITIONS: return (size_t)m->lim.max_pos;
    case ROWS_SEQS: return (size_t)m->lim.max_seqs;
    default: return (size_t)m->lim.max_tokens;
  }
}

/* Carves every buffer; with c->base NULL only counts. One take() per buffer
 * in the arena's order (the head's from its table entry), so the layout reads
 * in one place and counting and carving cannot drift apart. */
static void carve(el__tmodel *m, carver *c) {
  const el_config *cf = &m->cfg;
  const size_t T = (size_t)m->lim.max_tokens, H = (size_t)cf->hidden_size;
  const size_t E = (size_t)cf->embedding_size, I = (size_t)cf->intermediate_size;
  const size_t nh = (size_t)cf->num_heads;
  const size_t NP = nh * (size_t)m->lim.max_len * T; /* >= nh sum L^2 */
  const size_t R = head_rows(m);
  const int has_proj = cf->embedding_size != cf->hidden_size;
  m->emb_sum = take(c, T * E);
  m->emb_mean = take(c, T);
  m->emb_rstd = take(c, T);
  m->emb_ln = take(c, T * E);
  m->emb_d = take(c, T * E);
  m->proj = has_proj ? take(c, T * H) : NULL;
  for (int l = 0; l < cf->num_layers; l++) {
    layer_cache *x = &m->L[l];
    x->q = take(c, T * H);
    x->k = take(c, T * H);
    x->v = take(c, T * H);
    x->probs = take(c, NP);
    x->adrop = take(c, NP);
    x->ctx = take(c, T * H);
    x->ln1_in = take(c, T * H);
    x->ln1_mean = take(c, T);
    x->ln1_rstd = take(c, T);
    x->a = take(c, T * H);
    x->pre = take(c, T * I);
    x->ln2_in = take(c, T * H);
    x->ln2_mean = take(c, T);
    x->ln2_rstd = take(c, T);
    x->out = take(c, T * H);
  }
  m->h_in = m->h_pre = m->h_act = m->h_act_d = NULL;
  m->h_mean = m->h_rstd = m->h_ln = NULL;
  const thead *h = head_of(cf->arch);
  if (h) h->carve(m, c, R);
  /* backward scratch */
  const size_t W = H > E ? H : E;
  m->dX = take(c, T * W);
  m->dA = take(c, T * H);
  m->dT1 = take(c, T * W);
  m->dT2 = take(c, T * W);
  m->dq = take(c, T * H);
  m->dk = take(c, T * H);
  m->dv = take(c, T * H);
  m->dI1 = take(c, T * I);
  m->dI2 = take(c, T * I);
  m->dI3 = take(c, T * I);
  m->dE1 = take(c, T * E);
  m->dE2 = take(c, T * E);
  const size_t RW = R * (H > E ? H : E);
  m->dH1 = take(c, RW);
  m->dH2 = take(c, RW);
  m->att_scratch = take(c, el__attention_scratch_size(m->lim.max_len, cf->relative_positions));
}

int el__tmodel_new(const el_config *cfg, const el__weights *w, const el__weights *g,
                  const el__tmodel_limits *lim, el__tmodel **out, el_error *err) {
  *out = NULL;
  int rc = el__config_check(cfg, "tmodel config", err);
  if (rc) return rc;
  if (lim->max_tokens < 1 || lim->max_seqs < 1 || lim->max_len < 0 ||
      lim->max_len > cfg->max_position_embeddings ||
      (uses_positions(cfg) && lim->max_pos < 1))
    return el_error_set(err, EL_EINVAL,
                        "tmodel: bad limits (max_tokens %d, max_seqs %d, max_len %d of %d "
                        "positions, max_pos %d)",
                        lim->max_tokens, lim->max_seqs, lim->max_len,
                        cfg->max_position_embeddings, lim->max_pos);
  el__tmodel *m = calloc(1, sizeof *m);
  if (!m) return el_error_set(err, EL_ENOMEM, "tmodel: out of memory");
  m->cfg = *cfg;
  m->cfg.id2label = NULL;
  m->w = w;
  m->g = g;
  m->lim = *lim;
  if (m->lim.max_len == 0) m->lim.max_len = cfg->max_position_embeddings;
  if (m->lim.max_len > m->lim.max_tokens) m->lim.max_len = m->lim.max_tokens;
  if (!uses_positions(cfg)) m->lim.max_pos = 0;
  m->p_hidden = cfg->hidden_dropout_prob;
  m->p_attn = cfg->attention_probs_dropout_prob;
  carver c = {NULL, 0};
  carve(m, &c);
  m->arena_floats = c.used;
  m->arena = aligned_alloc(64, c.used * sizeof(float));
  const size_t T = (size_t)m->lim.max_tokens;
  m->ids = malloc(sizeof(int) * T);
  m->types = malloc(sizeof(int) * T);
  m->seq_len = malloc(sizeof(int) * (size_t)m->lim.max_seqs);
  m->firsts = malloc(sizeof(int) * (size_t)m->lim.max_seqs);
  m->positions = malloc(sizeof(int) * (size_t)(m->lim.max_pos > 0 ? m->lim.max_pos : 1));
  m->tokkey = malloc(sizeof(uint64_t) * T);
  m->seqkey = malloc(sizeof(uint64_t) * (size_t)m->lim.max_seqs);
  if (!m->arena || !m->ids || !m->types || !m->seq_len || !m->firsts || !m->positions ||
      !m->tokkey || !m->seqkey) {
    el__tmodel_free(m);
    return el_error_set(err, EL_ENOMEM, "tmodel: cannot allocate %zu MB of activations",
                        c.used * sizeof(float) >> 20);
  }
  c.base = m->arena;
  c.used = 0;
  carve(m, &c);
  *out = m;
  return EL_OK;
}

void el__tmodel_free(el__tmodel *m) {
  if (!m) return;
  free(m->arena);
  free(m->ids);
  free(m->types);
  free(m->seq_len);
  free(m->firsts);
  free(m->positions);
  free(m->tokkey);
  free(m->seqkey);
  free(m);
}

void el__tmodel_set_seq0(el__tmodel *m, uint64_t seq0) { m->seq0 = seq0; }

size_t el__tmodel_bytes(const el__tmodel *m) {
  return m->arena_floats * sizeof(float) +
         sizeof(int) * (2 * (size_t)m->lim.max_tokens + 2 * (size_t)m->lim.max_seqs +
                        (size_t)m->lim.max_pos) +
         sizeof(uint64_t) * ((size_t)m->lim.max_tokens + (size_t)m->lim.max_seqs);
}

float *el__tmodel_output(el__tmodel *m) { return m->has_forward ? m->logits : NULL; }
const el_config *el__tmodel_config(const el__tmodel *m) { return &m->cfg; }

/* ---------- dropout masks ---------- */

/* Dropout masks from counter-based bits: element c of row r of mask `tag` is
 * dropped iff the low 32 bits of el__mix64(el__mix64(el__mix64(dkey, tag),
 * key_r), c) fall below p 2^32, and kept ones are scaled by 1/(1-p). key_r
 * names the row by its global sequence index and position (tokkey: seq << 32
 * | position; seqkey: seq << 32 | 0xffffffff for the classifier's per-sequence
 * rows), so a sequence draws the same mask whichever micro-batch, rank or
 * packing offset computes it. Each element depends only on those keys, never
 * on the thread count, so backward recomputes hidden masks instead of
 * storing them. */
typedef struct mask_k {
  uint64_t key;
  uint32_t thresh;
  float keep;
} mask_k;

static mask_k mask_key(uint64_t dkey, uint64_t tag, float p) {
  mask_k k = {el__mix64(dkey, tag), (uint32_t)((double)p * 4294967296.0), 1.0f / (1.0f - p)};
  return k;
}

/* rk: the row's key, el__mix64(k.key, key_r) */
static inline float mask_at(mask_k k, uint64_t rk, size_t c) {
  return (uint32_t)el__mix64(rk, c) < k.thresh ? 0.0f : k.keep;
}

/* Row-wise mask work on [rows, W] (the attention fill: one row per
 * sequence, W its block of nh L^2 probabilities at off[s]). */
typedef struct mask_job {
  float *y;
  const float *x, *r;
  mask_k k;
  const uint64_t *rowkey;
  size_t W;
  const int *seq_len; /* attention fill */
  int nh;
} mask_job;

#define MASK_BLOCK 65536 /* elements per task */

static size_t rows_per_task(size_t W) { return W >= MASK_BLOCK ? 1 : MASK_BLOCK / (W ? W : 1); }

static void mul_rows(void *p, size_t lo, size_t hi) {
  const mask_job *j = p;
  for (size_t r = lo; r < hi; r++) {
    const uint64_t rk = el__mix64(j->k.key, j->rowkey[r]);
    float *y = j->y + r * j->W;
    const float *x = j->x + r * j->W;
#pragma omp simd
    for (size_t c = 0; c < j->W; c++) y[c] = x[c] * mask_at(j->k, rk, c);
  }
}
static void mul_add_rows(void *p, size_t lo, size_t hi) {
  const mask_job *j = p;
  for (size_t r = lo; r < hi; r++) {
    const uint64_t rk = el__mix64(j->k.key, j->rowkey[r]);
    float *y = j->y + r * j->W;
    const float *res = j->r + r * j->W;
#pragma omp simd
    for (size_t c = 0; c < j->W; c++) y[c] = y[c] * mask_at(j->k, rk, c) + res[c];
  }
}
static void fill_seqs(void *p, size_t lo, size_t hi) {
  const mask_job *j = p;
  size_t off = 0;
  for (size_t s = 0; s < lo; s++) off += (size_t)j->nh * j->seq_len[s] * j->seq_len[s];
  for (size_t s = lo; s < hi; s++) {
    const size_t n = (size_t)j->nh * j->seq_len[s] * j->seq_len[s];
    const uint64_t rk = el__mix64(j->k.key, j->rowkey[s]);
    float *y = j->y + off;
#pragma omp simd
    for (size_t c = 0; c < n; c++) y[c] = mask_at(j->k, rk, c);
    off += n;
  }
}

/* The attention keep mask materialised (its op takes an array): per
 * sequence, keyed by the sequence. */
static void fill_attn_mask(const el__tmodel *m, float *mask, mask_k k) {
  mask_job j = {mask, NULL, NULL, k, m->seqkey, 0, m->seq_len, m->cfg.num_heads};
  el__pool_for((size_t)m->n_seqs, 1, fill_seqs, &j);
}

/* y = x * mask over [rows, W] (y may be x); rowkey: m->tokkey or m->seqkey */
static void drop_mul(float *y, const float *x, const uint64_t *rowkey, size_t rows, size_t W,
                     mask_k k) {
  mask_job j = {y, x, NULL, k, rowkey, W, NULL, 0};
  el__pool_for(rows, rows_per_task(W), mul_rows, &j);
}

/* y = y * mask + r over the [T, W] token rows: dropout on a branch, then
 * the residual add */
static void drop_add(const el__tmodel *m, float *y, const float *r, size_t W, int on, mask_k k) {
  if (!on) {
    el__add_inplace(y, r, (size_t)m->T * W);
    return;
  }
  mask_job j = {y, NULL, r, k, m->tokkey, W, NULL, 0};
  el__pool_for((size_t)m->T, rows_per_task(W), mul_add_rows, &j);
}

/* ---------- forward ---------- */

static void zero(float *x, size_t n) { memset(x, 0, n * sizeof(float)); }

static int check_batch(el__tmodel *m, const el_batch *b, const int *positions, int n_pos,
                       el_error *err) {
  const el_config *c = &m->cfg;
  if (!b || b->n_seqs < 1 || b->n_seqs > m->lim.max_seqs || !b->seq_len || !b->ids)
    return el_error_set(err, EL_EINVAL, "tmodel: batch needs 1..%d sequences, got %d",
                        m->lim.max_seqs, b ? b->n_seqs : 0);
  long T = 0;
  for (int s = 0; s < b->n_seqs; s++) {
    if (b->seq_len[s] < 1 || b->seq_len[s] > m->lim.max_len)
      return el_error_set(err, EL_ETOOLONG, "tmodel: sequence %d has length %d (allowed 1..%d)",
                          s, b->seq_len[s], m->lim.max_len);
    T += b->seq_len[s];
  }
  if (T > m->lim.max_tokens)
    return el_error_set(err, EL_ETOOLONG, "tmodel: batch has %ld tokens, limit %d", T,
                        m->lim.max_tokens);
  for (long t = 0; t < T; t++) {
    if (b->ids[t] < 0 || b->ids[t] >= c->vocab_size)
      return el_error_set(err, EL_EINVAL, "tmodel: token %ld has id %d outside [0, %d)", t,
                          b->ids[t], c->vocab_size);
    if (b->type_ids && (b->type_ids[t] < 0 || b->type_ids[t] >= c->type_vocab_size))
      return el_error_set(err, EL_EINVAL, "tmodel: token %ld has type id %d outside [0, %d)", t,
                          b->type_ids[t], c->type_vocab_size);
  }
  if (uses_positions(c)) {
    if (n_pos < 1 || n_pos > m->lim.max_pos || !positions)
      return el_error_set(err, EL_EINVAL, "tmodel: MLM needs 1..%d positions, got %d",
                          m->lim.max_pos, n_pos);
    for (int i = 0; i < n_pos; i++)
      if (positions[i] < 0 || positions[i] >= T)
        return el_error_set(err, EL_EINVAL, "tmodel: MLM position %d is %d, outside [0, %ld)", i,
                            positions[i], T);
  }
  return EL_OK;
}

static int forward(el__tmodel *m, const el_batch *b, const int *positions, int n_pos, int train,
                   el__rng *rng, const float **out, el_error *err);
static int backward(el__tmodel *m, const float *dout, el_error *err);

/* The ops split their work across the op pool (op_pool.h) and call BLAS from
 * inside it; OpenBLAS's own pool is held at 1 thread meanwhile so the two
 * pools do not spin against each other on the same cores (el__blas_single_begin). */

int el__tmodel_forward(el__tmodel *m, const el_batch *b, const int *positions, int n_pos,
                      int train, el__rng *rng, const float **out, el_error *err) {
  el__blas_single_begin();
  int rc = forward(m, b, positions, n_pos, train, rng, out, err);
  el__blas_single_end();
  return rc;
}

int el__tmodel_backward(el__tmodel *m, const float *dout, el_error *err) {
  el__blas_single_begin();
  int rc = backward(m, dout, err);
  el__blas_single_end();
  return rc;
}

/* Copies the batch (ids, types, lengths, MLM positions) for backward. */
static void copy_batch(el__tmodel *m, const el_batch *b, const int *positions, int n_pos) {
  int T = 0;
  m->n_seqs = b->n_seqs;
  for (int s = 0; s < b->n_seqs; s++) {
    const uint64_t gs = (m->seq0 + (uint64_t)s) << 32;
    m->seq_len[s] = b->seq_len[s];
    m->firsts[s] = T;
    m->seqkey[s] = gs | 0xffffffffULL;
    for (int i = 0; i < b->seq_len[s]; i++) m->tokkey[T + i] = gs | (uint64_t)i;
    T += b->seq_len[s];
  }
  m->T = T;
  memcpy(m->ids, b->ids, sizeof(int) * (size_t)T);
  if (b->type_ids)
    memcpy(m->types, b->type_ids, sizeof(int) * (size_t)T);
  else
    memset(m->types, 0, sizeof(int) * (size_t)T);
  m->n_pos = uses_positions(&m->cfg) ? n_pos : 0;
  if (m->n_pos) memcpy(m->positions, positions, sizeof(int) * (size_t)n_pos);
}

/* embeddings -> LN -> dropout -> (projection); returns the encoder's input. */
static const float *embed_forward(el__tmodel *m, int drop_h) {
  const el_config *c = &m->cfg;
  const el__weights *w = m->w;
  const int T = m->T, E = c->embedding_size, H = c->hidden_size;
  el__embed_forward(m->emb_sum, m->ids, m->types, m->seq_len, m->n_seqs, w->word,
                   c->relative_positions ? NULL : w->pos, w->type, E);
  el__layernorm_forward(m->emb_ln, m->emb_mean, m->emb_rstd, m->emb_sum, w->emb_ln.g, w->emb_ln.b,
                       T, E, c->layer_norm_eps);
  const size_t TE = (size_t)T * E;
  if (drop_h) {
    drop_mul(m->emb_d, m->emb_ln, m->tokkey, (size_t)T, (size_t)E,
             mask_key(m->dkey, 1, m->p_hidden));
  } else {
    memcpy(m->emb_d, m->emb_ln, TE * sizeof(float));
  }
  if (!m->proj) return m->emb_d;
  el__dense_forward(m->proj, m->emb_d, w->project.w, w->project.b, T, E, H);
  return m->proj;
}

/* Layer l on x: attention, residual + LN, FFN, residual + LN -> L->out;
 * NULL when attention could not allocate its bookkeeping.
 * Hidden dropout masks are tagged 16 + 4l (+1, +2), as backward expects. */
static const float *layer_forward(el__tmodel *m, int l, const float *x, int drop_h, int drop_a) {
  const el_config *c = &m->cfg;
  const int T = m->T, H = c->hidden_size, I = c->intermediate_size, nh = c->num_heads;
  const float eps = c->layer_norm_eps, ph = m->p_hidden;
  const uint64_t dk = m->dkey, tag = 16 + 4 * (uint64_t)l;
  layer_cache *L = &m->L[l];
  const el__layer_w *lw = &m->w->layer[l];
  el__dense_forward(L->q, x, lw->q.w, lw->q.b, T, H, H);
  el__dense_forward(L->k, x, lw->k.w, lw->k.b, T, H, H);
  el__dense_forward(L->v, x, lw->v.w, lw->v.b, T, H, H);
  if (drop_a)
    fill_attn_mask(m, L->adrop, mask_key(dk, tag, m->p_attn));
  const el__relpos rel = {lw->dist, NULL, c->max_position_embeddings};
  if (el__attention_forward(L->ctx, L->probs, L->q, L->k, L->v, drop_a ? L->adrop : NULL,
                            m->seq_len, m->n_seqs, H, nh, lw->dist ? &rel : NULL, m->att_scratch))
    return NULL;
  el__dense_forward(L->ln1_in, L->ctx, lw->attn_out.w, lw->attn_out.b, T, H, H);
  drop_add(m, L->ln1_in, x, (size_t)H, drop_h, mask_key(dk, tag + 1, ph));
  el__layernorm_forward(L->a, L->ln1_mean, L->ln1_rstd, L->ln1_in, lw->attn_ln.g, lw->attn_ln.b, T,
                       H, eps);
  el__dense_forward(L->pre, L->a, lw->inter.w, lw->inter.b, T, H, I);
  float *gel = m->dI1; /* backward scratch, free during forward */
  el__gelu_forward(gel, L->pre, (size_t)T * I);
  el__dense_forward(L->ln2_in, gel, lw->out.w, lw->out.b, T, I, H);
  drop_add(m, L->ln2_in, L->a, (size_t)H, drop_h, mask_key(dk, tag + 2, ph));
  el__layernorm_forward(L->out, L->ln2_mean, L->ln2_rstd, L->ln2_in, lw->out_ln.g, lw->out_ln.b, T,
                       H, eps);
  return L->out;
}

/* ---------- heads: each one's buffers, forward and backward, then the table ---------- */

/* ElectraDiscriminatorPredictions (also GED): dense H->H, gelu, dense H->1
 * on every token. */
static void disc_carve(el__tmodel *m, carver *c, size_t R) {
  const size_t H = (size_t)m->cfg.hidden_size;
  m->h_pre = take(c, R * H);
  m->h_act = take(c, R * H);
  m->logits = take(c, R);
}

static void disc_forward(el__tmodel *m, const float *x, int drop_h) {
  (void)drop_h; /* no dropout in this head */
  const el__weights *w = m->w;
  const int T = m->T, H = m->cfg.hidden_size;
  el__dense_forward(m->h_pre, x, w->disc_dense.w, w->disc_dense.b, T, H, H);
  el__gelu_forward(m->h_act, m->h_pre, (size_t)T * H);
  el__dense_forward(m->logits, m->h_act, w->disc_pred.w, w->disc_pred.b, T, H, 1);
}

static void disc_backward(el__tmodel *m, const float *dout, float *dX, const float *x_top) {
  const el__weights *w = m->w, *g = m->g;
  const int T = m->T, H = m->cfg.hidden_size;
  const size_t TH = (size_t)T * H;
  zero(m->dT1, TH);
  el__dense_backward(m->dT1, g->disc_pred.w, g->disc_pred.b, dout, m->h_act, w->disc_pred.w, T,
                    H, 1);
  zero(m->dT2, TH);
  el__gelu_backward(m->dT2, m->h_pre, m->dT1, TH);
  el__dense_backward(dX, g->disc_dense.w, g->disc_dense.b, m->dT2, x_top, w->disc_dense.w, T,
                    H, H);
}

/* ElectraGeneratorPredictions + generator_lm_head at the MLM positions:
 * gather, dense H->E, gelu, LayerNorm(E), . lm_w^T + lm_b. */
static void mlm_carve(el__tmodel *m, carver *c, size_t R) {
  const size_t H = (size_t)m->cfg.hidden_size, E = (size_t)m->cfg.embedding_size;
  m->h_in = take(c, R * H);
  m->h_pre = take(c, R * E);
  m->h_act = take(c, R * E);
  m->h_mean = take(c, R);
  m->h_rstd = take(c, R);
  m->h_ln = take(c, R * E);
  m->logits = take(c, R * (size_t)m->cfg.vocab_size);
}

static void mlm_forward(el__tmodel *m, const float *x, int drop_h) {
  (void)drop_h; /* no dropout in this head */
  const el_config *c = &m->cfg;
  const el__weights *w = m->w;
  const int H = c->hidden_size, E = c->embedding_size, P = m->n_pos;
  for (int i = 0; i < P; i++)
    memcpy(m->h_in + (size_t)i * H, x + (size_t)m->positions[i] * H, sizeof(float) * H);
  el__dense_forward(m->h_pre, m->h_in, w->gen_dense.w, w->gen_dense.b, P, H, E);
  el__gelu_forward(m->h_act, m->h_pre, (size_t)P * E);
  el__layernorm_forward(m->h_ln, m->h_mean, m->h_rstd, m->h_act, w->gen_ln.g, w->gen_ln.b, P, E,
                       c->layer_norm_eps);
  el__dense_forward(m->logits, m->h_ln, w->lm_w, w->lm_b, P, E, c->vocab_size);
}

static void mlm_backward(el__tmodel *m, const float *dout, float *dX, const float *x_top) {
  (void)x_top; /* the gathered rows are kept in h_in */
  const el_config *c = &m->cfg;
  const el__weights *w = m->w, *g = m->g;
  const int H = c->hidden_size, E = c->embedding_size, P = m->n_pos;
  const size_t PE = (size_t)P * E;
  zero(m->dH1, PE);
  el__dense_backward(m->dH1, g->lm_w, g->lm_b, dout, m->h_ln, w->lm_w, P, E, c->vocab_size);
  zero(m->dH2, PE);
  el__layernorm_backward(m->dH2, g->gen_ln.g, g->gen_ln.b, m->dH1, m->h_act, m->h_mean,
                        m->h_rstd, w->gen_ln.g, P, E);
  zero(m->dH1, PE);
  el__gelu_backward(m->dH1, m->h_pre, m->dH2, PE);
  zero(m->dH2, (size_t)P * H);
  el__dense_backward(m->dH2, g->gen_dense.w, g->gen_dense.b, m->dH1, m->h_in, w->gen_dense.w, P,
                    H, E);
  for (int i = 0; i < P; i++) /* scatter-add: repeated positions accumulate */
    el__add_inplace(dX + (size_t)m->positions[i] * H, m->dH2 + (size_t)i * H, (size_t)H);
}

/* HF ElectraClassificationHead on each sequence's first token: dropout,
 * dense H->H, gelu, dropout, out_proj (dropout = hidden_dropout, masks
 * tagged 2 and 3, keyed by the sequence). */
static void cls_carve(el__tmodel *m, carver *c, size_t R) {
  const size_t H = (size_t)m->cfg.hidden_size;
  m->h_in = take(c, R * H);
  m->h_act_d = take(c, R * H); /* dropped CLS input, then reused below */
  m->h_pre = take(c, R * H);
  m->h_act = take(c, R * H);
  m->h_ln = take(c, R * H); /* dropped activation (out_proj input) */
  m->logits = take(c, R * (size_t)m->cfg.num_labels);
}

static void cls_forward(el__tmodel *m, const float *x, int drop_h) {
  const el__weights *w = m->w;
  const int H = m->cfg.hidden_size, S = m->n_seqs;
  const size_t SH = (size_t)S * H;
  const uint64_t dk = m->dkey;
  const float ph = m->p_hidden;
  for (int s = 0; s < S; s++)
    memcpy(m->h_in + (size_t)s * H, x + (size_t)m->firsts[s] * H, sizeof(float) * H);
  if (drop_h) {
    drop_mul(m->h_act_d, m->h_in, m->seqkey, (size_t)S, (size_t)H, mask_key(dk, 2, ph));
  } else {
    memcpy(m->h_act_d, m->h_in, SH * sizeof(float));
  }
  el__dense_forward(m->h_pre, m->h_act_d, w->cls_dense.w, w->cls_dense.b, S, H, H);
  el__gelu_forward(m->h_act, m->h_pre, SH);
  if (drop_h) {
    drop_mul(m->h_ln, m->h_act, m->seqkey, (size_t)S, (size_t)H, mask_key(dk, 3, ph));
  } else {
    memcpy(m->h_ln, m->h_act, SH * sizeof(float));
  }
  el__dense_forward(m->logits, m->h_ln, w->cls_out.w, w->cls_out.b, S, H, m->cfg.num_labels);
}

static void cls_backward(el__tmodel *m, const float *dout, float *dX, const float *x_top) {
  (void)x_top; /* the first tokens' rows are kept in h_in */
  const el__weights *w = m->w, *g = m->g;
  const int H = m->cfg.hidden_size, S = m->n_seqs;
  const size_t SH = (size_t)S * H;
  zero(m->dH1, SH);
  el__dense_backward(m->dH1, g->cls_out.w, g->cls_out.b, dout, m->h_ln, w->cls_out.w, S, H,
                    m->cfg.num_labels);
  if (m->dropout_on && m->p_hidden > 0.0f)
    drop_mul(m->dH1, m->dH1, m->seqkey, (size_t)S, (size_t)H, mask_key(m->dkey, 3, m->p_hidden));
  zero(m->dH2, SH);
  el__gelu_backward(m->dH2, m->h_pre, m->dH1, SH);
  zero(m->dH1, SH);
  el__dense_backward(m->dH1, g->cls_dense.w, g->cls_dense.b, m->dH2, m->h_act_d, w->cls_dense.w,
                    S, H, H);
  if (m->dropout_on && m->p_hidden > 0.0f)
    drop_mul(m->dH1, m->dH1, m->seqkey, (size_t)S, (size_t)H, mask_key(m->dkey, 2, m->p_hidden));
  for (int s = 0; s < S; s++)
    el__add_inplace(dX + (size_t)m->firsts[s] * H, m->dH1 + (size_t)s * H, (size_t)H);
}

/* qa_outputs on every token: logits [T, 2], no dropout. */
static void qa_carve(el__tmodel *m, carver *c, size_t R) { m->logits = take(c, R * 2); }

static void qa_forward(el__tmodel *m, const float *x, int drop_h) {
  (void)drop_h;
  el__dense_forward(m->logits, x, m->w->qa.w, m->w->qa.b, m->T, m->cfg.hidden_size, 2);
}

static void qa_backward(el__tmodel *m, const float *dout, float *dX, const float *x_top) {
  el__dense_backward(dX, m->g->qa.w, m->g->qa.b, dout, x_top, m->w->qa.w, m->T,
                    m->cfg.hidden_size, 2);
}

static const thead HEADS[EL_ARCH_COUNT] = {
    /* arch                  rows             buffers      forward       backward */
    [EL_ARCH_PRETRAINING] = {ROWS_TOKENS, disc_carve, disc_forward, disc_backward},
    [EL_ARCH_MASKED_LM] = {ROWS_POSITIONS, mlm_carve, mlm_forward, mlm_backward},
    [EL_ARCH_SEQ_CLS] = {ROWS_SEQS, cls_carve, cls_forward, cls_backward},
    [EL_ARCH_QA] = {ROWS_TOKENS, qa_carve, qa_forward, qa_backward},
    /* EL_ARCH_TOKEN_CLS: not trained (served and evaluated only) */
};

static const thead *head_of(el_arch a) {
  return (int)a >= 0 && a < EL_ARCH_COUNT && HEADS[a].forward ? &HEADS[a] : NULL;
}

static int forward(el__tmodel *m, const el_batch *b, const int *positions, int n_pos, int train,
                   el__rng *rng, const float **out, el_error *err) {
  *out = NULL;
  m->has_forward = 0;
  int rc = check_batch(m, b, positions, n_pos, err);
  if (rc) return rc;
  const int drop_h = train && m->p_hidden > 0.0f, drop_a = train && m->p_attn > 0.0f;
  if ((drop_h || drop_a) && !rng)
    return el_error_set(err, EL_EINVAL, "tmodel: training-mode forward needs an rng");
  m->dkey = (drop_h || drop_a) ? el__rng_u64(rng) : 0;
  copy_batch(m, b, positions, n_pos);
  m->dropout_on = drop_h || drop_a;
  const float *x = embed_forward(m, drop_h);
  for (int l = 0; l < m->cfg.num_layers; l++)
    if (!(x = layer_forward(m, l, x, drop_h, drop_a)))
      return el_error_set(err, EL_ENOMEM, "tmodel: attention of layer %d: out of memory", l);
  const thead *h = head_of(m->cfg.arch);
  if (!h) return el_error_set(err, EL_EUNSUPPORTED, "tmodel: architecture %d", (int)m->cfg.arch);
  h->forward(m, x, drop_h);
  m->has_forward = 1;
  *out = m->logits;
  return EL_OK;
}

/* ---------- backward ---------- */

/* Layer l's backward: dX holds the gradient wrt the layer's output on entry
 * and wrt its input x_in on return; weight gradients accumulate into g.
 * Nonzero when attention could not allocate its bookkeeping. */
static int layer_backward(el__tmodel *m, int l, float *dX, const float *x_in, int drop_h,
                           int drop_a) {
  const el_config *c = &m->cfg;
  const int T = m->T, H = c->hidden_size, I = c->intermediate_size, nh = c->num_heads;
  const size_t TH = (size_t)T * H, TI = (size_t)T * I;
  layer_cache *L = &m->L[l];
  const el__layer_w *lw = &m->w->layer[l];
  const el__layer_w *lg = &m->g->layer[l];
  const uint64_t tag = 16 + 4 * (uint64_t)l; /* as in forward */
  /* output LN */
  float *d_ln2 = m->dT1;
  zero(d_ln2, TH);
  el__layernorm_backward(d_ln2, lg->out_ln.g, lg->out_ln.b, dX, L->ln2_in, L->ln2_mean,
                        L->ln2_rstd, lw->out_ln.g, T, H);
  /* residual: dA = d_ln2; FFN branch gets d_ln2 * mask */
  float *dA = m->dA;
  memcpy(dA, d_ln2, TH * sizeof(float));
  if (drop_h)
    drop_mul(d_ln2, d_ln2, m->tokkey, (size_t)T, (size_t)H, mask_key(m->dkey, tag + 2, m->p_hidden));
  /* the activation is recomputed instead of kept from forward, with its
   * derivative in the same pass */
  float *gel = m->dI2, *gel_grad = m->dI3, *d_pre = m->dI1;
  el__gelu_forward_grad(gel, gel_grad, L->pre, TI);
  zero(d_pre, TI);
  el__dense_backward(d_pre, lg->out.w, lg->out.b, d_ln2, gel, lw->out.w, T, I, H);
  el__mul_inplace(d_pre, gel_grad, TI); /* d gel -> d pre */
  el__dense_backward(dA, lg->inter.w, lg->inter.b, d_pre, L->a, lw->inter.w, T, H, I);
  /* attention LN */
  float *d_ln1 = m->dT2;
  zero(d_ln1, TH);
  el__layernorm_backward(d_ln1, lg->attn_ln.g, lg->attn_ln.b, dA, L->ln1_in, L->ln1_mean,
                        L->ln1_rstd, lw->attn_ln.g, T, H);
  /* residual: dX_in = d_ln1; attention branch gets d_ln1 * mask */
  memcpy(dX, d_ln1, TH * sizeof(float));
  if (drop_h)
    drop_mul(d_ln1, d_ln1, m->tokkey, (size_t)T, (size_t)H, mask_key(m->dkey, tag + 1, m->p_hidden));
  float *dctx = m->dT1;
  zero(dctx, TH);
  el__dense_backward(dctx, lg->attn_out.w, lg->attn_out.b, d_ln1, L->ctx, lw->attn_out.w, T, H, H);
  zero(m->dq, TH);
  zero(m->dk, TH);
  zero(m->dv, TH);
  const el__relpos rel = {lw->dist, lg->dist, m->cfg.max_position_embeddings};
  if (el__attention_backward(m->dq, m->dk, m->dv, dctx, L->probs, L->q, L->k, L->v,
                             drop_a ? L->adrop : NULL, m->seq_len, m->n_seqs, H, nh,
                             lw->dist ? &rel : NULL, m->att_scratch))
    return -1;
  el__dense_backward(dX, lg->q.w, lg->q.b, m->dq, x_in, lw->q.w, T, H, H);
  el__dense_backward(dX, lg->k.w, lg->k.b, m->dk, x_in, lw->k.w, T, H, H);
  el__dense_backward(dX, lg->v.w, lg->v.b, m->dv, x_in, lw->v.w, T, H, H);
  return 0;
}

/* From dX (wrt the encoder input) through projection, dropout, embedding LN
 * into the embedding tables' gradients. */
static void embed_backward(el__tmodel *m, float *dX, int drop_h) {
  const el_config *c = &m->cfg;
  const el__weights *w = m->w, *g = m->g;
  const int T = m->T, E = c->embedding_size, H = c->hidden_size;
  const size_t TE = (size_t)T * E;
  float *d_emb_d = dX;
  if (m->proj) {
    d_emb_d = m->dE1;
    zero(d_emb_d, TE);
    el__dense_backward(d_emb_d, g->project.w, g->project.b, dX, m->emb_d, w->project.w, T, E, H);
  }
  if (drop_h)
    drop_mul(d_emb_d, d_emb_d, m->tokkey, (size_t)T, (size_t)E, mask_key(m->dkey, 1, m->p_hidden));
  zero(m->dE2, TE);
  el__layernorm_backward(m->dE2, g->emb_ln.g, g->emb_ln.b, d_emb_d, m->emb_sum, m->emb_mean,
                        m->emb_rstd, w->emb_ln.g, T, E);
  el__embed_backward(g->word, m->cfg.relative_positions ? NULL : g->pos, g->type, m->dE2, m->ids,
                     m->types, m->seq_len, m->n_seqs, E);
}

static int backward(el__tmodel *m, const float *dout, el_error *err) {
  if (!m->has_forward)
    return el_error_set(err, EL_EINVAL, "tmodel: backward without a forward");
  if (!m->g) return el_error_set(err, EL_EINVAL, "tmodel: backward on a forward-only model");
  const int NL = m->cfg.num_layers;
  const float *x_emb = m->proj ? m->proj : m->emb_d; /* the encoder's input */
  const float *x_top = NL > 0 ? m->L[NL - 1].out : x_emb;
  float *dX = m->dX; /* gradient wrt the current layer output */
  const thead *h = head_of(m->cfg.arch);
  if (!h) return el_error_set(err, EL_EUNSUPPORTED, "tmodel: architecture %d", (int)m->cfg.arch);
  zero(dX, (size_t)m->T * (size_t)m->cfg.hidden_size);
  h->backward(m, dout, dX, x_top);
  const int drop_h = m->dropout_on && m->p_hidden > 0.0f;
  const int drop_a = m->dropout_on && m->p_attn > 0.0f;
  for (int l = NL - 1; l >= 0; l--)
    if (layer_backward(m, l, dX, l > 0 ? m->L[l - 1].out : x_emb, drop_h, drop_a))
      return el_error_set(err, EL_ENOMEM, "tmodel: attention backward of layer %d: out of memory",
                          l);
  embed_backward(m, dX, drop_h);
  return EL_OK;
}
