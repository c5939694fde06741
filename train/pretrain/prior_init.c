/* Output biases at their priors (prior_init.h). */
#include "prior_init.h"

#include <math.h>
#include <stdlib.h>

int el__prior_init(el__params *p, const el__dataset *d, const el__mask_cfg *mc, double extra,
                   el_error *err) {
  const int V = mc->vocab_size;
  const int pair = p->n_models == 2;
  el__weights *mlm = pair ? &p->w[1] : &p->w[0];
  if (!mlm->lm_b)
    return el_error_set(err, EL_EINVAL, "bias init: the model has no MLM output bias");
  double *count = calloc((size_t)V, sizeof *count);
  if (!count) return el_error_set(err, EL_ENOMEM, "bias init: out of memory");
  const el__cache *c = &d->cache;
  const int wide = c->h.id_bytes == 4;
  double total = 0;
  for (uint64_t e = 0; e < d->n_train; e++) {
    const el__cache_entry *x = &c->index[d->train[e]];
    for (uint64_t i = x->start; i < x->start + x->len; i++) {
      const uint32_t t = wide ? ((const uint32_t *)c->tokens)[i] : ((const uint16_t *)c->tokens)[i];
      if ((int)t >= V || (int)t == mc->cls_id || (int)t == mc->sep_id || (int)t == mc->pad_id)
        continue;
      count[t] += 1;
      total += 1;
    }
  }
  if (total <= 0) {
    free(count);
    return el_error_set(err, EL_EINVAL, "bias init: the training examples hold no content token");
  }
  const double denom = total + 0.5 * V;
  for (int v = 0; v < V; v++) mlm->lm_b[v] = (float)log((count[v] + 0.5) / denom);
  free(count);
  if (pair) {
    double q = mc->mask_prob + (extra > 0 ? extra : 0);
    if (q > 0.5) q = 0.5;
    p->w[0].disc_pred.b[0] = (float)log(q / (1.0 - q));
  }
  return EL_OK;
}
