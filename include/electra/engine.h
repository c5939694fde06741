/* Batched forward pass. Sequences of different lengths are packed end to end
 * (no padding): dense layers run once over all tokens, attention runs per
 * sequence. One el_model can serve many threads; each thread needs its own
 * el_workspace, sized once. */
#ifndef ELECTRA_ENGINE_H
#define ELECTRA_ENGINE_H

#include "error.h"
#include "model.h"
#include "score.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

/* Threads used by the engine's pool and by BLAS (process-wide; call before
 * running). A batch of several sequences is cut into chunks that the threads
 * take through all layers; one sequence splits each layer's work instead.
 * n <= 0 picks the CPU quota of the container or the core count. */
void el_set_threads(int n);
int el_get_threads(void);
/* Cores available to this process: cgroup v2 cpu.max quota if set, else the
 * affinity mask / online cores. Always >= 1. */
int el_cpu_quota(void);

typedef struct el_workspace el_workspace; /* opaque, not thread-safe */

/* Scratch memory for batches of at most max_tokens packed tokens in at most
 * max_seqs sequences (each no longer than max_position_embeddings).
 * Caller owns *out; free with el_workspace_free. */
int el_workspace_new(const el_model *m, int max_tokens, int max_seqs, el_workspace **out,
                     el_error *err);
void el_workspace_free(el_workspace *ws);

/* A packed batch; all arrays borrowed for the duration of the call. */
typedef struct el_batch {
  int n_seqs;
  const int *seq_len;  /* [n_seqs], each >= 1 */
  const int *ids;      /* [sum seq_len] token ids, sequences end to end */
  const int *type_ids; /* [sum seq_len] or NULL for all zeros */
} el_batch;

/* Each run function validates the batch (ids in range, lengths within the
 * workspace and max_position_embeddings) and the model's architecture, and
 * writes into caller-owned arrays. */

/* Final encoder hidden states, any architecture. hidden: [T * hidden_size]. */
int el_run_hidden(const el_model *m, el_workspace *ws, const el_batch *b, float *hidden,
                  el_error *err);
/* ElectraForPreTraining: sigmoid(discriminator logit) per token. prob: [T]. */
int el_run_replaced(const el_model *m, el_workspace *ws, const el_batch *b, float *prob,
                    el_error *err);
/* ElectraForSequenceClassification: logits [n_seqs * num_labels] from [CLS]
 * of each sequence (regression: one value per sequence). */
int el_run_classify(const el_model *m, el_workspace *ws, const el_batch *b, float *logits,
                    el_error *err);
/* ElectraForQuestionAnswering: start and end logits, [T] each. */
int el_run_qa(const el_model *m, el_workspace *ws, const el_batch *b, float *start_logits,
              float *end_logits, el_error *err);
/* ElectraForTokenClassification: label logits for every token, row-major
 * [T * num_labels] (token t's logits at t * num_labels). */
int el_run_token_classify(const el_model *m, el_workspace *ws, const el_batch *b, float *logits,
                          el_error *err);
/* ElectraForMaskedLM: vocabulary logits at n_pos packed positions (indices
 * into the batch's T tokens). logits: [n_pos * vocab_size]. */
int el_run_mlm(const el_model *m, el_workspace *ws, const el_batch *b, const int *positions,
               int n_pos, float *logits, el_error *err);
/* In place: each of n_rows rows of n logits (row r at rows + r * n) becomes
 * log-probabilities, log softmax, with a vectorised exp (relative error
 * < 2e-7) and the normaliser summed in double: el_run_mlm's rows as a
 * distribution over the vocabulary. */
void el_log_softmax(float *rows, int n_rows, int n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
