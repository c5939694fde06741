/* Internal: where each parameter of an ELECTRA model lives, and the table of
 * HF tensor names/shapes that the loader, the saver and the trainer share.
 * Layouts follow HF: dense weight [out, in], embeddings [rows, dim]. */
#ifndef EL_WEIGHTS_H
#define EL_WEIGHTS_H

#include <stddef.h>
#include "electra/model.h"

/* How a dense weight is stored: the file's [out,in], or one of the fp32
 * inference layouts set at load (infer_layout.c): [in,out] for OpenBLAS, or
 * the packed panels of the engine's own kernels (infer_gemm.h). */
typedef enum { EL__W_HF = 0, EL__W_IN_OUT, EL__W_PACKED } el__wlayout;

/* w (in `layout`), b [out]. */
typedef struct el__dense_w {
  float *w, *b;
  el__wlayout layout;
} el__dense_w;
typedef struct el__ln_w { float *g, *b; } el__ln_w;         /* gamma, beta [dim] */

typedef struct el__layer_w {
  el__dense_w q, k, v;     /* [H,H] */
  el__dense_w attn_out;    /* [H,H] */
  el__ln_w attn_ln;        /* [H] */
  el__dense_w inter;       /* [I,H] */
  el__dense_w out;         /* [H,I] */
  el__ln_w out_ln;         /* [H] */
  float *dist;             /* [2P-1, H/heads] relative_key distance embedding; NULL: absolute */
} el__layer_w;

#define EL_MAX_LAYERS 48

typedef struct el__weights {
  /* embeddings (shared by generator and discriminator during pretraining) */
  float *word;            /* [V,E] */
  float *pos;             /* [P,E] */
  float *type;            /* [types,E] */
  el__ln_w emb_ln;         /* [E] */
  el__dense_w project;     /* [H,E]; w == NULL when E == H */
  el__layer_w layer[EL_MAX_LAYERS];
  /* heads: only those of the config's architecture are set */
  el__dense_w disc_dense;  /* PRETRAINING [H,H] */
  el__dense_w disc_pred;   /* PRETRAINING [1,H] */
  el__dense_w gen_dense;   /* MASKED_LM [E,H] */
  el__ln_w gen_ln;         /* MASKED_LM [E] */
  float *lm_w;            /* MASKED_LM [V,E]; tied: == word */
  float *lm_b;            /* MASKED_LM [V] */
  el__dense_w cls_dense;   /* SEQ_CLS [H,H] */
  el__dense_w cls_out;     /* SEQ_CLS [num_labels,H] */
  el__dense_w qa;          /* QA [2,H] */
  el__dense_w tok_cls;     /* TOKEN_CLS [num_labels,H] */
} el__weights;

typedef struct el__tensor_spec {
  char name[96];  /* HF name, e.g. "electra.encoder.layer.0.attention.self.query.weight" */
  int ndim;       /* 1 or 2 */
  int shape[2];
  float **slot;   /* where the loader stores the pointer inside el__weights */
  int no_decay;   /* LayerNorm or bias: excluded from weight decay */
  int depth;      /* 0 embeddings/projection, i+1 layer i, L+1 head (layer-wise LR decay) */
  int optional;   /* the tied generator_lm_head.weight: may be absent from a file, has no
                     storage of its own (*slot == word after loading/pointing), is not
                     counted by el__weights_numel and is not written by the saver */
} el__tensor_spec;

/* ---- the head table: one entry per architecture (el_arch) ----
 * What the engine knows of a head lives in its entry in engine/heads.c:
 * its Hugging Face name, whether config.json labels its outputs, and its
 * tensors (after the encoder's, in file order). The loader, the saver, the
 * trainer's parameter block and el_arch_name all read them from there; the
 * head's forward (el_run_*) sits next to the table. The trainer's side of a
 * head is train/model/tmodel.c's head table, the server's server/srv_heads.c. */

/* A head tensor's size along one dimension, from the config. */
typedef enum el__dim {
  EL__DIM_NONE = 0, /* no second dimension: a vector */
  EL__DIM_1,        /* 1 */
  EL__DIM_2,        /* 2 */
  EL__DIM_HIDDEN,   /* hidden_size */
  EL__DIM_EMBED,    /* embedding_size */
  EL__DIM_VOCAB,    /* vocab_size */
  EL__DIM_LABELS    /* num_labels */
} el__dim;

typedef struct el__head_tensor {
  const char *name; /* HF name */
  size_t slot;      /* offsetof(el__weights, field): where the pointer is kept */
  el__dim rows, cols;
  int tied;         /* the spec's `optional`: shares the word embeddings' storage */
} el__head_tensor;

typedef struct el__head {
  const char *name;              /* HF "architectures" entry, el_arch_name */
  int labelled;                  /* config.json has num_labels and id2label / label2id */
  const el__head_tensor *tensors; /* the head's tensors, in file order */
  int n_tensors;
} el__head;

/* The entry of arch a; NULL when a is not an el_arch. */
const el__head *el__head_of(el_arch a);
/* The size dim stands for under c (0 for EL__DIM_NONE). */
int el__dim_size(const el_config *c, el__dim dim);

/* Maximum number of tensors any architecture has. */
#define EL_MAX_TENSORS (16 * EL_MAX_LAYERS + 32)

/* Validates the sizes in cfg (positive, hidden % heads == 0, layers <=
 * EL_MAX_LAYERS, ...). Names the offending field in err. */
int el__config_check(const el_config *cfg, const char *where, el_error *err);

/* Fills specs[0..*n) with the tensors of cfg->arch, in a fixed order, with
 * slots pointing into w (w may be NULL: slots are then NULL). specs must hold
 * EL_MAX_TENSORS entries. Returns EL_OK or an error for a bad config. */
int el__tensor_specs(const el_config *cfg, el__weights *w, el__tensor_spec *specs, int *n,
                    el_error *err);

/* Number of floats of all tensors of cfg (tied lm weight counted once, i.e.
 * as the word embeddings); 0 for a config el__config_check refuses. */
size_t el__weights_numel(const el_config *cfg);

/* Zeroes w, then points every tensor of w into block (el__weights_numel
 * floats), in spec order. A tied lm_w is set to word. */
int el__weights_point(const el_config *cfg, el__weights *w, float *block, el_error *err);

/* The six dense weights of one encoder layer (Q, K, V, attention output, FFN
 * in, FFN out) with their [out, in] sizes under cfg: the one list of them. */
#define EL__LAYER_DENSE 6
void el__layer_dense(const el_config *cfg, const el__layer_w *lw,
                     const el__dense_w *d[EL__LAYER_DENSE], int out[EL__LAYER_DENSE],
                     int in[EL__LAYER_DENSE]);

/* The dense weights outside the layers that inference runs through
 * el__dense_fused (the embeddings' projection when E != H, the head's
 * dense layers; not those read row by row: the discriminator's and QA's
 * outputs) with their [out, in] sizes under cfg; returns how many. The
 * generator's output layer is apart (infer_layout.c). */
#define EL__HEAD_DENSE 3
int el__head_dense(const el_config *cfg, const el__weights *w, const el__dense_w *d[EL__HEAD_DENSE],
                   int out[EL__HEAD_DENSE], int in[EL__HEAD_DENSE]);

/* 1 when every encoder and head dense weight of w is there in the file's
 * layout: none in an inference layout (el__dense_w.layout) nor released by int8 quantization. What code
 * that saves or copies the tensors under their HF names needs. */
int el__weights_hf_layout(const el_config *cfg, const el__weights *w);

#endif
