/* A /score model's grammar checker (check/check.h), behind /v2/check: the
 * generator that proposes its corrections (the model directory's
 * generator/, else --generator NAME=GEN_DIR) and the checker, made when the
 * model loads. A model the checker cannot be made for still serves /score;
 * /v2/check then answers 503 saying why. Runs at load (no BLAS call). */
#ifndef EL_SERVER_CHECKER_H
#define EL_SERVER_CHECKER_H

#include "srv_models.h"

/* Sets e->generator, e->checker, or e->check_err (never fails the load). */
/* verify_dtype: the verification pass's el_dtype, -1 for el__check_verifier_load's default. */
void el__srv_checker_attach(el__model_entry *e, const char *generator_dir, int verify_dtype);
void el__srv_checker_detach(el__model_entry *e);

#endif
