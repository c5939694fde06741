/* Learner errors on WordPiece id sequences, for pretraining with
 * `--corruption learner[:RATE]` (issue 14): the families of learner.h
 * translated to token ids through tables built once from the vocabulary.
 *
 * Tables (el__lids_new), for every whole-word vocabulary entry (not a ##
 * piece, not a special token): its function-word class, noun / verb-form
 * flags, and the whole-word ids it may be confused with per family (verb
 * forms, noun number, determiners, prepositions, punctuation, and for a
 * cased vocabulary the case-flipped word); up to three misspellings as
 * WordPiece id sequences; the ids the insertion families insert.
 *
 * Per sequence (el__lids_corrupt), each content segment (the tokens between
 * [CLS]/[SEP]) is split into words (a piece plus its ## continuations) and
 * gets Binomial(words, rate) errors, families drawn by el__lfam_weight and
 * redrawn where they find no place, as in el__learner_corrupt:
 *   replacement (R:*): a single-piece word becomes a confusable id (a
 *     misspelling may take several pieces), all of its pieces forced;
 *   deletion (M:*): a single-piece function word or punctuation removed; the
 *     word after the gap is forced (all its pieces), or the word before it
 *     when the gap ends the segment;
 *   insertion (U:*): a determiner, preposition, comma or extra word id
 *     inserted before a word, forced;
 *   swap (R:WO): two adjacent words (any pieces) exchanged, both forced.
 * Length: a sequence never grows. An insertion (or a misspelling with more
 * pieces) that lengthens a segment drops the segment's last tokens before
 * its [SEP]; a deletion shortens the sequence by one token instead of
 * padding it, because any filler (a [PAD], a repeated word) would be an
 * artefact the discriminator could learn to spot; packed batches already
 * have sequences of different lengths. Every token of a segment takes the
 * segment's type id, so [CLS] A [SEP] B [SEP] keeps its 0s and 1s.
 *
 * Context checks follow the word-level families where the ids allow it
 * (agreement errors after a subject pronoun, a noun-number error not after
 * "to" or a modal ...); beyond that the id level is context-free. */
#ifndef EL_TRAIN_LEARNER_IDS_H
#define EL_TRAIN_LEARNER_IDS_H

#include <stdint.h>
#include "electra/engine.h"
#include "electra/error.h"
#include "electra/tokenizer.h"
#include "learner.h"

typedef struct el__lids el__lids; /* read-only after building; shareable between threads */

/* Errors per word of `--corruption learner` without a rate: about FCE's
 * 0.10 edits per token (docs/MODEL.md §11). */
#define EL__LIDS_DEFAULT_RATE 0.10

/* Parses the --corruption value: "none" (rate 0), "learner" (the default
 * rate) or "learner:RATE" with 0 < RATE <= 1. Returns 0, or -1 (rate
 * untouched) for anything else. */
int el__lids_parse_option(const char *s, double *rate);

/* Builds the tables for tok's vocabulary from the word-level resources l
 * (borrowed for the call only). *out owned by the caller: el__lids_free. */
int el__lids_new(const el__learner *l, const el_tokenizer *tok, el__lids **out, el_error *err);
/* el__learner_load(wordnet_dir) + el__lids_new, the learner freed after. */
int el__lids_load(const char *wordnet_dir, const el_tokenizer *tok, el__lids **out,
                  el_error *err);
void el__lids_free(el__lids *t);

/* Vocabulary entries with at least one confusable id, and with misspellings
 * (for the setup message). */
void el__lids_stats(const el__lids *t, int *n_confusable, int *n_misspelt);

/* The confusable ids of id under `family` into out[0..max); returns how many
 * (exposed for tests). */
int el__lids_confusions(const el__lids *t, int id, int family, int *out, int max);

/* A corrupted packed batch with its own storage. Zero-initialise, reuse
 * across calls, release with el__lids_batch_free. */
typedef struct el__lids_batch {
  int n_seqs, n_tokens;
  int *seq_len, *ids, *type_ids; /* type ids: each segment keeps its own (0 without input ones) */
  uint8_t *forced;               /* [n_tokens] 1 = a learner error (FCE convention) */
  long n_words, n_edits;         /* words in the input, errors made */
  long family_edits[EL__LF_COUNT];
  /* storage (private) */
  int cap_seqs, cap_tokens;
  void *scratch;
} el__lids_batch;
void el__lids_batch_free(el__lids_batch *b);
/* A view for the trainer (borrows b's arrays). */
el_batch el__lids_batch_view(const el__lids_batch *b);

/* Corrupts the packed batch in (not modified) into out at rate errors per
 * word, in [0, 1]; rng: a 64-bit state, advanced (same state and batch, same
 * result). Errors: EL_EINVAL (bad rate or batch), EL_ENOMEM. */
int el__lids_corrupt(const el__lids *t, const el_batch *in, double rate, uint64_t *rng,
                     el__lids_batch *out, el_error *err);
/* The same with every sequence drawing from its own state, a hash of (key,
 * seq0 + its index in the batch): a sequence's errors depend on its global
 * index, not on which other sequences share the batch (data-parallel ranks,
 * gradient accumulation). */
int el__lids_corrupt_keyed(const el__lids *t, const el_batch *in, double rate, uint64_t key,
                           uint64_t seq0, el__lids_batch *out, el_error *err);
/* Exactly one error of `family` in each sequence where it fits (tests). */
int el__lids_corrupt_family(const el__lids *t, const el_batch *in, int family, uint64_t *rng,
                            el__lids_batch *out, el_error *err);

#endif
