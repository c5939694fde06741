/* Fine-tuning tasks and their data readers (docs/MODEL.md §8).
 *
 * The task table names each TASK of `electra-train finetune/eval`, its head
 * kind, metric and defaults, and for GLUE where the text/pair/label columns
 * live. Readers parse the files as distributed:
 *  - GLUE TSV (train/finetune/task_glue.c): columns found by header name, or by
 *    position for CoLA's headerless 4-column files; UTF-8 BOM and CRLF
 *    tolerated; no quoting (GLUE is read with QUOTE_NONE).
 *  - GED token-per-line files (train/finetune/task_ged.c): "token<TAB or SPACE>c|i",
 *    blank line between sentences, CRLF tolerated.
 *  - SQuAD v1.1/v2.0 JSON (train/finetune/task_squad.c); answer_start in code points,
 *    checked against the context.
 *
 * Bad input: a file-level problem (missing file, no header column of that
 * name, unknown label, a GED line without label) is an error naming file and
 * line; a row-level defect the reader can step over (too few columns, empty
 * text, a SQuAD answer not at its offset) is skipped, counted in n_skipped and
 * described (first occurrence) in first_skip, which the commands print.
 * All data structures own their strings; free with the matching *_free. */
#ifndef EL_TRAIN_TASK_DATA_H
#define EL_TRAIN_TASK_DATA_H

#include <stdint.h>

#include "electra/error.h"

typedef enum el__task_kind {
  EL__TASK_CLS = 0, /* sequence classification (ElectraForSequenceClassification) */
  EL__TASK_REG,     /* regression, one output (STS-B) */
  EL__TASK_GED,     /* token error detection with the discriminator head */
  EL__TASK_QA       /* extractive QA (ElectraForQuestionAnswering) */
} el__task_kind;

typedef struct el__task {
  const char *name;
  el__task_kind kind;
  int squad2;                 /* QA with unanswerable questions */
  const char *metric;         /* primary metric key in the metrics JSON */
  int epochs;                 /* default epochs (docs/MODEL.md §8) */
  int max_seq_len;            /* default */
  int pair;                   /* GLUE: sentence pairs */
  /* GLUE columns by header name (NULL: none) ... */
  const char *text_name, *pair_name, *label_name;
  /* ... or by 0-based position for headerless files (-1: no headerless form) */
  int text_pos, pair_pos, label_pos, min_cols;
  const char *const *labels;  /* fixed label order, or NULL (sorted from train) */
  int n_labels;
  /* names the model's id2label gets (HF's GLUE names: "negative" for sst2's
   * "0"), or NULL: the labels themselves */
  const char *const *label_names;
} el__task;

/* NULL for an unknown name. */
const el__task *el__task_find(const char *name);
/* "cola sst2 ..." for usage and error messages. */
const char *el__task_names(void);
/* "unknown --task 'sst-2' (did you mean sst2? one of: ...)" into buf. */
const char *el__task_unknown(const char *name, char *buf, size_t cap);

/* ---- classification / regression ---- */

typedef struct el__cls_example {
  char *a, *b;   /* b NULL for single-sentence tasks */
  int label;     /* index into labels (classification) */
  float value;   /* regression target (raw, e.g. 0..5) */
  int line;      /* 1-based line in the file */
} el__cls_example;

typedef struct el__cls_data {
  el__cls_example *ex;
  int n;
  size_t cap;
  char **labels; /* [n_labels] label strings, owned */
  int n_labels;
  int regression;
  int n_skipped;
  char first_skip[300];
} el__cls_data;

/* Column overrides for TASK tsv (or any GLUE task): a header name, or a
 * 0-based column number. When every given column is a number the file is
 * read without header. NULL fields keep the task's default. */
typedef struct el__tsv_columns {
  const char *text, *pair, *label;
} el__tsv_columns;

/* Reads a labelled TSV file. labels/n_labels: the label set to use (a dev or
 * eval file must use the training labels: an unknown label is an error naming
 * file and line); NULL takes the task's fixed list or, for tsv, the sorted set
 * of labels found in the file. out is zero-initialised by the call. */
int el__cls_read(const el__task *t, const char *path, const el__tsv_columns *cols,
                 char *const *labels, int n_labels, el__cls_data *out, el_error *err);
void el__cls_free(el__cls_data *d);

/* ---- grammatical error detection ---- */

typedef struct el__ged_sentence {
  int n;              /* words */
  char **words;       /* [n] */
  unsigned char *err; /* [n] 1 = "i" (incorrect), 0 = "c" */
  int line;           /* line of the first word */
} el__ged_sentence;

typedef struct el__ged_data {
  el__ged_sentence *s;
  int n;
  size_t cap;
  long n_words, n_errors;
  /* Errors real text would have beside these that the data lacks (generated
   * data: the learner errors of types the generator does not make). The F0.5
   * threshold search counts them as missed; 0 for a real GED file. */
  double unseen_errors;
  /* The threshold search takes the lowest threshold within this fraction of
   * the best F0.5 (el__ged_best_threshold); 0 for a real GED file. */
  double near_best;
  /* Generated data (ged_synth.h): its errors were made by lang/'s learner-error
   * generator, not by learners. */
  int generated;
} el__ged_data;

int el__ged_read(const char *path, el__ged_data *out, el_error *err);
void el__ged_free(el__ged_data *d);
/* Appends to g, for each of its sentences after the first with probability
 * share (seeded), that sentence and the one before it in the file as one
 * unit of their own (when they have at most max_words): so a model
 * fine-tuned on single sentences also reads a text of several, as /score
 * gets them. The sentences themselves stay. */
int el__ged_join_neighbours(el__ged_data *g, double share, uint64_t seed, int max_words,
                            el_error *err);

/* ---- SQuAD ---- */

typedef struct el__squad_answer {
  char *text;
  int start; /* code points into the context, as in the file */
  int ok;    /* text found at start */
} el__squad_answer;

typedef struct el__squad_q {
  char *id;       /* unique: a repeated id gets "#<n>" appended (TyDi's are not unique) */
  char *question;
  int ctx;        /* index into contexts */
  int impossible;
  el__squad_answer *answers;
  int n_answers;
  int train_answer; /* first answer with ok == 1, or -1 */
} el__squad_q;

typedef struct el__squad_data {
  char **contexts;
  int n_ctx;
  size_t cap_ctx;
  el__squad_q *q;
  int n_q;
  size_t cap_q;
  int v2;                  /* any is_impossible seen or version "v2.0" */
  int n_bad_answers;       /* answers whose text is not at answer_start */
  int n_untrainable;       /* answerable questions without any usable answer */
  int n_renamed_ids;
  char first_skip[300];
} el__squad_data;

int el__squad_read(const char *path, el__squad_data *out, el_error *err);
void el__squad_free(el__squad_data *d);

#endif
