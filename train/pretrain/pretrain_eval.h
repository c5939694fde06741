/* Validation on the held-out slice during pretraining.
 *
 * Every validation masks the same positions (its RNG is seeded from the run
 * seed only), runs the models in eval mode (no dropout, no gradient) and
 * reports: generator (or MLM model) loss and accuracy at the masked
 * positions; discriminator loss, accuracy over all tokens, and the AUC of its
 * replaced-probability on content tokens (all but [CLS]/[SEP]), replaced
 * tokens being the positives; the fraction of replaced tokens (the
 * all-"original" baseline accuracy on content tokens is 1 minus it); the loss
 * of the best constant answer (disc_base_loss); and the
 * unigram baseline: the accuracy at the masked positions of always predicting
 * the single most frequent masked token (an upper bound for any constant
 * prediction). */
#ifndef EL_TRAIN_PRETRAIN_EVAL_H
#define EL_TRAIN_PRETRAIN_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include "data_loader.h"
#include "electra/error.h"
#include "masking.h"
#include "objective.h"
#include "tmodel.h"

/* Exact ROC AUC (Mann-Whitney U with tied scores counted half) of score
 * for label 1 against label 0; NaN when either class is empty. Sorts a copy. */
double el__auc(const float *score, const uint8_t *label, size_t n);

typedef struct el__val_result {
  double gen_loss, gen_acc, disc_loss, disc_acc, disc_auc, unigram_acc, replaced_frac;
  /* the discriminator loss of the best constant answer, P(replaced) = the
   * replaced fraction of the scored tokens: its binary entropy. A
   * discriminator below it has learned something beyond the base rate. */
  double disc_base_loss;
  long n_seqs, n_tokens, n_masked;
} el__val_result;

/* ELECTRA validation over all held-out examples in batches of batch_size
 * (the models' limits must allow that). Every sequence's masking and
 * samples are keyed by its held-out index, so the result does not depend
 * on batch_size. */
int el__validate_electra(el__electra *e, el__dataset *d, const el__mask_cfg *mc,
                         const el__electra_opts *o, int batch_size, uint64_t seed,
                         el__val_result *out, el_error *err);
/* MLM baseline validation (disc_* fields NaN). */
int el__validate_mlm(el__tmodel *m, el__dataset *d, const el__mask_cfg *mc, int batch_size,
                     uint64_t seed, el__val_result *out, el_error *err);

#endif
