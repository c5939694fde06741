/* RUN/metrics.jsonl (one JSON object per logged training step and per
 * validation) and RUN/loss.svg drawn from the same rows.
 *
 * Line format: {"kind":"train"|"val","step":N, <field>:<number>...} with the
 * fields of el__mfield that the row has. A resumed run first drops the rows
 * logged after the step it resumes from (they belong to the lost part of the
 * interrupted run), so the file always describes one consistent history. */
#ifndef EL_TRAIN_METRICS_LOG_H
#define EL_TRAIN_METRICS_LOG_H

#include <stdint.h>
#include <stdio.h>
#include "electra/error.h"

typedef enum el__mfield {
  EL_MF_TIME,          /* training seconds so far */
  EL_MF_TOKENS,        /* tokens seen so far */
  EL_MF_LR,
  EL_MF_LOSS,          /* total loss (gen + disc_weight * disc, or MLM) */
  EL_MF_GEN_LOSS,      /* generator (or MLM model) loss at the masked positions */
  EL_MF_GEN_ACC,       /* generator argmax accuracy at the masked positions */
  EL_MF_DISC_LOSS,
  EL_MF_DISC_ACC,      /* over all tokens */
  EL_MF_DISC_AUC,      /* validation: replaced vs original tokens */
  EL_MF_UNIGRAM_ACC,   /* validation: accuracy of always predicting the most frequent token */
  EL_MF_REPLACED_FRAC, /* fraction of tokens the discriminator should flag */
  EL_MF_TOKENS_PER_S,
  EL_MF_GRAD_NORM,
  EL_MF_DISC_BASE_LOSS, /* validation: loss of the best constant answer (the base rate) */
  EL_MF_PLANNED_STEPS, /* train rows of a --time-limit run: the schedule's planned total */
  EL_MF_EPOCH,         /* fine-tuning: the epoch (1, 2, ...) */
  EL_MF_EXAMPLES_PER_S, /* fine-tuning train rows */
  EL_MF_DEV_SCORE,     /* fine-tuning val rows: the task's dev metric (eval.json "metric") */
  EL_MF_COUNT
} el__mfield;


typedef struct el__mrow {
  int val;      /* 0 train, 1 validation */
  int64_t step;
  uint32_t has; /* bit f set when v[f] is present */
  double v[EL_MF_COUNT];
} el__mrow;

static inline void el__mrow_set(el__mrow *r, el__mfield f, double x) {
  r->v[f] = x;
  r->has |= 1u << f;
}

typedef struct el__mlog {
  char *path;
  FILE *f;
  el__mrow *rows;
  int n;
  size_t cap;
  int write_failed; /* set after the first failed append */
} el__mlog;

/* Opens path for appending. keep_upto < 0: start a new file. Else: load the
 * existing rows with step <= keep_upto (a missing file is an empty history),
 * rewrite the file with just those, and append after them. A line that is
 * not JSON (the torn last line of a killed run) is dropped; a row with a
 * missing "kind" or "step", or a number out of range (a step or count that
 * is negative or not whole: json_num.h) is EL_EFORMAT naming the file, the
 * line and the key. */
int el__mlog_open(el__mlog *m, const char *path, int64_t keep_upto, el_error *err);
/* A log kept in memory only (no file): el__mlog_add keeps the rows, and
 * el__mlog_save writes them where and when the caller wants (fine-tuning,
 * whose output directory is replaced by every checkpoint save). */
void el__mlog_open_memory(el__mlog *m);
/* Appends one row (kept in memory too) and, with a file, flushes the line. */
int el__mlog_add(el__mlog *m, const el__mrow *r, el_error *err);
/* Writes every row to path atomically (el__write_atomic). */
int el__mlog_save(const el__mlog *m, const char *path, el_error *err);
void el__mlog_close(el__mlog *m);

/* Draws svg_path for pretraining, every axis linear: the generator (MLM)
 * loss; the discriminator loss against its base-rate loss (the best
 * constant answer: what "learning nothing" scores), train and validation;
 * the validation metrics in [0, 1] (generator accuracy, discriminator AUC,
 * unigram baseline) with a dot on each validation; the learning rate. mlm:
 * panels 1, 3 (MLM accuracy) and 4. */
int el__mlog_plot(const el__mlog *m, const char *svg_path, const char *title, int mlm,
                  el_error *err);
/* Draws svg_path for fine-tuning: the training loss per logged interval
 * and each epoch's mean (dots); the dev metric (named metric) per epoch
 * (dots); the learning rate. */
int el__mlog_plot_finetune(const el__mlog *m, const char *svg_path, const char *title,
                           const char *metric, el_error *err);

#endif
