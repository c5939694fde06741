/* The engine runner for the batcher: packs a batch of sequences of one model
 * (an el__model_entry) and runs the forward pass its architecture calls for,
 * its entry's run in the server's head table (srv_heads.h says what each
 * sequence's el__seq.out receives). */
#ifndef EL_SERVER_RUNNER_H
#define EL_SERVER_RUNNER_H

#include "srv_batcher.h"

typedef struct el__runner_ctx el__runner_ctx;

/* threads: engine threads set on the inference thread (<= 0: CPU quota). */
el__runner_ctx *el__runner_new(int threads);
void el__runner_free(el__runner_ctx *r);
el__runner el__runner_engine(el__runner_ctx *r);

/* Test hook, for the e2e tests only: every batch sleeps us_per_token
 * microseconds per token after its forward pass, so a test can hold a batch
 * running for a known time (a request's deadline passing inside it). Armed
 * by electra-server only when the environment has
 * EL_TEST_BATCH_US_PER_TOKEN (logged as a warning); 0 = off. */
void el__runner_test_delay(el__runner_ctx *r, long us_per_token);

#endif
