/* A trainable ELECTRA encoder + head: forward that keeps every activation
 * the backward needs, and backward that accumulates parameter gradients.
 *
 * The head follows cfg->arch, its entry in tmodel.c's head table (output
 * layouts, row-major, float):
 *   EL_ARCH_PRETRAINING  discriminator (also GED): logits [T], one per packed
 *                        token; P(replaced) = sigmoid(logit).
 *                        dense H->H, gelu (hidden_act), dense H->1. No dropout.
 *   EL_ARCH_MASKED_LM    generator at n_pos packed positions: logits [n_pos, V];
 *                        gather, dense H->E, gelu, LayerNorm(E), . word^T + bias.
 *   EL_ARCH_SEQ_CLS      HF ElectraClassificationHead on each sequence's first
 *                        token: logits [n_seqs, num_labels]; dropout, dense H->H,
 *                        gelu, dropout, out_proj (dropout = hidden_dropout).
 *   EL_ARCH_QA           qa_outputs on every token: logits [T, 2] (column 0
 *                        start, column 1 end). No dropout.
 * T = total packed tokens of the batch (engine/engine.h el_batch).
 *
 * Dropout (train != 0): hidden dropout after the embedding LayerNorm, after
 * each attention-output and FFN-output dense (before the residual add), and in
 * the classification head; attention dropout on the softmax probabilities.
 * A training forward takes exactly one draw from the el__rng passed in and
 * derives every mask from it with counter-based hashing keyed by each row's
 * global sequence index (el__tmodel_set_seq0 + its place in the batch) and
 * position, so a sequence's masks depend only on that draw and on which
 * sequence of the global batch it is -- never on the thread count, the
 * packing offset, or how ranks and accumulation split the batch -- and a run
 * is reproducible from its seed. Hidden masks are recomputed by backward rather
 * than stored. Probabilities are cfg's. train == 0 (or both probabilities 0) draws nothing.
 *
 * Threads: the work is split by the op pool (nn/op_pool.h) over
 * omp_get_max_threads() threads (el_set_threads); results are bit-identical
 * for any thread count. OpenBLAS is held at 1 thread during each call. 
 *
 * Memory: the model borrows w (parameters) and g (gradients, same layout:
 * el__params views); both must outlive it. Activations are allocated once in
 * el__tmodel_new for at most max_tokens packed tokens, max_seqs sequences of
 * at most max_len tokens each (<= max_position_embeddings), and max_pos MLM
 * positions. Not thread-safe: one model per thread of training. */
#ifndef EL_TRAIN_TMODEL_H
#define EL_TRAIN_TMODEL_H

#include <stddef.h>
#include "electra/engine.h"
#include "electra/error.h"
#include "electra/model.h"
#include "rng.h"
#include "trainer_api.h"

typedef struct el__tmodel el__tmodel; /* opaque */

typedef struct el__tmodel_limits {
  int max_tokens; /* packed tokens per batch */
  int max_seqs;   /* sequences per batch */
  int max_len;    /* longest sequence; 0 = cfg->max_position_embeddings */
  int max_pos;    /* MASKED_LM: positions per batch; ignored for other heads */
} el__tmodel_limits;

/* cfg is copied (its id2label is not used). w / g are borrowed. g may be NULL
 * for a forward-only model (backward then returns EL_EINVAL).
 * On success *out is owned by the caller: el__tmodel_free. */
int el__tmodel_new(const el_config *cfg, const el__weights *w, const el__weights *g,
                  const el__tmodel_limits *lim, el__tmodel **out, el_error *err);
void el__tmodel_free(el__tmodel *m);


/* The global index of the next forwards' first sequence (default 0): data
 * parallelism and gradient accumulation give each micro-batch its offset in
 * the global batch, so dropout masks match a single process's. */
void el__tmodel_set_seq0(el__tmodel *m, uint64_t seq0);

/* Bytes of activation and scratch memory held (for reports). */
size_t el__tmodel_bytes(const el__tmodel *m);

/* Forward over a packed batch. The batch is validated (ids < vocab_size,
 * type ids < type_vocab_size, lengths within the limits) and copied, so it
 * need not outlive the call. positions / n_pos: MASKED_LM only (packed token
 * indices in [0, T), repeats allowed); NULL / 0 otherwise. rng may be NULL
 * when train == 0. *out receives a pointer to the head output (layout above),
 * owned by m and valid until the next forward. Returns EL_OK or an error
 * naming the offending position/field (nothing is cached on error). */
int el__tmodel_forward(el__tmodel *m, const el_batch *b, const int *positions, int n_pos,
                      int train, el__rng *rng, const float **out, el_error *err);

/* Backward of the last forward (train or eval mode) from dout = dLoss/d(head
 * output), shaped like the output. Accumulates (+=) into every tensor of g;
 * the caller zeroes g once per optimizer step. The cached activations stay
 * valid, so backward may be called once per forward only (it reuses scratch).
 * dout may alias el__tmodel_output(m).
 * Returns EL_EINVAL if there is no forward to differentiate or g is NULL. */
int el__tmodel_backward(el__tmodel *m, const float *dout, el_error *err);

/* The head output of the last forward, writable: backward never reads it, so
 * a caller may overwrite it in place with dLoss/dout (the generator's
 * [n_pos, V] logits are the largest buffer of a step) and pass it to
 * backward. NULL before the first forward. */
float *el__tmodel_output(el__tmodel *m);

const el_config *el__tmodel_config(const el__tmodel *m);

#endif
