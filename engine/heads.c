/* The five Hugging Face task heads on top of the encoder (docs/MODEL.md §1
 * and §2): the engine's head table (weights.h), then each head's forward.
 * Each forward validates the batch and the model's architecture, runs the
 * encoder into the workspace and writes the caller's output array.
 *
 * Adding a head: an el_arch value (include/electra/model.h), its weights'
 * fields (weights.h), an entry below and its el_run_* forward; then its entry
 * in the trainer's table (train/model/tmodel.c) if it is trained, and in the
 * server's (server/srv_heads.c) if it is served. docs/ARCHITECTURE.md lists
 * the entries. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "infer_internal.h"
#include "infer_kernels.h"
#include "op_pool.h"
#include "ops.h"
#include "quant.h"
#include "weights.h"

#define SLOT(field) offsetof(el__weights, field)
#define H EL__DIM_HIDDEN
#define E EL__DIM_EMBED
#define V EL__DIM_VOCAB
#define L EL__DIM_LABELS
#define VEC EL__DIM_NONE

/* ElectraDiscriminatorPredictions: forward el_run_replaced */
static const el__head_tensor PRETRAINING[] = {
    {"discriminator_predictions.dense.weight", SLOT(disc_dense.w), H, H, 0},
    {"discriminator_predictions.dense.bias", SLOT(disc_dense.b), H, VEC, 0},
    {"discriminator_predictions.dense_prediction.weight", SLOT(disc_pred.w), EL__DIM_1, H, 0},
    {"discriminator_predictions.dense_prediction.bias", SLOT(disc_pred.b), EL__DIM_1, VEC, 0},
};
/* ElectraGeneratorPredictions + generator_lm_head (tied to the word
 * embeddings): forward el_run_mlm */
static const el__head_tensor MASKED_LM[] = {
    {"generator_predictions.dense.weight", SLOT(gen_dense.w), E, H, 0},
    {"generator_predictions.dense.bias", SLOT(gen_dense.b), E, VEC, 0},
    {"generator_predictions.LayerNorm.weight", SLOT(gen_ln.g), E, VEC, 0},
    {"generator_predictions.LayerNorm.bias", SLOT(gen_ln.b), E, VEC, 0},
    {"generator_lm_head.weight", SLOT(lm_w), V, E, 1},
    {"generator_lm_head.bias", SLOT(lm_b), V, VEC, 0},
};
/* ElectraClassificationHead: forward el_run_classify */
static const el__head_tensor SEQ_CLS[] = {
    {"classifier.dense.weight", SLOT(cls_dense.w), H, H, 0},
    {"classifier.dense.bias", SLOT(cls_dense.b), H, VEC, 0},
    {"classifier.out_proj.weight", SLOT(cls_out.w), L, H, 0},
    {"classifier.out_proj.bias", SLOT(cls_out.b), L, VEC, 0},
};
/* qa_outputs: forward el_run_qa */
static const el__head_tensor QA[] = {
    {"qa_outputs.weight", SLOT(qa.w), EL__DIM_2, H, 0},
    {"qa_outputs.bias", SLOT(qa.b), EL__DIM_2, VEC, 0},
};
/* HF: one Linear on every token, no hidden layer: forward el_run_token_classify */
static const el__head_tensor TOKEN_CLS[] = {
    {"classifier.weight", SLOT(tok_cls.w), L, H, 0},
    {"classifier.bias", SLOT(tok_cls.b), L, VEC, 0},
};
#undef SLOT
#undef H
#undef E
#undef V
#undef L
#undef VEC

#define TENSORS(t) t, (int)(sizeof t / sizeof t[0])
static const el__head HEADS[EL_ARCH_COUNT] = {
    /* arch                name                                labelled  tensors */
    [EL_ARCH_PRETRAINING] = {"ElectraForPreTraining", 0, TENSORS(PRETRAINING)},
    [EL_ARCH_MASKED_LM] = {"ElectraForMaskedLM", 0, TENSORS(MASKED_LM)},
    [EL_ARCH_SEQ_CLS] = {"ElectraForSequenceClassification", 1, TENSORS(SEQ_CLS)},
    [EL_ARCH_QA] = {"ElectraForQuestionAnswering", 0, TENSORS(QA)},
    [EL_ARCH_TOKEN_CLS] = {"ElectraForTokenClassification", 1, TENSORS(TOKEN_CLS)},
};
#undef TENSORS

const el__head *el__head_of(el_arch a) {
  return ((int)a >= 0 && a < EL_ARCH_COUNT) ? &HEADS[a] : NULL;
}

const char *el_arch_name(el_arch a) {
  const el__head *h = el__head_of(a);
  return h ? h->name : NULL;
}

int el_arch_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < EL_ARCH_COUNT; i++)
    if (strcmp(name, HEADS[i].name) == 0) return i;
  return -1;
}

/* The batch checks of every el_run_<head>: the model has the head the call
 * needs (the encoder's el__check_batch checks the rest). */
static int check_head_batch(const el_model *m, const el_workspace *ws, const el_batch *b,
                            el_arch need, const char *fn, int *T, el_error *err) {
  if (m && m->cfg.arch != need)
    return el_error_set(err, EL_EINVAL, "%s: the model is %s, this call needs %s", fn,
                        el_arch_name(m->cfg.arch) ? el_arch_name(m->cfg.arch)
                                                  : "an unknown architecture",
                        el_arch_name(need));
  return el__check_batch(m, ws, b, fn, T, err);
}

static float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* ElectraDiscriminatorPredictions: sigmoid(dense_prediction(gelu(dense(h)))). */
int el_run_replaced(const el_model *m, el_workspace *ws, const el_batch *b, float *prob,
                    el_error *err) {
  int T = 0;
  int rc = check_head_batch(m, ws, b, EL_ARCH_PRETRAINING, "el_run_replaced", &T, err);
  if (rc) return rc;
  if (!prob) return el_error_set(err, EL_EINVAL, "el_run_replaced: NULL output");
  el__blas_single_begin();
  el__encode(m, ws, b);
  const el__weights *w = &m->w;
  const int H = m->cfg.hidden_size;
  float *d = ws->big;
  if (m->q && m->q->disc_dense) /* int8 (quant.h) */
    el__quant_dense(ws, m->q->disc_dense, ws->x, d, w->disc_dense.b, 1, T, H, H);
  else
    el__dense_fused(1, &d, ws->x, &w->disc_dense, NULL, 0, T, H, H, EL__EPI_BIAS_GELU);
  const float bp = w->disc_pred.b[0];
  for (int t = 0; t < T; t++) prob[t] = el__sigmoidf(dot(d + (size_t)t * H, w->disc_pred.w, H) + bp);
  el__blas_single_end();
  return EL_OK;
}

/* ElectraClassificationHead on the first ([CLS]) token of each sequence:
 * out_proj(gelu(dense(h_cls))). Dropout is off at inference. */
int el_run_classify(const el_model *m, el_workspace *ws, const el_batch *b, float *logits,
                    el_error *err) {
  int T = 0;
  int rc = check_head_batch(m, ws, b, EL_ARCH_SEQ_CLS, "el_run_classify", &T, err);
  if (rc) return rc;
  if (!logits) return el_error_set(err, EL_EINVAL, "el_run_classify: NULL output");
  el__blas_single_begin();
  el__encode(m, ws, b);
  const el__weights *w = &m->w;
  const int H = m->cfg.hidden_size, n = b->n_seqs;
  float *cls = ws->ctx, *d = ws->big;
  for (int s = 0, t = 0; s < n; t += b->seq_len[s], s++)
    memcpy(cls + (size_t)s * H, ws->x + (size_t)t * H, sizeof(float) * (size_t)H);
  el__dense_fused(1, &d, cls, &w->cls_dense, NULL, 0, n, H, H, EL__EPI_BIAS_GELU);
  el__dense_fused(1, &logits, d, &w->cls_out, NULL, 0, n, H, m->cfg.num_labels, EL__EPI_BIAS);
  el__blas_single_end();
  return EL_OK;
}

/* qa_outputs: two logits per token, split into start and end. */
int el_run_qa(const el_model *m, el_workspace *ws, const el_batch *b, float *start_logits,
              float *end_logits, el_error *err) {
  int T = 0;
  int rc = check_head_batch(m, ws, b, EL_ARCH_QA, "el_run_qa", &T, err);
  if (rc) return rc;
  if (!start_logits || !end_logits) return el_error_set(err, EL_EINVAL, "el_run_qa: NULL output");
  el__blas_single_begin();
  el__encode(m, ws, b);
  el__blas_single_end();
  const el__weights *w = &m->w;
  const int H = m->cfg.hidden_size;
  const float *ws_ = w->qa.w, *we = w->qa.w + H;
  for (int t = 0; t < T; t++) {
    const float *h = ws->x + (size_t)t * H;
    start_logits[t] = dot(h, ws_, H) + w->qa.b[0];
    end_logits[t] = dot(h, we, H) + w->qa.b[1];
  }
  return EL_OK;
}

/* ElectraForTokenClassification: classifier(h) on every token (dropout is off
 * at inference). */
int el_run_token_classify(const el_model *m, el_workspace *ws, const el_batch *b, float *logits,
                          el_error *err) {
  int T = 0;
  int rc = check_head_batch(m, ws, b, EL_ARCH_TOKEN_CLS, "el_run_token_classify", &T, err);
  if (rc) return rc;
  if (!logits) return el_error_set(err, EL_EINVAL, "el_run_token_classify: NULL output");
  el__blas_single_begin();
  el__encode(m, ws, b);
  const el__weights *w = &m->w;
  el__dense_fused(1, &logits, ws->x, &w->tok_cls, NULL, 0, T, m->cfg.hidden_size,
                  m->cfg.num_labels, EL__EPI_BIAS);
  el__blas_single_end();
  return EL_OK;
}

/* ElectraGeneratorPredictions + generator_lm_head at the chosen positions:
 * logits = LN(gelu(dense(h))) lm_w^T + lm_b, lm_w the (possibly tied) word
 * embeddings [V,E]. */
int el_run_mlm(const el_model *m, el_workspace *ws, const el_batch *b, const int *positions,
               int n_pos, float *logits, el_error *err) {
  int T = 0;
  int rc = check_head_batch(m, ws, b, EL_ARCH_MASKED_LM, "el_run_mlm", &T, err);
  if (rc) return rc;
  if (n_pos < 0 || n_pos > ws->max_tokens)
    return el_error_set(err, n_pos < 0 ? EL_EINVAL : EL_ETOOLONG,
                        "el_run_mlm: %d positions, the workspace holds %d", n_pos, ws->max_tokens);
  if (n_pos > 0 && (!positions || !logits))
    return el_error_set(err, EL_EINVAL, "el_run_mlm: NULL positions or output");
  for (int i = 0; i < n_pos; i++)
    if (positions[i] < 0 || positions[i] >= T)
      return el_error_set(err, EL_EINVAL, "el_run_mlm: position %d is %d, outside [0, %d)", i,
                          positions[i], T);
  if (n_pos == 0) return EL_OK;
  el__blas_single_begin();
  el__encode(m, ws, b);
  const el_config *c = &m->cfg;
  const el__weights *w = &m->w;
  const int H = c->hidden_size, E = c->embedding_size;
  float *g = ws->ctx, *d = ws->big;
  for (int i = 0; i < n_pos; i++)
    memcpy(g + (size_t)i * H, ws->x + (size_t)positions[i] * H, sizeof(float) * (size_t)H);
  el__dense_fused(1, &d, g, &w->gen_dense, NULL, 0, n_pos, H, E, EL__EPI_BIAS_GELU);
  el__bias_layernorm(d, NULL, w->gen_ln.g, w->gen_ln.b, n_pos, E, c->layer_norm_eps);
  const el__dense_w lm = m->lm_packed ? (el__dense_w){m->lm_packed, w->lm_b, EL__W_PACKED}
                                      : (el__dense_w){w->lm_w, w->lm_b, 0};
  el__dense_fused(1, &logits, d, &lm, NULL, 0, n_pos, E, c->vocab_size, EL__EPI_BIAS);
  el__blas_single_end();
  return EL_OK;
}

/* Rows are exponentiated a chunk at a time through the vectorised exp:
 * glibc's exp, one call per entry, took half of a grammar check's
 * generator phase (18 rows of an 8,192-word vocabulary: 0.49 ms). */
#define LOG_SOFTMAX_CHUNK 1024

static float row_max(const float *x, int n) {
  float mx = x[0];
#pragma omp simd reduction(max : mx)
  for (int i = 1; i < n; i++) mx = x[i] > mx ? x[i] : mx;
  return mx;
}

static double sum_exp_shifted(const float *x, int n, float shift) {
  float buf[LOG_SOFTMAX_CHUNK];
  double sum = 0.0;
  for (int i0 = 0; i0 < n; i0 += LOG_SOFTMAX_CHUNK) {
    int len = n - i0 < LOG_SOFTMAX_CHUNK ? n - i0 : LOG_SOFTMAX_CHUNK;
    for (int i = 0; i < len; i++) buf[i] = x[i0 + i] - shift;
    el__expf_vec(buf, buf, (size_t)len);
    float part = 0.0f;
#pragma omp simd reduction(+ : part)
    for (int i = 0; i < len; i++) part += buf[i];
    sum += part;
  }
  return sum;
}

void el_log_softmax(float *rows, int n_rows, int n) {
  for (int r = 0; r < n_rows && n > 0; r++) {
    float *x = rows + (size_t)r * (size_t)n;
    float mx = row_max(x, n);
    float lse = mx + (float)log(sum_exp_shifted(x, n, mx));
    for (int i = 0; i < n; i++) x[i] -= lse;
  }
}
