/* How a word's "looks wrong" probability is formed from its WordPiece pieces.
 * One implementation shared by the server's /score and the trainer's
 * evaluation, so a threshold tuned by one means the same thing in the other.
 * Owned by the engine; pure functions, thread-safe. */
#ifndef ELECTRA_SCORE_H
#define ELECTRA_SCORE_H

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
/* "max", "first", "mean"; NULL for an invalid value. */
const char *el_score_rule_name(el_score_rule r);
/* Inverse of el_score_rule_name (exact, lower case); -1 if unknown or NULL. */
int el_score_rule_from_name(const char *name);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
