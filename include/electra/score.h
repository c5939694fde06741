/* How a word's "looks wrong" probability is formed from its WordPiece pieces.
 * One implementation shared by the server's /score and the trainer's
 * evaluation, so a threshold tuned by one means the same thing in the other.
 * Owned by the engine; pure functions, thread-safe. */
#ifndef ELECTRA_SCORE_H
#define ELECTRA_SCORE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* the public API: default visibility (engine/ and nn/ are built hidden) */
#pragma GCC visibility push(default)

typedef enum el_score_rule {
  EL_SCORE_MAX = 0,   /* any piece looking wrong flags the word (RTD discriminator default) */
  EL_SCORE_FIRST = 1, /* the first piece speaks for the word (token-classification convention) */
  EL_SCORE_MEAN = 2   /* arithmetic mean of the pieces */
} el_score_rule;

/* A word's probability from the probabilities of its n >= 1 WordPiece pieces,
 * in order. n <= 0 or a NULL array gives 0; an unknown rule acts as MAX. */
float el_word_prob(el_score_rule rule, const float *piece_probs, int n);
/* A word's P(error) with a spelling dictionary's verdict beside the model's
 * p (independent evidence, noisy-OR): 1 - (1 - p)(1 - q) when the
 * dictionary rejects the word, p when it does not (a dictionary that knows a
 * word says nothing about its grammar). q in [0, 1] is how often the
 * dictionary is right when it rejects a word (its precision on the model's
 * dev data: config.json "score_dictionary_weight"). The caller computes
 * rejected (lang/dict.h), so the engine needs no dictionary. */
float el_word_prob_dict(float p, int rejected, float q);
/* "max", "first", "mean"; NULL for an invalid value. */
const char *el_score_rule_name(el_score_rule r);
/* Inverse of el_score_rule_name (exact, lower case); -1 if unknown or NULL. */
int el_score_rule_from_name(const char *name);

/* A token-classification GED model (ElectraForTokenClassification, labels
 * such as CORRECT/INCORRECT or error types) gives a piece's P(error) as
 * 1 - P(correct label) under the softmax over its labels.
 *
 * Which of the num_labels names in id2label means "no error": `name` when
 * given (exact, else the one label equal ignoring case), otherwise the one
 * label named CORRECT, C, O, OK or KEEP (any case). Fails with EL_EINVAL
 * naming the labels when there is no such single label or num_labels < 2. */
int el_correct_label(char *const *id2label, int num_labels, const char *name, int *label,
                     el_error *err);
/* prob[t] = 1 - softmax(logits[t * num_labels ...])[correct_label], t < n_tokens. */
void el_error_probs(const float *logits, int n_tokens, int num_labels, int correct_label,
                    float *prob);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
