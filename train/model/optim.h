/* AdamW and the learning-rate schedule of GR model/optimization.py
 * (docs/MODEL.md §7), over an el__params block.
 *
 * Update, per element, after global-norm clipping of ALL gradients
 * (g *= clip / max(norm, clip), norm = sqrt(sum g^2) over the whole block):
 *   m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
 *   u = m / (sqrt(v) + eps)            (no bias correction)
 *   u += wd * param                    (decoupled; not for no_decay tensors)
 *   param -= lr * scale_tensor * u
 * scale_tensor = layer_decay ^ (max_depth - depth) (layer-wise LR decay with
 * the CORRECT depths, for fine-tuning): the head (depth L+1) gets 1, the top
 * encoder layer (depth L) layer_decay^1, layer i (depth i+1)
 * layer_decay^(L-i), embeddings and embeddings_project (depth 0)
 * layer_decay^(L+1). GR's _get_layer_lrs puts the head at L+2 and so gives the
 * top layer decay^2 (electra#51, #64); this does not. layer_decay 1 = off. */
#ifndef EL_TRAIN_OPTIM_H
#define EL_TRAIN_OPTIM_H

#include "electra/error.h"
#include "params.h"

typedef struct el__adamw {
  float beta1;        /* 0.9 */
  float beta2;        /* 0.999 */
  float eps;          /* 1e-6 */
  float weight_decay; /* 0.01 */
  float clip_norm;    /* 1.0; <= 0 disables clipping */
  float layer_decay;  /* 1.0 = off; fine-tuning 0.8 (small/base), 0.9 (large) */
} el__adamw;

el__adamw el__adamw_defaults(void);

/* lr(t) = peak * (1 - min(t, T) / T) * min(1, t / warmup), t = number of
 * updates already applied (0 for the first), T = total_steps; warmup 0 means
 * no warmup. As in GR, warmup multiplies the already-decaying rate, and the
 * first update of a run with warmup has lr 0. With --time-limit, T (and the
 * warmup) come from the time plan (train/model/schedule.h), re-planned between
 * steps, so each step uses the then-current T. */
double el__lr_at(double peak, long t, long total_steps, long warmup_steps);

typedef struct el__adamw_stats {
  double grad_norm;   /* before clipping */
  double clip_scale;  /* factor applied to the gradients (1 when not clipped) */
} el__adamw_stats;

/* One update of every tensor of p with learning rate lr (from el__lr_at).
 * A non-finite gradient norm returns EL_EVALUE and changes nothing (the
 * caller decides whether to skip the batch or stop). The result does not
 * depend on the thread count. stats may be NULL. Grads are left as they are
 * (clipped values are not written back). */
int el__adamw_step(el__params *p, const el__adamw *o, double lr, el__adamw_stats *stats,
                  el_error *err);

/* Global L2 norm of the grads block (thread-count independent summation). */
double el__grad_norm(const el__params *p);

#endif
