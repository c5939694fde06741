/* The table of fine-tuning tasks: head kind, metric, defaults, GLUE columns.
 * Label orders follow the GLUE processors (HF run_glue / GR
 * classification_tasks.py): "0","1" for the binary 0/1 tasks, the sorted
 * strings otherwise (which is also the processors' order). */
#include <string.h>

#include "task_data.h"

static const char *const L01[] = {"0", "1"};
static const char *const L_ENT[] = {"entailment", "not_entailment"};
static const char *const L_MNLI[] = {"contradiction", "entailment", "neutral"};

#define CLS EL__TASK_CLS
static const el__task TASKS[] = {
    /* name   kind squad2 metric epochs len pair text pair label (by name) pos: t p l min */
    {"cola", CLS, 0, "mcc", 3, 128, 0, "sentence", NULL, "label", 3, -1, 1, 4, L01, 2},
    {"sst2", CLS, 0, "accuracy", 3, 128, 0, "sentence", NULL, "label", -1, -1, -1, 0, L01, 2},
    {"mrpc", CLS, 0, "f1", 3, 128, 1, "#1 String", "#2 String", "Quality", -1, -1, -1, 0, L01, 2},
    {"stsb", EL__TASK_REG, 0, "spearman", 10, 128, 1, "sentence1", "sentence2", "score", -1, -1,
     -1, 0, NULL, 0},
    {"qqp", CLS, 0, "f1", 3, 128, 1, "question1", "question2", "is_duplicate", -1, -1, -1, 0, L01,
     2},
    {"mnli", CLS, 0, "accuracy", 3, 128, 1, "sentence1", "sentence2", "gold_label", -1, -1, -1, 0,
     L_MNLI, 3},
    {"qnli", CLS, 0, "accuracy", 3, 128, 1, "question", "sentence", "label", -1, -1, -1, 0, L_ENT,
     2},
    {"rte", CLS, 0, "accuracy", 10, 128, 1, "sentence1", "sentence2", "label", -1, -1, -1, 0, L_ENT,
     2},
    {"wnli", CLS, 0, "accuracy", 3, 128, 1, "sentence1", "sentence2", "label", -1, -1, -1, 0, L01,
     2},
    /* generic: columns from --text-column/--pair-column/--label-column (default
     * names text/label), labels sorted from the training file */
    {"tsv", CLS, 0, "accuracy", 3, 128, 0, "text", NULL, "label", -1, -1, -1, 0, NULL, 0},
    {"ged", EL__TASK_GED, 0, "f0.5", 3, 128, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0},
    {"squad", EL__TASK_QA, 0, "f1", 2, 384, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0},
    {"squad2", EL__TASK_QA, 1, "f1", 2, 384, 0, NULL, NULL, NULL, -1, -1, -1, 0, NULL, 0},
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
