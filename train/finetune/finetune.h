/* Fine-tuning and evaluation internals shared by `electra-train finetune`
 * (train/cmd/cmd_finetune.c) and `electra-train eval` (train/cmd/cmd_eval.c).
 *
 * Pipeline: a reader (task_data.h) gives examples; el__ft_data turns them
 * into model inputs ("features": one packed sequence each, with its training
 * target); el__ft_run runs AdamW over them (finetune_run.c) and evaluates on
 * dev after each epoch with el__ft_evaluate (finetune_eval.c), which runs the
 * trainable model in eval mode and computes the task's metrics.
 *
 * Feature building per task (docs/MODEL.md §8):
 *  - cls/reg: [CLS] a [SEP] (b [SEP]), pairs truncated longest-first.
 *  - ged: one tokenization per word; with the "first" word rule a word's
 *    label goes to its first piece and its other pieces are ignored, with
 *    "max"/"mean" every piece carries the word's label (a word is scored by
 *    the same rule at evaluation and by /score: el_word_prob); [CLS]/[SEP]
 *    are ignored; a word that yields no piece is given [UNK] so every word is
 *    predicted; sentences longer than max_seq_len are split at word
 *    boundaries into several features.
 *  - qa: windows from include/electra/qa.h (the same as /qa); the answer
 *    maps to the pieces it overlaps; impossible or out-of-window -> [CLS]. */
#ifndef EL_TRAIN_FINETUNE_H
#define EL_TRAIN_FINETUNE_H

#include <stdio.h>

#include "electra/electra.h"
#include "electra/qa.h"
#include "ged_dict.h"
#include "task_data.h"
#include "tmodel.h"

/* Examples of one file, whatever the task (only the task's member is set). */
typedef struct el__ft_examples {
  const el__task *task;
  const char *path;
  el__cls_data cls;
  el__ged_data ged;
  el__squad_data squad;
} el__ft_examples;

/* Reads path for task. labels/n_labels as in el__cls_read (classification).
 * max_examples > 0 keeps only the first that many examples (sentences for
 * ged, questions for squad). Prints nothing. */
int el__ft_read(const el__task *t, const char *path, const el__tsv_columns *cols,
                char *const *labels, int n_labels, int max_examples, el__ft_examples *out,
                el_error *err);
void el__ft_examples_free(el__ft_examples *e);
/* One line describing skipped rows/answers ("" when none), for stderr. */
void el__ft_skip_note(const el__ft_examples *e, char *buf, int n);

typedef struct el__feat {
  long off;        /* first token in el__ft_data.ids */
  int len;
  int example;     /* index of the example (question, sentence, row) */
  int label;       /* cls: class; qa: start position (0 = [CLS]) */
  int label2;      /* qa: end position */
  float value;     /* reg target */
  int window;      /* qa: window index within its question */
} el__feat;

typedef struct el__ft_data {
  el__feat *f;
  int n;
  size_t cap;
  int *ids, *types;
  signed char *tlab; /* ged: per token 0/1, or -1 = ignored */
  int *tword;        /* ged: word index in its sentence per piece ([CLS]/[SEP]: -1) */
  long n_tok, cap_tok;
  int max_len;       /* longest feature */
  long n_truncated;  /* cls: examples that lost pieces; ged: words cut */
  el_qa_windows *qa_w; /* qa: the windows of every question (owned) */
  int n_qa_w;
  int *qa_first_feat;  /* qa: [n questions] index of the first feature */
} el__ft_data;

typedef struct el__ft_shape {
  int max_seq_len;
  el_qa_params qa;   /* qa only */
  el_score_rule ged_rule; /* ged: how pieces make a word (labels and scores) */
  /* ged: the spelling dictionary combined with the model (ged_dict.h), NULL:
   * the model alone. dict_weight < 0: calibrated on the data; dict_threshold:
   * the combination's threshold when the evaluation does not choose one. */
  el__dict *dict;
  double dict_weight, dict_name_weight, dict_threshold;
  /* ged with dict: the English n-gram model's verdicts join the dictionary's
   * (ged_dict.h; lm NULL: the dictionary's alone) */
  el__ged_readers ngram;
} el__ft_shape;

int el__ft_features(const el__ft_examples *ex, const el_tokenizer *tok, const el__ft_shape *s,
                    el__ft_data *out, el_error *err);
void el__ft_data_free(el__ft_data *d);

/* Metrics of one evaluation. */
typedef struct el__ft_metrics {
  double primary;            /* the task's metric (task->metric) */
  double accuracy, mcc, f1, pearson, spearman;
  double precision, recall, f05;  /* ged: at `threshold` */
  double threshold;                /* ged: the threshold applied (chosen, or the model's) */
  double precision05, recall05, f05_05; /* ged: at 0.5 */
  el_score_rule ged_rule;          /* ged: the word rule used */
  double em, f1_qa, has_ans_f1, no_ans_f1;
  int n;                     /* examples scored */
  int has_null_threshold;
  float null_threshold;      /* squad2: chosen (or the model's) */
  int has_dict;              /* ged with a dictionary: dict holds its scores */
  el__ged_dict_result dict;
} el__ft_metrics;

/* Something that runs a batch of features in inference mode, writing:
 * cls/reg: logits [n_seqs * K]; ged: P(error) per token [T]; qa: start
 * logits [T] into out and end logits [T] into out2. Two implementations:
 * the trainable model in eval mode (el__ft_tmodel_run, used for dev
 * evaluation during training) and the engine on a loaded checkpoint
 * (el__ft_engine_run, used by `eval`: the inference path of the server). */
typedef struct el__ft_runner {
  int (*run)(void *ctx, const el_batch *b, float *out, float *out2, el_error *err);
  void *ctx;
} el__ft_runner;

typedef struct el__ft_tmodel_ctx {
  el__tmodel *m;
  el__task_kind kind;
  int K;
} el__ft_tmodel_ctx;
int el__ft_tmodel_run(void *ctx, const el_batch *b, float *out, float *out2, el_error *err);

typedef struct el__ft_engine_ctx {
  const el_model *m;
  el_workspace *ws;
  el__task_kind kind;
  int correct_label; /* ged with an ElectraForTokenClassification model: its "no error" label */
  float *logits;     /* ... and its label logits (grown as needed; el__ft_engine_ctx_free) */
  size_t cap_logits;
} el__ft_engine_ctx;
void el__ft_engine_ctx_free(el__ft_engine_ctx *c);
int el__ft_engine_run(void *ctx, const el_batch *b, float *out, float *out2, el_error *err);

/* Runs every feature through r (batches of `batch` sequences) and scores it.
 * With pick_threshold != 0 the threshold that maximises the task's metric is
 * chosen and reported (squad2: the null threshold by F1; ged: the error
 * threshold by F0.5); otherwise `threshold` (the model's) is applied. If
 * pred is non-NULL, predictions are written there (TSV for cls/reg/ged, a
 * JSON object id -> answer for qa). */
int el__ft_evaluate(const el__ft_runner *r, const el__ft_examples *ex, const el__ft_data *d,
                    const el__ft_shape *s, int batch, int pick_threshold, float threshold,
                    FILE *pred, el__ft_metrics *out, el_error *err);

/* The metrics as a JSON object (caller frees with cJSON_Delete; NULL when out
 * of memory): the task's own metrics, then "metric" (its primary metric's
 * name) and "score" (its value) for every task; and the same as one line (no
 * newline) into buf, fractions rounded to 4 decimals when short (the log
 * lines; eval.json and eval's output keep every digit). */
struct cJSON;
struct cJSON *el__ft_metrics_object(const el__task *t, const el__ft_metrics *mt);
void el__ft_metrics_json(const el__task *t, const el__ft_metrics *mt, int short_, char *buf,
                         int n);

#endif
