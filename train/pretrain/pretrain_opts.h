/* `electra-train pretrain` settings: the option values, the model presets
 * (docs/MODEL.md §3), and their JSON form stored in RUN/state so that a resume
 * runs with exactly the settings of the original run. */
#ifndef EL_TRAIN_PRETRAIN_OPTS_H
#define EL_TRAIN_PRETRAIN_OPTS_H

#include "electra/error.h"
#include "electra/model.h"

#define EL_PT_MAX_INPUTS 4096

typedef struct el__pt_opts {
  /* data and files (strings owned by the struct: el__pt_opts_free) */
  char **inputs;
  int n_inputs;
  char *vocab, *out, *cache;
  /* model */
  char preset[16];   /* tiny small base large */
  int mlm;           /* --objective mlm */
  double gen_size;   /* generator size multiplier */
  int tie_generator;  /* --tie-generator: the generator shares the whole encoder (size 1.0) */
  int relative_positions; /* --position-embedding relative_key (HF position_embedding_type) */
  int disc_skip_special; /* --disc-special exclude: [CLS]/[SEP] left out of the discriminator loss */
  int bias_init_zero; /* --bias-init zero: output biases start at 0 (GR) instead of their priors */
  double corruption_rate; /* --corruption learner[:RATE]: learner errors per word (learner_ids.h); 0 = none */
  long seq_len;
  /* optimization */
  long max_steps, batch_size, warmup_steps, seed;
  int warmup_auto;   /* warmup_steps is the preset's: a time plan caps it at a tenth of its total */
  double lr, weight_decay, disc_weight, mask_prob;
  /* run control (a resume may change these) */
  double time_limit; /* seconds; 0 = none. > 0: the LR schedule is planned to end at it */
  long planned_steps; /* the last time plan's total (recorded at each save); 0 = none */
  long save_every, threads, log_every, val_every, val_examples;
  double val_fraction;
  char precision[8]; /* --precision auto|fp32|bf16 as given (train/model/precision.h) */
} el__pt_opts;

/* Sizes of a preset's discriminator (the MLM baseline uses them as is). */
typedef struct el__preset {
  const char *name;
  int hidden, layers, heads, ffn, embedding;
  /* defaults of the options that depend on the preset */
  double gen_size, lr, mask_prob;
  long seq_len, batch_size, warmup_steps, max_steps;
} el__preset;

/* The preset called name, or NULL. */
const el__preset *el__preset_find(const char *name);
/* "tiny|mini|small|base|large" */
const char *el__preset_names(void);

/* Fills o with the defaults of preset p (strings NULL). */
void el__pt_opts_defaults(el__pt_opts *o, const el__preset *p);
void el__pt_opts_free(el__pt_opts *o);

/* The discriminator (or MLM model) config: the preset's sizes, vocab_size,
 * pad id, lower-casing, max_position_embeddings max(512, seq_len), HF
 * defaults for the rest (dropout 0.1, eps 1e-12, init 0.02, 2 types). */
int el__pt_model_config(const el__pt_opts *o, int vocab_size, int pad_id, int lower_case,
                        el_config *cfg, el_error *err);

/* JSON text of every setting (malloc'd; caller frees), and back. Parsing
 * fills o (owning its strings) and reports a missing or mistyped field, or a
 * number outside its option's range (json_num.h), as EL_EFORMAT naming file
 * (the state file the JSON came from) and the field. */
char *el__pt_opts_to_json(const el__pt_opts *o);
int el__pt_opts_from_json(const char *json, el__pt_opts *o, const char *file, el_error *err);

#endif
