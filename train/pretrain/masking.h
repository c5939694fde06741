/* Dynamic masking, drawn afresh for every batch (docs/MODEL.md §5, issue 3).
 *
 * Per sequence of length L (counting [CLS] and [SEP]):
 *   candidates = positions whose token is not [CLS], [SEP], [MASK] or [PAD]
 *                (GR's rule; [UNK] stays a candidate, as in GR);
 *   n = max(1, min(max_pred, round(mask_prob * L))), rounded half to even on
 *       the float32 product as tf.round does, then at most the number of
 *       candidates (0 when there is none);
 *   max_pred = int((mask_prob + 0.005) * seq_len) (GR max_predictions_per_seq);
 *   the n positions are drawn uniformly WITHOUT replacement (a partial
 *       Fisher-Yates shuffle of the candidates). GR draws with replacement and
 *       merges duplicates, which masks ~13-14% distinct tokens instead of 15%
 *       (docs/MODEL.md §5); without replacement every selected position is a
 *       distinct token and exactly n are masked. Positions are returned in
 *       increasing order.
 * ELECTRA: each selected position becomes [MASK] with p 0.85 and keeps its
 *   token with p 0.15; never a random token.
 * MLM (BERT baseline): the same selection (mask_prob 0.15 by default); each
 *   position becomes [MASK] with p 0.8, keeps its token with p 0.1, or takes
 *   a token drawn uniformly from the vocabulary minus the special tokens
 *   with p 0.1.
 * Draws: sequence s of the batch draws from its own stream,
 *   el__rng_split(rng, seq0 + s), seq0 being the global index of the batch's
 *   first sequence; so a sequence's masking depends on the rng and its place
 *   in the global batch only, not on how data-parallel ranks or gradient
 *   accumulation split that batch. Each call then advances rng by one draw,
 *   so repeated calls on one rng draw afresh. */
#ifndef EL_TRAIN_MASKING_H
#define EL_TRAIN_MASKING_H

#include <stdint.h>
#include "electra/engine.h"
#include "rng.h"

typedef struct el__mask_cfg {
  float mask_prob;  /* 0.15 (large: 0.25) */
  int max_pred;     /* per sequence; el__max_predictions */
  int vocab_size;
  int pad_id, unk_id, cls_id, sep_id, mask_id;
} el__mask_cfg;

/* int((mask_prob + 0.005) * seq_len). */
int el__max_predictions(float mask_prob, int seq_len);

/* max(1, min(max_pred, round_half_even(mask_prob * length))), not capped by
 * the candidates. */
int el__mask_count(int length, float mask_prob, int max_pred);

/* ELECTRA selection for a packed batch (seq0 = 0). pos (packed token indices) and
 * use_mask (1 = [MASK], 0 = keep) need room for n_seqs * max_pred entries.
 * Returns the number of selected positions. */
int el__mask_electra(const el__mask_cfg *c, const el_batch *b, el__rng *rng, int *pos,
                     uint8_t *use_mask);

/* The same with positions excluded: skip[t] != 0 (packed, [T]; NULL = none)
 * is never selected (learner-error tokens, learner_ids.h). The count n is
 * still computed from the sequence length, then capped by the candidates
 * left. With skip NULL the draws are exactly el__mask_electra's. */
int el__mask_electra_skip(const el__mask_cfg *c, const el_batch *b, const uint8_t *skip,
                          el__rng *rng, uint64_t seq0, int *pos, uint8_t *use_mask);

/* MLM selection and corruption. ids_out [T] receives the corrupted ids (the
 * others copied from b), pos / target (the original ids) room for
 * n_seqs * max_pred. kind (may be NULL) receives per position 0 = [MASK],
 * 1 = kept, 2 = random. Returns the number of positions. */
int el__mask_mlm(const el__mask_cfg *c, const el_batch *b, el__rng *rng, uint64_t seq0,
                 int *ids_out, int *pos, int *target, uint8_t *kind);

#endif
