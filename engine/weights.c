/* The tensor table of each architecture (HF names and shapes, docs/MODEL.md §2:
 * the encoder's here, each head's from its entry in engine/heads.c) and the
 * config sanity checks every loader and saver relies on. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "weights.h"

/* Upper bounds that keep every size product far from overflow (and refuse
 * configs no real ELECTRA has: the largest is 1024 hidden, 30522 vocab). */
#define MAX_DIM (1 << 20)
#define MAX_VOCAB (1 << 24)
#define MAX_LABELS (1 << 16)
#define MAX_TYPES (1 << 16)

static int positive(const char *where, const char *field, long v, long max, el_error *err) {
  if (v <= 0)
    return el_error_set(err, EL_ESHAPE, "%s: %s must be positive, found %ld", where, field, v);
  if (v > max)
    return el_error_set(err, EL_ESHAPE, "%s: %s must be at most %ld, found %ld", where, field,
                        max, v);
  return EL_OK;
}

static int unit_interval(const char *where, const char *field, float v, el_error *err) {
  if (!(v >= 0.0f && v < 1.0f))
    return el_error_set(err, EL_ESHAPE, "%s: %s must be in [0, 1), found %g", where, field,
                        (double)v);
  return EL_OK;
}

int el__config_check(const el_config *c, const char *where, el_error *err) {
  int rc;
  if (!where) where = "config";
  if ((int)c->arch < 0 || c->arch >= EL_ARCH_COUNT)
    return el_error_set(err, EL_EUNSUPPORTED, "%s: architecture %d is not one of the %d known",
                        where, (int)c->arch, EL_ARCH_COUNT);
  if ((rc = positive(where, "vocab_size", c->vocab_size, MAX_VOCAB, err)) ||
      (rc = positive(where, "embedding_size", c->embedding_size, MAX_DIM, err)) ||
      (rc = positive(where, "hidden_size", c->hidden_size, MAX_DIM, err)) ||
      (rc = positive(where, "num_hidden_layers", c->num_layers, EL_MAX_LAYERS, err)) ||
      (rc = positive(where, "num_attention_heads", c->num_heads, MAX_DIM, err)) ||
      (rc = positive(where, "intermediate_size", c->intermediate_size, MAX_DIM, err)) ||
      (rc = positive(where, "max_position_embeddings", c->max_position_embeddings, MAX_DIM,
                     err)) ||
      (rc = positive(where, "type_vocab_size", c->type_vocab_size, MAX_TYPES, err)))
    return rc;
  if (c->hidden_size % c->num_heads != 0)
    return el_error_set(err, EL_ESHAPE,
                        "%s: hidden_size %d is not divisible by num_attention_heads %d", where,
                        c->hidden_size, c->num_heads);
  if (c->pad_token_id < 0 || c->pad_token_id >= c->vocab_size)
    return el_error_set(err, EL_ESHAPE, "%s: pad_token_id must be in [0, %d), found %d", where,
                        c->vocab_size, c->pad_token_id);
  if (!(c->layer_norm_eps > 0.0f) || !isfinite(c->layer_norm_eps))
    return el_error_set(err, EL_ESHAPE, "%s: layer_norm_eps must be positive, found %g", where,
                        (double)c->layer_norm_eps);
  if (!(c->initializer_range >= 0.0f) || !isfinite(c->initializer_range))
    return el_error_set(err, EL_ESHAPE, "%s: initializer_range must be >= 0, found %g", where,
                        (double)c->initializer_range);
  if ((rc = unit_interval(where, "hidden_dropout_prob", c->hidden_dropout_prob, err)) ||
      (rc = unit_interval(where, "attention_probs_dropout_prob",
                          c->attention_probs_dropout_prob, err)))
    return rc;
  if (el__head_of(c->arch)->labelled) {
    if ((rc = positive(where, "num_labels", c->num_labels, MAX_LABELS, err))) return rc;
    if (c->arch == EL_ARCH_SEQ_CLS && c->regression && c->num_labels != 1)
      return el_error_set(err, EL_ESHAPE,
                          "%s: problem_type \"regression\" needs num_labels 1, found %d", where,
                          c->num_labels);
    if (c->id2label)
      for (int i = 0; i < c->num_labels; i++)
        if (!c->id2label[i])
          return el_error_set(err, EL_EFORMAT, "%s: id2label has no entry \"%d\"", where, i);
  }
  if (c->has_null_threshold && !isfinite(c->null_threshold))
    return el_error_set(err, EL_EVALUE, "%s: electra_null_threshold is not finite", where);
  if (c->has_score_threshold && !(c->score_threshold >= 0.0f && c->score_threshold <= 1.0f))
    return el_error_set(err, EL_EVALUE, "%s: score_threshold must be in [0, 1], found %g", where,
                        (double)c->score_threshold);
  if (c->has_score_dictionary &&
      !(c->score_dictionary_weight >= 0.0f && c->score_dictionary_weight <= 1.0f &&
        c->score_dictionary_threshold >= 0.0f && c->score_dictionary_threshold <= 1.0f &&
        c->score_dictionary_name_weight >= 0.0f && c->score_dictionary_name_weight <= 1.0f))
    return el_error_set(err, EL_EVALUE, "%s: score_dictionary_weight, _name_weight and "
                        "_threshold must be in [0, 1]", where);
  if (!el_score_rule_name(c->score_rule))
    return el_error_set(err, EL_EVALUE, "%s: score_aggregation %d is not one of the 3 known",
                        where, (int)c->score_rule);
  return EL_OK;
}

/* Walks the table once; used to fill specs, to count floats and to point
 * slots into a block, so the three can never disagree. */
typedef struct builder {
  el__tensor_spec *specs; /* NULL: only count */
  int n;
  size_t numel;
  float *block; /* non-NULL: assign slots (non-optional tensors) */
} builder;

static void emit(builder *b, float **slot, int d0, int d1, int depth, int optional,
                 const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void emit(builder *b, float **slot, int d0, int d1, int depth, int optional,
                 const char *fmt, ...) {
  size_t count = (size_t)d0 * (size_t)(d1 > 0 ? d1 : 1);
  if (b->specs) {
    el__tensor_spec *s = &b->specs[b->n];
    memset(s, 0, sizeof *s);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->name, sizeof s->name, fmt, ap);
    va_end(ap);
    s->ndim = d1 > 0 ? 2 : 1;
    s->shape[0] = d0;
    s->shape[1] = d1 > 0 ? d1 : 0;
    s->slot = slot;
    s->no_decay = strstr(s->name, "LayerNorm") != NULL ||
                  (strlen(s->name) >= 5 && strcmp(s->name + strlen(s->name) - 5, ".bias") == 0);
    s->depth = depth;
    s->optional = optional;
  }
  b->n++;
  if (optional) return; /* tied: no storage of its own */
  if (b->block && slot) *slot = b->block + b->numel;
  b->numel += count;
}

#define SLOT(field) (w ? &w->field : NULL)

static void build(const el_config *c, el__weights *w, builder *b) {
  const int V = c->vocab_size, E = c->embedding_size, H = c->hidden_size;
  const int I = c->intermediate_size, L = c->num_layers, top = L + 1;
  const char *p = "electra.";
  emit(b, SLOT(word), V, E, 0, 0, "%sembeddings.word_embeddings.weight", p);
  emit(b, SLOT(pos), c->max_position_embeddings, E, 0, 0,
       "%sembeddings.position_embeddings.weight", p);
  emit(b, SLOT(type), c->type_vocab_size, E, 0, 0, "%sembeddings.token_type_embeddings.weight",
       p);
  emit(b, SLOT(emb_ln.g), E, 0, 0, 0, "%sembeddings.LayerNorm.weight", p);
  emit(b, SLOT(emb_ln.b), E, 0, 0, 0, "%sembeddings.LayerNorm.bias", p);
  if (E != H) {
    emit(b, SLOT(project.w), H, E, 0, 0, "%sembeddings_project.weight", p);
    emit(b, SLOT(project.b), H, 0, 0, 0, "%sembeddings_project.bias", p);
  }
  static const char *qkv[3] = {"query", "key", "value"};
  for (int i = 0; i < L; i++) {
    el__layer_w *lw = w ? &w->layer[i] : NULL;
    el__dense_w *d[3] = {lw ? &lw->q : NULL, lw ? &lw->k : NULL, lw ? &lw->v : NULL};
    for (int j = 0; j < 3; j++) {
      emit(b, d[j] ? &d[j]->w : NULL, H, H, i + 1, 0,
           "%sencoder.layer.%d.attention.self.%s.weight", p, i, qkv[j]);
      emit(b, d[j] ? &d[j]->b : NULL, H, 0, i + 1, 0, "%sencoder.layer.%d.attention.self.%s.bias",
           p, i, qkv[j]);
    }
#define LSLOT(field) (lw ? &lw->field : NULL)
    emit(b, LSLOT(attn_out.w), H, H, i + 1, 0, "%sencoder.layer.%d.attention.output.dense.weight",
         p, i);
    emit(b, LSLOT(attn_out.b), H, 0, i + 1, 0, "%sencoder.layer.%d.attention.output.dense.bias",
         p, i);
    emit(b, LSLOT(attn_ln.g), H, 0, i + 1, 0,
         "%sencoder.layer.%d.attention.output.LayerNorm.weight", p, i);
    emit(b, LSLOT(attn_ln.b), H, 0, i + 1, 0, "%sencoder.layer.%d.attention.output.LayerNorm.bias",
         p, i);
    emit(b, LSLOT(inter.w), I, H, i + 1, 0, "%sencoder.layer.%d.intermediate.dense.weight", p, i);
    emit(b, LSLOT(inter.b), I, 0, i + 1, 0, "%sencoder.layer.%d.intermediate.dense.bias", p, i);
    emit(b, LSLOT(out.w), H, I, i + 1, 0, "%sencoder.layer.%d.output.dense.weight", p, i);
    emit(b, LSLOT(out.b), H, 0, i + 1, 0, "%sencoder.layer.%d.output.dense.bias", p, i);
    emit(b, LSLOT(out_ln.g), H, 0, i + 1, 0, "%sencoder.layer.%d.output.LayerNorm.weight", p, i);
    emit(b, LSLOT(out_ln.b), H, 0, i + 1, 0, "%sencoder.layer.%d.output.LayerNorm.bias", p, i);
    if (c->relative_positions)
      emit(b, LSLOT(dist), 2 * c->max_position_embeddings - 1, H / c->num_heads, i + 1, 0,
           "%sencoder.layer.%d.attention.self.distance_embedding.weight", p, i);
#undef LSLOT
  }
  const el__head *h = el__head_of(c->arch);
  for (int k = 0; h && k < h->n_tensors; k++) {
    const el__head_tensor *t = &h->tensors[k];
    emit(b, w ? (float **)((char *)w + t->slot) : NULL, el__dim_size(c, t->rows),
         el__dim_size(c, t->cols), top, t->tied, "%s", t->name);
  }
}

int el__dim_size(const el_config *c, el__dim dim) {
  switch (dim) {
    case EL__DIM_1: return 1;
    case EL__DIM_2: return 2;
    case EL__DIM_HIDDEN: return c->hidden_size;
    case EL__DIM_EMBED: return c->embedding_size;
    case EL__DIM_VOCAB: return c->vocab_size;
    case EL__DIM_LABELS: return c->num_labels;
    default: return 0;
  }
}

int el__tensor_specs(const el_config *cfg, el__weights *w, el__tensor_spec *specs, int *n,
                    el_error *err) {
  int rc = el__config_check(cfg, "config", err);
  if (rc) return rc;
  builder b = {specs, 0, 0, NULL};
  build(cfg, w, &b);
  *n = b.n;
  return EL_OK;
}

size_t el__weights_numel(const el_config *cfg) {
  if (el__config_check(cfg, "config", NULL)) return 0;
  builder b = {NULL, 0, 0, NULL};
  build(cfg, NULL, &b);
  return b.numel;
}

int el__weights_point(const el_config *cfg, el__weights *w, float *block, el_error *err) {
  int rc = el__config_check(cfg, "config", err);
  if (rc) return rc;
  memset(w, 0, sizeof *w);
  builder b = {NULL, 0, 0, block};
  build(cfg, w, &b);
  if (cfg->arch == EL_ARCH_MASKED_LM) w->lm_w = w->word;
  return EL_OK;
}

void el__layer_dense(const el_config *cfg, const el__layer_w *lw,
                     const el__dense_w *d[EL__LAYER_DENSE], int out[EL__LAYER_DENSE],
                     int in[EL__LAYER_DENSE]) {
  const int H = cfg->hidden_size, I = cfg->intermediate_size;
  const el__dense_w *all[EL__LAYER_DENSE] = {&lw->q, &lw->k, &lw->v, &lw->attn_out, &lw->inter,
                                             &lw->out};
  const int o[EL__LAYER_DENSE] = {H, H, H, H, I, H}, i[EL__LAYER_DENSE] = {H, H, H, H, H, I};
  for (int k = 0; k < EL__LAYER_DENSE; k++) d[k] = all[k], out[k] = o[k], in[k] = i[k];
}

int el__head_dense(const el_config *cfg, const el__weights *w, const el__dense_w *d[EL__HEAD_DENSE],
                   int out[EL__HEAD_DENSE], int in[EL__HEAD_DENSE]) {
  const int H = cfg->hidden_size, E = cfg->embedding_size, L = cfg->num_labels;
  const el__dense_w *all[EL__HEAD_DENSE] = {&w->project, NULL, NULL};
  int o[EL__HEAD_DENSE] = {H, 0, 0}, i[EL__HEAD_DENSE] = {E, H, H};
  if (cfg->arch == EL_ARCH_PRETRAINING) all[1] = &w->disc_dense, o[1] = H;
  if (cfg->arch == EL_ARCH_SEQ_CLS) all[1] = &w->cls_dense, o[1] = H, all[2] = &w->cls_out, o[2] = L;
  if (cfg->arch == EL_ARCH_TOKEN_CLS) all[1] = &w->tok_cls, o[1] = L;
  int n = 0;
  for (int k = 0; k < EL__HEAD_DENSE; k++)
    if (all[k] && all[k]->w) d[n] = all[k], out[n] = o[k], in[n] = i[k], n++;
  return n;
}

int el__weights_hf_layout(const el_config *cfg, const el__weights *w) {
  const el__dense_w *d[EL__LAYER_DENSE];
  int out[EL__LAYER_DENSE], in[EL__LAYER_DENSE];
  for (int l = 0; l < cfg->num_layers && l < EL_MAX_LAYERS; l++) {
    el__layer_dense(cfg, &w->layer[l], d, out, in);
    for (int k = 0; k < EL__LAYER_DENSE; k++)
      if (!d[k]->w || d[k]->layout != EL__W_HF) return 0;
  }
  const el__dense_w *h[EL__HEAD_DENSE];
  int n = el__head_dense(cfg, w, h, out, in);
  for (int k = 0; k < n; k++)
    if (h[k]->layout != EL__W_HF) return 0;
  return 1;
}
