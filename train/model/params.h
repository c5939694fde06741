/* Trainable parameter sets (llm.c style): every parameter, gradient and AdamW
 * moment of one training run lives in four float blocks of equal size and
 * layout (params, grads, m, v), so the optimizer is one flat pass, a resume
 * state is four contiguous writes, and el__weights views into params / grads
 * feed the engine's ops, its checkpoint saver and the trainable model.
 *
 * Two kinds of set:
 *  - single: one model of any architecture (fine-tuning, the MLM baseline).
 *    model 0 = that model.
 *  - ELECTRA pair: model 0 = discriminator (EL_ARCH_PRETRAINING), model 1 =
 *    generator (EL_ARCH_MASKED_LM). As in GR with untied_generator_embeddings
 *    False (docs/MODEL.md §6, shared embeddings), word / position / token-type
 *    embeddings AND the embedding LayerNorm exist once (owned by model 0) and
 *    both views point at them; each model has its own embeddings_project and
 *    encoder; the generator's generator_lm_head.weight is the shared word
 *    table (tied). Shared tensors therefore receive the gradients of both
 *    models, added, because every backward op accumulates.
 *
 * Block layout: model 0's tensors in el__tensor_specs order, then model 1's
 * own tensors (shared and tied ones skipped) in spec order. The layout is a
 * pure function of the configs, so it is the same in every process.
 *
 * Ownership: el__params owns its four blocks and its copies of the configs;
 * every pointer in w[], g[] and tensors[] is valid until el__params_free. */
#ifndef EL_TRAIN_PARAMS_H
#define EL_TRAIN_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "electra/error.h"
#include "electra/model.h"
#include "rng.h"
#include "trainer_api.h"

/* One tensor of the block. */
typedef struct el__param_tensor {
  char name[96];  /* HF name inside its model's checkpoint ("electra.encoder.layer.0...") */
  int model;      /* 0 or 1 (see above); shared tensors are model 0 */
  int shared;     /* 1: also used by model 1 (pair embeddings and embedding LayerNorm) */
  int ndim, shape[2];
  size_t offset;  /* first float inside each block */
  size_t count;   /* floats */
  int no_decay;   /* LayerNorm weight/bias or a bias: no weight decay (docs/MODEL.md §7) */
  int depth;      /* 0 embeddings + embeddings_project, i+1 encoder layer i, L+1 head */
  int max_depth;  /* L+1 of its model: the depth of the head */
} el__param_tensor;

typedef struct el__params {
  int n_models;       /* 1 single, 2 ELECTRA pair */
  int tie_encoder;    /* pair: the generator uses the discriminator's projection and encoder too */
  el_config cfg[2];   /* deep copies (cfg[1] unused for a single model) */
  size_t numel;       /* floats in each block */
  float *params, *grads, *m, *v; /* 64-byte aligned, numel floats each; m, v start at 0 */
  el__weights w[2];    /* views into params, one per model */
  el__weights g[2];    /* the same layout into grads */
  int n_tensors;
  el__param_tensor *tensors; /* [n_tensors], in block order */
  int params_borrowed; /* a gradient copy (el__params_grad_copy): params is another set's */
} el__params;

/* A single model of cfg->arch. Parameters are zero until an init call.
 * *p is caller-provided storage, filled here; release with el__params_free. */
int el__params_new_single(el__params *p, const el_config *cfg, el_error *err);

/* An ELECTRA pair: disc->arch must be EL_ARCH_PRETRAINING, gen->arch
 * EL_ARCH_MASKED_LM, and both must agree on vocab_size, embedding_size,
 * max_position_embeddings, type_vocab_size (the shared tensors), else
 * EL_ESHAPE naming the field. */
int el__params_new_pair(el__params *p, const el_config *disc, const el_config *gen,
                       el_error *err);
/* The same with tie_encoder != 0: GR's untied_generator=False ("all tied"
 * in the paper, §3.2). Every "electra." tensor -- embeddings,
 * embeddings_project and the whole encoder -- exists once and both models
 * use it; the generator keeps only its head (generator_predictions.*,
 * generator_lm_head.bias). The generator must then have the
 * discriminator's hidden size, layers, heads and FFN (else EL_ESHAPE). */
int el__params_new_pair_tied(el__params *p, const el_config *disc, const el_config *gen,
                            int tie_encoder, el_error *err);

/* A gradient copy of src for in-process data parallelism (replicas.h): the
 * same layout, configs and parameters (w[] views into src->params, which
 * must outlive the copy), its own zeroed gradient block with g[] views into
 * it, no moments (m, v NULL: not for the optimizer). Free with
 * el__params_free, which leaves src's parameters alone. */
int el__params_grad_copy(const el__params *src, el__params *dst, el_error *err);

/* Frees the blocks and configs; p is zeroed. Safe on a zeroed struct. */
void el__params_free(el__params *p);

/* The generator config of docs/MODEL.md §3 for a discriminator config and a
 * size multiplier (0.25 default): arch EL_ARCH_MASKED_LM, hidden
 * H_g = round(H*mult), intermediate round(I*mult), heads max(1, H_g/64)
 * (GR get_generator_config), the same layers, embedding size, vocabulary,
 * positions, types, dropout, eps and init range. id2label is not copied.
 * Returns EL_ESHAPE if the result is not a valid config (H_g < 1, ...). */
int el__generator_config(const el_config *disc, float mult, el_config *gen, el_error *err);

/* Random initialization, HF _init_weights style with GR's option of a
 * truncated normal: every 2-D weight (embeddings, dense) ~ N(0, std) --
 * truncated at 2 std by resampling when truncated != 0 -- ; biases 0;
 * LayerNorm gamma 1, beta 0; the pad row (cfg.pad_token_id) of the word
 * table 0 (HF padding_idx). std = cfg[0].initializer_range when std <= 0.
 * Draws in block order from rng, so the result is a function of the seed.
 * Moments are reset to 0. */
int el__params_init_random(el__params *p, float std, int truncated, el__rng *rng, el_error *err);

/* What el__params_copy_from copies. */
enum {
  EL_COPY_ENCODER = 1, /* names starting "electra.": embeddings, projection, encoder */
  EL_COPY_HEAD = 2     /* every other tensor of model's arch (needs the same arch) */
};

/* Copies tensors by HF name from a loaded checkpoint (src_cfg/src_w, e.g. an
 * el_model's config and weights) into model `model` of p. Every tensor of the
 * selected groups that model has must exist in the source with the same shape
 * (else EL_ESHAPE naming the tensor, expected and found); a tied lm weight is
 * never copied separately. Writes into params only (moments untouched).
 * Typical: fine-tuning = init_random, then copy EL_COPY_ENCODER from the
 * pretrained discriminator ("new random head"). */
int el__params_copy_from(el__params *p, int model, const el_config *src_cfg,
                        const el__weights *src_w, int what, el_error *err);
/* The same from a loaded el_model (engine/model_internal.h), which must have been
 * loaded with el__model_load_hf (EL_EINVAL for the inference layout). */
int el__params_copy_from_model(el__params *p, int model, const el_model *src, int what,
                              el_error *err);

/* grads = 0 (call before accumulating a step's backward). */
void el__params_zero_grads(el__params *p);

/* Index of a tensor by (model, HF name), or -1. */
int el__params_find(const el__params *p, int model, const char *name);

/* Resume state: writes a header (magic "ELPARAM1", layout signature: models,
 * configs' sizes, tensor names and counts) then params, m and v (grads are not
 * saved: they are zero between steps). Errors name `what` (a path for the
 * message); a full disk is EL_ENOSPC. Does not fsync or close f. */
int el__params_write(const el__params *p, FILE *f, const char *what, el_error *err);
/* Reads what el__params_write wrote into a set created with the same configs;
 * a different layout is EL_ESHAPE naming the first difference, a short or
 * corrupt file EL_EFORMAT. On error p's blocks may be partly overwritten. */
int el__params_read(el__params *p, FILE *f, const char *what, el_error *err);

#endif
