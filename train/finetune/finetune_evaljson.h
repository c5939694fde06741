/* DIR/eval.json of a fine-tuning run: the best epoch's dev metrics, every
 * epoch's, and the settings that produced them, written atomically. */
#ifndef EL_TRAIN_FINETUNE_EVALJSON_H
#define EL_TRAIN_FINETUNE_EVALJSON_H

#include <cJSON.h>

#include "electra/error.h"
#include "finetune_run.h"

/* What the run found, beside its options. Borrowed pointers. */
typedef struct el__ft_run_summary {
  int best_epoch;
  const el__ft_metrics *best;
  const cJSON *epochs;
  int train_examples;
  long steps, steps_per_epoch;
  double wall_s, cpu_s;
  double train_s; /* inside training steps (no dev evaluation, logging or saving) */
  const char *init_dir;
} el__ft_run_summary;

/* One epoch's entry appended to epochs (a JSON array; nothing on out of memory). */
void el__ft_add_epoch(cJSON *epochs, const el__task *t, long ep, double train_loss,
                      const el__ft_metrics *mt);

/* Writes o->out/eval.json. */
int el__ft_write_eval_json(const el__ft_opts *o, const el__ft_run_summary *r, el_error *err);

#endif
