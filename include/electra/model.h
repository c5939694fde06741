/* Loading a Hugging Face ELECTRA checkpoint directory (docs/MODEL.md §10):
 * config.json, model.safetensors (read into memory the model owns: F32 as
 * is, F16/BF16 converted to F32; nothing stays mapped or open, so changing,
 * truncating or replacing the files later never changes a loaded model),
 * vocab.txt, tokenizer_config.json. Loading trusts nothing: every defect is
 * refused with a message naming file, tensor, expected and found; a
 * model.safetensors modified while it is being read is refused too. A
 * loaded model is read-only and may be shared by any number of threads. */
#ifndef ELECTRA_MODEL_H
#define ELECTRA_MODEL_H

#include <stddef.h>
#include "error.h"
#include "score.h"
#include "tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

typedef enum el_arch {
  EL_ARCH_PRETRAINING = 0, /* ElectraForPreTraining: replaced-token probability per token */
  EL_ARCH_MASKED_LM,       /* ElectraForMaskedLM: generator logits over the vocabulary */
  EL_ARCH_SEQ_CLS,         /* ElectraForSequenceClassification (HF head), or regression */
  EL_ARCH_QA,              /* ElectraForQuestionAnswering: start/end logits */
  EL_ARCH_TOKEN_CLS,       /* ElectraForTokenClassification: label logits per token */
  EL_ARCH_COUNT
} el_arch;

/* HF ElectraConfig fields the engine uses. Strings owned by the config. */
typedef struct el_config {
  el_arch arch;
  int vocab_size, embedding_size, hidden_size, num_layers, num_heads, intermediate_size;
  int max_position_embeddings, type_vocab_size, pad_token_id;
  /* position_embedding_type "relative_key" (Shaw et al. 2018, as HF's ElectraSelfAttention):
   * no absolute position embedding is added; each layer's attention scores get
   * q_i . D[i - j + max_position_embeddings - 1] from its own distance embedding D
   * [2 max_position_embeddings - 1, head size]. 0: "absolute" (the default). */
  int relative_positions;
  float layer_norm_eps, initializer_range;
  float hidden_dropout_prob, attention_probs_dropout_prob;
  int num_labels;  /* SEQ_CLS: outputs of out_proj; TOKEN_CLS: outputs of classifier */
  int regression;  /* SEQ_CLS with problem_type "regression" (num_labels 1) */
  char **id2label; /* SEQ_CLS, TOKEN_CLS: num_labels names ("LABEL_i" when absent) */
  int has_null_threshold; /* QA trained with impossible answers (squad2) */
  float null_threshold;   /* "electra_null_threshold" in config.json */
  /* How /score (and GED evaluation) reads this model; non-HF keys of config.json, any
   * architecture may carry them, only per-token models use them. */
  int has_score_threshold; /* "score_threshold" present */
  float score_threshold;   /* in [0, 1]: the default /score threshold (e.g. dev F0.5-best) */
  el_score_rule score_rule; /* "score_aggregation": "max" (default), "first" or "mean" */
  /* The spelling dictionary beside the model (score.h el_word_prob_dict), set at
   * fine-tuning/recipe time from dev data: "score_dictionary_weight" (q, the
   * dictionary's precision there) and "score_dictionary_threshold" (the threshold
   * chosen for the combination), both or neither. Absent: the model alone.
   * "score_dictionary_name_weight" (e for names, score.h): 1 when absent. */
  int has_score_dictionary;
  float score_dictionary_weight, score_dictionary_threshold, score_dictionary_name_weight;
  /* "score_dictionary_ngram": true when the English n-gram model's verdicts
   * were read with the dictionary's when q and the threshold were chosen (a
   * word with a far likelier alternative counts as a rejected one); 0 when
   * absent. Only with the dictionary. */
  int score_dictionary_ngram;
  int do_lower_case;      /* from tokenizer_config.json, default 1 */
} el_config;

typedef struct el_model el_model; /* opaque */

/* The arithmetic of the encoder's dense layers (docs/QUANT.md). */
typedef enum el_dtype {
  EL_DTYPE_FP32 = 0, /* every product in fp32 (the default) */
  EL_DTYPE_INT8,     /* int8 weights (per output channel, quantized at load) and activations
                        (per token row, at run time), int32 accumulate; attention, LayerNorm,
                        GELU, embeddings and heads stay fp32. Needs a build with oneDNN. */
  EL_DTYPE_COUNT
} el_dtype;

/* How el_model_load_opts loads; zero-initialised = el_model_load's defaults. */
typedef struct el_load_options {
  el_dtype dtype;
} el_load_options;

/* Loads dir. On success *out is owned by the caller; free with el_model_free. */
int el_model_load(const char *dir, el_model **out, el_error *err);
/* el_model_load with options (opts may be NULL; it is only read during the
 * call). With EL_DTYPE_INT8 the quantized copy of the dense layers is built
 * here, once, and owned by the model; the fp32 copies of those weights are
 * released. EL_EUNSUPPORTED when this build has no int8 path. */
int el_model_load_opts(const char *dir, const el_load_options *opts, el_model **out,
                       el_error *err);
/* The dtype m was loaded with. */
el_dtype el_model_dtype(const el_model *m);
/* "fp32", "int8"; NULL for an invalid value. */
const char *el_dtype_name(el_dtype d);
/* Inverse of el_dtype_name; -1 when unknown. */
int el_dtype_from_name(const char *name);
/* 1 when this build can load models with dtype d (int8 needs oneDNN). */
int el_dtype_available(el_dtype d);
/* 1 when dtype d runs on the engine's own kernels on this CPU, compiled
 * ahead of time (fp32 always; int8 on AVX2 or AVX-512 VNNI), 0 when it
 * would run on code oneDNN generates at load (which a process denied
 * writable-executable memory cannot run) or not at all. */
int el_dtype_native(el_dtype d);
void el_model_free(el_model *m);

/* The threshold /score flags at for the model configured by c, a request
 * giving none: with dictionary != 0 and the calibration in its config.json,
 * score_dictionary_threshold (chosen for the model read beside hunspell);
 * else its score_threshold; else 0.5. The server, eval and the checker all
 * ask this. */
float el_score_threshold(const el_config *c, int dictionary);

/* Borrowed pointers, valid while m lives. */
const el_config *el_model_config(const el_model *m);
const el_tokenizer *el_model_tokenizer(const el_model *m);
size_t el_model_num_parameters(const el_model *m);
/* Bytes of parameter memory the model owns and keeps resident: every weight
 * as F32 (a tied generator head counted once), whatever the file's dtype;
 * for an int8 model the dense layers count as their int8 copy (with its
 * scales) instead of F32. */
size_t el_model_weight_bytes(const el_model *m);

/* "ElectraForPreTraining", ... ; NULL for an invalid value. */
const char *el_arch_name(el_arch a);
/* Inverse of el_arch_name; -1 when unknown. */
int el_arch_from_name(const char *name);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
