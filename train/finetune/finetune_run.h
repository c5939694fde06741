/* The fine-tuning run behind `electra-train finetune`: options, and the loop
 * that trains, evaluates on dev after each epoch, and keeps the best
 * checkpoint (train/finetune/finetune_run.c). */
#ifndef EL_TRAIN_FINETUNE_RUN_H
#define EL_TRAIN_FINETUNE_RUN_H

#include <stdio.h>

#include "finetune.h"
#include "ged_synth.h"

typedef struct el__ft_opts {
  const el__task *task;
  const char *train, *dev, *init, *out;
  el__tsv_columns cols;
  char *const *labels;     /* tsv --labels: fixed label order and names (NULL: sorted from train) */
  int n_labels;
  long epochs, batch, max_seq_len, seed, doc_stride, max_query_len, threads;
  long max_train, max_dev; /* first N examples only (0 = all) */
  long log_every;          /* progress line every N steps */
  long accumulate;         /* micro-batches per rank and step (gradient accumulation); 0/1 none */
  double lr, layer_decay, warmup, weight_decay;
  int random_init;         /* keep the random encoder (baseline rows) */
  int overwrite;           /* --out may hold a model already: replace it */
  double time_limit;       /* seconds; > 0: the LR schedule is planned to end at it */
  el_score_rule ged_rule;  /* ged: how a word's pieces are labelled and scored */
  int dictionary;          /* ged: calibrate hunspell's verdicts beside the model on dev and
                              save its weight and threshold in config.json (ged_dict.h) */
  int ngram;               /* ged with dictionary: the English n-gram model's verdicts join
                              hunspell's (lang/ngram.h) */
  el__synth_opts synth;    /* ged: n_paths > 0 -> synthetic training data instead of train */
  double ged_joined;       /* ged --train: share of its sentences also trained on joined to the one
                              before them (el__ged_join_neighbours) */
  double average_weights;  /* > 0: dev and the checkpoint read an exponential moving average of the
                              weights with this decay (weight_avg.h); 0 = the last step's */
} el__ft_opts;

/* What a run found, as DIR/eval.json records it: for a caller that goes on
 * from it (electra-train recipe) without reading the file back. */
typedef struct el__ft_result {
  int best_epoch;
  el__ft_metrics dev; /* the best epoch's dev metrics */
  long steps, steps_per_epoch;
  double train_seconds; /* inside training steps: with steps, the step time */
} el__ft_result;

/* Runs everything; progress and notes go to log, the outcome to *res.
 * Returns EL_OK or an error (err names file/line/field). */
int el__ft_run(const el__ft_opts *o, FILE *log, el__ft_result *res, el_error *err);

/* The directory holding config.json: dir itself, or dir/discriminator for a
 * pretraining run directory. Writes into buf (n bytes). */
const char *el__ft_resolve_model_dir(const char *dir, char *buf, int n);

#endif
