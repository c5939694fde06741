/* A grammar checker (check/check.h) over model directories, as the
 * commands that check text open it: `check` and `eval --m2`. */
#ifndef EL_TRAIN_CHECKER_OPEN_H
#define EL_TRAIN_CHECKER_OPEN_H

#include "check.h"

typedef struct el__checker_args {
  const char *model;     /* the detector's directory */
  const char *generator; /* a generator's directory; NULL: MODEL/generator when it holds one */
  const char *correct;   /* a token classifier's "no error" label; NULL: found by name */
  double threshold;      /* < 0: the threshold /score flags at (the dictionary
                            combination's, else the model's score_threshold, else 0.5) */
  double suggest_threshold; /* < 0: the threshold (el__checker_opts.suggest_threshold) */
  const char *dict_dir;  /* hunspell's dictionaries; NULL: /usr/share/hunspell */
  int dtype;             /* the detector's el_dtype */
  int verify_dtype;      /* the verification pass's el_dtype; -1: el__check_verifier_load's default */
} el__checker_args;

typedef struct el__checker_set {
  el_model *det, *gen, *ver;
  el__ngram *ngram; /* a model calibrated with it (score_dictionary_ngram): its corrections */
  el__checker *checker;
} el__checker_set;

/* Loads the models and makes the checker; *out zeroed first, released by
 * el__checker_close (also after a failure). */
int el__checker_open(const el__checker_args *a, el__checker_set *out, el_error *err);
void el__checker_close(el__checker_set *s);

#endif
