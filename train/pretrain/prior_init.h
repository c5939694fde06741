/* Output biases started at their priors instead of 0 (`pretrain --bias-init
 * prior`, the default).
 *
 * Why: with zero biases the generator starts uniform over the vocabulary, so
 * its first samples are rare words and the discriminator's first lesson is
 * "a rare word was replaced". A few hundred steps later the generator
 * matches unigram frequencies, that lesson turns false, and on short runs
 * the discriminator answers by collapsing every token to one state
 * (measured: last-layer states of all tokens at cosine 1.000, AUC 0.50,
 * docs/RESULTS.md §1). Starting the generator's softmax bias at
 * the log unigram frequencies of the training examples, and the
 * discriminator's logit bias at the log-odds of the mask rate, skips that
 * detour: the generator samples like the corpus from step 0 and the
 * discriminator's loss starts at the base rate, so only context is left to
 * learn. Google's code starts both at 0 (`--bias-init zero`). */
#ifndef EL_TRAIN_PRIOR_INIT_H
#define EL_TRAIN_PRIOR_INIT_H

#include "data_loader.h"
#include "electra/error.h"
#include "masking.h"
#include "params.h"

/* Sets, in p, the MLM output bias (the generator's, model 1, for an ELECTRA
 * pair; model 0's for a single MLM model) to log((c_v + 0.5) / (N + 0.5 V))
 * where c_v counts token v over the training examples of d ([CLS], [SEP]
 * and [PAD] not counted, N their total), and for a pair the
 * discriminator's logit bias to the log-odds of q = mask_prob + extra
 * (at most 0.5): extra is the share of tokens labelled replaced besides the
 * masked ones, e.g. learner errors (--corruption learner:R adds about R per
 * token: 11 % measured at R = 0.1), so the loss starts at the base rate
 * there too.
 * EL_ENOMEM or EL_EINVAL (no counted token). */
int el__prior_init(el__params *p, const el__dataset *d, const el__mask_cfg *mc, double extra,
                   el_error *err);

#endif
