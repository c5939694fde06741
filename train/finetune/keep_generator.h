/* A fine-tuned model keeps the generator it was trained beside (issue 38's
 * corrections fill a masked word with it): `finetune --init RUN` copies
 * RUN/generator/ (a pretraining run) or INIT/generator/ (a model that
 * already carries one) to OUT/generator/, so `recipe ged` and `make run`
 * deliver a model directory whose generator the checker finds. */
#ifndef EL_TRAIN_KEEP_GENERATOR_H
#define EL_TRAIN_KEEP_GENERATOR_H

#include "electra/error.h"

/* Copies init/generator/ to out/generator/ when init has one (1 copied, 0
 * none to copy); the copy appears whole or not at all (a temporary folder
 * renamed into place, replacing an older one). Errors name the file. */
int el__ft_keep_generator(const char *init, const char *out, el_error *err);

#endif
