/* electra-train eval --task ged --m2 FILE: corrections scored the way GEC
 * is (train/report/m2_score.h), a spellchecker's beside them. */
#ifndef EL_TRAIN_CMD_EVAL_M2_H
#define EL_TRAIN_CMD_EVAL_M2_H

typedef struct el__eval_m2_args {
  const char *m2;       /* the gold M2 file */
  const char *outp;     /* the scores as JSON, or NULL */
  const char *dict_dir; /* hunspell's dictionaries; NULL: /usr/share/hunspell */
  long max_sents;       /* score the first N sentences (0: all) */
} el__eval_m2_args;

/* Scores the corrections, prints them side by side (a table on stdout) and
 * writes --out. Returns the exit status. */
int el__eval_m2(const el__eval_m2_args *a);

#endif
