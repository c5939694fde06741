/* The pretraining objectives on one packed batch, forward + backward:
 * ELECTRA replaced-token detection (docs/MODEL.md §6) and the BERT MLM baseline.
 *
 * Masking decisions are made by the data pipeline (which positions, which of
 * them become [MASK]); this module does everything after that. Gradients are
 * ACCUMULATED into the el__params grads block: call el__params_zero_grads
 * before a step (or before the first of several accumulated micro-batches).
 *
 * ELECTRA step, exactly:
 *   1. generator input = ids with [MASK] (mask_id) at the selected positions
 *      whose use_mask is 1; the others keep the original token.
 *   2. generator forward; logits at the selected positions only;
 *      MLM loss = mean over selected positions of -log p(original).
 *   3. sample s_i ~ softmax(logits_i / 1) with no gradient, each row from
 *      a stream split off the step's one sampling draw from the rng with the
 *      row's global sequence index and position as tag. By default
 *      (EL_SAMPLE_CDF) inverse-CDF sampling: one uniform per row. Or
 *      (EL_SAMPLE_GUMBEL) the Gumbel-max trick of GR, argmax(logits + g),
 *      g = -log(-log(u + 1e-9) + 1e-9), u uniform on the 2^24-point grid of
 *      [0, 1) from counter-based bits: the same distribution at 2V
 *      logarithms per row (both checked against softmax frequencies in
 *      test_train_math).
 *   4. corrupted input = original ids with s_i at EVERY selected position;
 *      label_t = 1 iff t is selected and s != original (a correct sample is
 *      "real"), or t is forced by the plan.
 *   5. discriminator forward on the corrupted input; disc loss = mean over
 *      all tokens of the batch (or the global batch's count, norm_scored) ([CLS]/[SEP] included; packing has no pads) of
 *      sigmoid cross-entropy(logit_t, label_t).
 *   6. total = gen_weight * MLM + disc_weight * disc; backward of both into
 *      the shared grads (the shared embeddings get the sum of both).
 * Random draws (dropout masks of both models, samples) come from the rng in a
 * fixed order that depends only on shapes and its state: one draw for the
 * generator's masks (train), one for the samples, one for the
 * discriminator's masks (train). */
#ifndef EL_TRAIN_OBJECTIVE_H
#define EL_TRAIN_OBJECTIVE_H

#include <stdint.h>
#include "electra/engine.h"
#include "electra/error.h"
#include "params.h"
#include "rng.h"
#include "tmodel.h"

/* The masking decision for one packed batch (arrays borrowed for the call). */
typedef struct el__mask_plan {
  int n;                  /* selected positions, >= 1 */
  const int *pos;         /* [n] distinct packed token indices in [0, T) */
  const uint8_t *use_mask; /* [n] 1 -> [MASK] in the generator input, 0 -> keep */
  /* [T] or NULL: tokens the discriminator labels replaced whatever the
   * generator does (learner errors already in the batch's ids, learner_ids.h;
   * the pipeline does not select them for masking). */
  const uint8_t *forced;
} el__mask_plan;

enum { EL_SAMPLE_GUMBEL = 0, EL_SAMPLE_CDF = 1 };

typedef struct el__electra_opts {
  int mask_id;          /* [MASK] token id */
  float gen_weight;     /* 1.0 */
  float disc_weight;    /* 50.0 */
  int train;            /* 1: dropout on (per the configs) */
  int backward;         /* 1: accumulate gradients; 0: losses/metrics only (validation) */
  int sampler;          /* EL_SAMPLE_CDF (default) or EL_SAMPLE_GUMBEL */
  const int *forced_samples; /* tests: [n] replacement tokens to use instead of sampling */
  /* -1 (default): the discriminator loss averages over every token, [CLS] and
   * [SEP] included (GR). Ids >= 0: those two tokens get weight 0 (loss, metrics
   * and gradient over the other tokens only). */
  int skip_cls_id, skip_sep_id;
  /* Data parallelism / gradient accumulation: the global index of the
   * batch's first sequence (dropout masks and samples are keyed by it, so a
   * sequence draws the same whichever micro-batch computes it), and the
   * global batch's selected-position and scored-token counts the two losses
   * divide by (0: this batch's own), so the micro-batches' gradients sum to
   * the global batch's. */
  uint64_t seq0;
  int norm_pos, norm_scored;
} el__electra_opts;

/* Defaults above (mask_id must still be set): gen 1, disc 50, train 1, backward 1,
 * seq0 0, norms 0. */
el__electra_opts el__electra_default_opts(int mask_id);

typedef struct el__electra_result {
  double loss;          /* gen_weight * mlm_loss + disc_weight * disc_loss */
  double mlm_loss, disc_loss;
  int n_selected;       /* = plan n */
  int gen_correct;      /* selected positions whose generator argmax is the original */
  int n_tokens;         /* T */
  int n_replaced;       /* labels equal to 1 (forced tokens included) */
  int disc_correct;     /* scored tokens with (logit > 0) == label */
  int n_scored;         /* tokens in the discriminator loss (n_tokens unless skip ids are set) */
  double gen_acc, disc_acc; /* gen_correct / n_selected, disc_correct / n_scored */
} el__electra_result;

/* Optional per-token outputs (caller-owned arrays, any may be NULL). */
typedef struct el__electra_outputs {
  float *disc_prob;     /* [T] sigmoid(disc logit) (validation AUC) */
  uint8_t *disc_label;  /* [T] 1 = replaced */
  int *samples;         /* [n] the sampled replacement tokens */
  int *corrupted;       /* [T] discriminator input ids */
} el__electra_outputs;

typedef struct el__electra el__electra; /* opaque: the two trainable models + scratch */

/* p must be an ELECTRA pair (el__params_new_pair); borrowed, must outlive e.
 * Limits as in el__tmodel_new; lim->max_pos bounds plan n. *out owned by the
 * caller: el__electra_free. */
int el__electra_new(el__params *p, const el__tmodel_limits *lim, el__electra **out, el_error *err);
void el__electra_free(el__electra *e);
size_t el__electra_bytes(const el__electra *e);

/* One ELECTRA forward + backward on a packed batch of ORIGINAL ids.
 * rng may be NULL only if train == 0 and forced_samples is set.
 * Errors: bad plan (position out of range or repeated, n < 1 or > max_pos),
 * bad batch, a non-finite loss (EL_EVALUE, nothing accumulated). */
int el__electra_step(el__electra *e, const el_batch *b, const el__mask_plan *plan,
                    const el__electra_opts *o, el__rng *rng, el__electra_result *res,
                    el__electra_outputs *outs, el_error *err);

/* --- BERT MLM baseline (--objective mlm) ---
 * m: a trainable EL_ARCH_MASKED_LM model (full size). b holds the ALREADY
 * corrupted ids (80/10/10 decided by the pipeline); targets[i] is the
 * original id at positions[i]. Loss = the sum over the n positions of
 * -log p(target) divided by norm (0: n, the mean; a micro-batch passes the
 * global batch's count). With do_backward, dLoss/dlogits is back-propagated into
 * m's gradients (accumulated). correct (may be NULL) = argmax hits. */
int el__mlm_step(el__tmodel *m, const el_batch *b, const int *positions, const int *targets,
                int n, int norm, int train, int do_backward, el__rng *rng, double *loss,
                int *correct, el_error *err);

/* Internal, exposed for tests: one draw from softmax(logits) by Gumbel-max,
 * and from a row of probabilities by inverse CDF. */
int el__sample_gumbel(const float *logits, int V, el__rng *r);
int el__sample_cdf(const float *probs, int V, el__rng *r);

#endif
