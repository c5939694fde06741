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
/* What a spelling dictionary says of a word of running text (lang/dict.h
 * computes it, so the engine needs no dictionary). */
typedef enum el_dict_verdict {
  EL_DICT_NONE = 0,    /* a known word, or none of the dictionary's business (digits, "n't") */
  EL_DICT_REJECTS = 1, /* a word of letters it does not know: a misspelling, as far as it can tell */
  EL_DICT_NAME = 2     /* a name: capitalised where a sentence does not start, its lower-case
                          form unknown ("Ngozi", "London") */
} el_dict_verdict;

/* A word's P(error) with the dictionary's verdict beside the model's p:
 * - rejected: 1 - (1 - p)(1 - q), independent evidence (noisy-OR); q in
 *   [0, 1] is how often a rejected word is an error on the model's dev data
 *   (config.json "score_dictionary_weight");
 * - a name: p * e, where e is how often such a word is an error there
 *   ("score_dictionary_name_weight"): an uncased WordPiece model reads a
 *   name as a rare split, and rarity is not an error;
 * - otherwise p: a known word's grammar is the model's to judge.
 * q and e outside [0, 1] act as the nearest end. */
float el_word_prob_dict(float p, el_dict_verdict v, float q, float e);

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
