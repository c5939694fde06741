/* The engine runner for the batcher: packs a batch of sequences of one model
 * (an el__model_entry) and runs the forward pass its architecture calls for.
 * Output per sequence (el__seq.out):
 *   ElectraForPreTraining             len floats: replaced probability per token
 *   ElectraForSequenceClassification  num_labels floats: logits of [CLS]
 *   ElectraForQuestionAnswering       2*len floats: start logits, then end logits
 *   ElectraForMaskedLM                nothing (warm-up runs the encoder only) */
#ifndef EL_SERVER_RUNNER_H
#define EL_SERVER_RUNNER_H

#include "srv_batcher.h"

typedef struct el__runner_ctx el__runner_ctx;

/* threads: engine threads set on the inference thread (<= 0: CPU quota). */
el__runner_ctx *el__runner_new(int threads);
void el__runner_free(el__runner_ctx *r);
el__runner el__runner_engine(el__runner_ctx *r);

#endif
