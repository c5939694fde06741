/* The fine-tuning side of each task kind (el__task_kind), one table entry
 * each (finetune_heads.c): the head it trains, its outputs per row, its loss
 * and the loss's divisor. Used by the fine-tuning loop (finetune_run.c). */
#ifndef EL_TRAIN_FINETUNE_HEADS_H
#define EL_TRAIN_FINETUNE_HEADS_H

#include "finetune.h"

/* The fine-tuning side of each task kind (el__task_kind) in one entry: the
 * head it trains (configure sets the architecture and labels; the head itself
 * is the trainer's and the engine's table entry of that architecture), the
 * outputs per row of that head, the loss on them and the loss's divisor. */
typedef struct el__ft_head {
  int (*configure)(const el__task *t, const el__cls_data *labels, el_config *cfg); /* -1: OOM */
  int outputs; /* head outputs per row; 0: num_labels */
  long (*norm)(const el__ft_data *d, const int *idx, int nb);
  double (*loss)(const el__ft_data *d, const int *idx, int nb, long norm_l, const float *o, int K,
                 float *dout);
} el__ft_head;

/* The entry of a task kind. */
const el__ft_head *el__ft_head_of(el__task_kind kind);

/* The task's architecture and labels on a copy of the encoder's config
 * (cfg owned by the caller: el__config_free). EL_ENOMEM. */
int el__ft_task_config(const el__task *t, const el_config *src, const el__cls_data *labels,
                       el_config *cfg, el_error *err);

#endif
