/* electra-train eval --task ged --m2 FILE: corrections scored the way GEC
 * is (train/report/m2_score.h), a spellchecker's beside them. */
#ifndef EL_TRAIN_CMD_EVAL_M2_H
#define EL_TRAIN_CMD_EVAL_M2_H

#include "checker_open.h"
#include "m2.h"

typedef struct el__eval_m2_args {
  const char *m2;       /* the gold M2 file */
  const char *outp;     /* the scores as JSON, or NULL */
  const char *edits;    /* the first system's edits as an M2 file, or NULL */
  long max_sents;       /* score the first N sentences (0: all) */
  el__checker_args ck;  /* the model (ck.model NULL: hunspell alone); ck.dict_dir for both */
  el__dict_variant variant; /* the English checked, by the model's checker and hunspell alike */
} el__eval_m2_args;

/* Scores the corrections, prints them side by side (a table on stdout) and
 * writes --out. Returns the exit status. */
int el__eval_m2(const el__eval_m2_args *a);

/* The checker's corrections of m's sentences (checked as variant v) into
 * prop[i] (m->n of them): each match's first replacement as a token edit
 * (cmd_eval_check.c). */
int el__eval_m2_check(el__checker *c, el__dict_variant v, const el__m2 *m, el__m2_edits *prop,
                      el_error *err);

#endif
