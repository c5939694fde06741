/* The table of fine-tuning tasks: head kind, metric, defaults, GLUE columns.
 * Label orders follow the GLUE processors (HF run_glue / GR
 * classification_tasks.py): "0","1" for the binary 0/1 tasks, the sorted
 * strings otherwise (which is also the processors' order). */
#include <stdio.h>
#include <string.h>

#include "el_cli.h"
#include "task_data.h"

static const char *const L01[] = {"0", "1"};
static const char *const L_ENT[] = {"entailment", "not_entailment"};
static const char *const L_MNLI[] = {"contradiction", "entailment", "neutral"};
/* id2label names of the 0/1 tasks, as HF's GLUE models name them */
static const char *const N_COLA[] = {"unacceptable", "acceptable"};
static const char *const N_SST2[] = {"negative", "positive"};
static const char *const N_MRPC[] = {"not_equivalent", "equivalent"};
static const char *const N_QQP[] = {"not_duplicate", "duplicate"};
static const char *const N_WNLI[] = {"not_entailment", "entailment"};

#define CLS EL__TASK_CLS
static const el__task TASKS[] = {
    /* name   kind squad2 metric epochs len pair text pair label (by name) pos: t p l min */
    {"cola", CLS, 0, "mcc", 3, 128, 0, "sentence", NULL, "label", 3, -1, 1, 4, L01, 2, N_COLA},
    {"sst2", CLS, 0, "accuracy", 3, 128, 0, "sentence", NULL, "label", -1, -1, -1, 0, L01, 2, N_SST2},
    {"mrpc", CLS, 0, "f1", 3, 128, 1, "#1 String", "#2 String", "Quality", -1, -1, -1, 0, L01, 2, N_MRPC},
    {"stsb", EL__TASK_REG, 0, "spearman", 10, 128, 1, "sentence1", "sentence2", "score", -1, -1,
     -1, 0, NULL, 0, NULL},
    {"qqp", CLS, 0, "f1", 3, 128, 1, "question1", "question2", "is_duplicate", -1, -1, -1, 0, L01,
     2, N_QQP},
    {"mnli", CLS, 0, "accuracy", 3, 128, 1, "sentence1", "sentence2", "gold_label", -1, -1, -1, 0,
     L_MNLI, 3, NULL},
    {"qnli", CLS, 0, "accuracy", 3, 128, 1, "question", "sentence", "label", -1, -1, -1, 0, L_ENT,
     2, NULL},
    {"rte", CLS, 0, "accuracy", 10, 128, 1, "sentence1", "sentence2", "label", -1, -1, -1, 0, L_ENT,
     2, NULL},
    {"wnli", CLS, 0, "accuracy", 3, 128, 1, "sentence1", "sentence2", "label", -1, -1, -1, 0, L01,
     2, N_WNLI},
    /* generic: columns from --text-column/--pair-column/--label-column (default
     * names text/label), labels sorted from the training file */
    {"tsv", CLS, 0, "accuracy", 3, 128, 0, "text", NULL, "label", -1, -1, -1, 0, NULL, 0, NULL},
    {"ged", EL__TASK_GED, 0, "f0.5", 3, 128, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0, NULL},
    {"squad", EL__TASK_QA, 0, "f1", 2, 384, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0, NULL},
    {"squad2", EL__TASK_QA, 1, "f1", 2, 384, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0, NULL},
};
#undef CLS

const el__task *el__task_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof TASKS / sizeof TASKS[0]; i++)
    if (!strcmp(TASKS[i].name, name)) return &TASKS[i];
  return NULL;
}

const char *el__task_names(void) {
  return "cola sst2 mrpc stsb qqp mnli qnli rte wnli tsv ged squad squad2";
}

/* One message for finetune and eval, with the option engine's did-you-mean
 * (common/cli.c) so "sst-2" gets "did you mean sst2?" like options do. */
const char *el__task_unknown(const char *name, char *buf, size_t cap) {
  enum { N = sizeof TASKS / sizeof TASKS[0] };
  const char *names[N];
  for (int i = 0; i < N; i++) names[i] = TASKS[i].name;
  const char *near = el__near_miss(name, names, N);
  if (near)
    snprintf(buf, cap, "unknown --task '%s' (did you mean %s? one of: %s)", name, near,
             el__task_names());
  else
    snprintf(buf, cap, "unknown --task '%s' (one of: %s)", name, el__task_names());
  return buf;
}
