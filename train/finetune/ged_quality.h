/* What a GED model says it is: its quality class, measured on the dev data
 * that calibrated it, written as quality.json beside config.json by the
 * recipe. The server's /info and `make run`'s banner show its summary, so a
 * user knows whether a model is a demo or a detector worth more than the
 * spellchecker already on their machine. */
#ifndef EL_TRAIN_GED_QUALITY_H
#define EL_TRAIN_GED_QUALITY_H

#include "electra/error.h"

struct cJSON;

/* A model is a demo when it was made in less than this, or when on its own
 * dev data what /score flags does not beat hunspell alone (the spellchecker a
 * user already has; the n-gram model's verdicts are the served combination's
 * part, not the baseline's) by EL__QUALITY_MARGIN. */
#define EL__QUALITY_MIN_SECONDS 600.0
#define EL__QUALITY_MARGIN 1.25

/* Writes dir/quality.json from dev (the "dev" object of the final stage's
 * eval.json: its F0.5 and, with --dictionary, the combination's and
 * hunspell's alone), the recipe's budget in seconds, and what calibrated it
 * (dev_file, or NULL: the model's own synthetic dev data). */
int el__ged_quality_write(const char *dir, const struct cJSON *dev, double seconds,
                          const char *dev_file, el_error *err);

#endif
