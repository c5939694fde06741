/* AdamW without bias correction + GR's schedule (train/optim.h). */
#include "optim.h"

#include <math.h>
#include <stdlib.h>

el_adamw el_adamw_defaults(void) {
  el_adamw o = {0.9f, 0.999f, 1e-6f, 0.01f, 1.0f, 1.0f};
  return o;
}

double el_lr_at(double peak, long t, long total_steps, long warmup_steps) {
  if (t < 0) t = 0;
  double decay = 0.0;
  if (total_steps > 0) decay = 1.0 - (double)(t < total_steps ? t : total_steps) / total_steps;
  double warm = 1.0;
  if (warmup_steps > 0 && t < warmup_steps) warm = (double)t / (double)warmup_steps;
  return peak * decay * warm;
}

/* Fixed chunks summed in order: the norm is the same for any thread count. */
#define NORM_CHUNK 65536

double el_grad_norm(const el_params *p) {
  const size_t n = p->numel;
  const long n_chunks = (long)((n + NORM_CHUNK - 1) / NORM_CHUNK);
  double *part = malloc(sizeof(double) * (size_t)(n_chunks ? n_chunks : 1));
  if (!part) return NAN;
  const float *g = p->grads;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < n_chunks; c++) {
    size_t lo = (size_t)c * NORM_CHUNK, hi = lo + NORM_CHUNK < n ? lo + NORM_CHUNK : n;
    double s = 0.0;
    for (size_t i = lo; i < hi; i++) s += (double)g[i] * g[i];
    part[c] = s;
  }
  double s = 0.0;
  for (long c = 0; c < n_chunks; c++) s += part[c];
  free(part);
  return sqrt(s);
}

int el_adamw_step(el_params *p, const el_adamw *o, double lr, el_adamw_stats *stats,
                  el_error *err) {
  if (!(o->beta1 >= 0.0f && o->beta1 < 1.0f) || !(o->beta2 >= 0.0f && o->beta2 < 1.0f) ||
      !(o->eps > 0.0f) || !(o->layer_decay > 0.0f) || !isfinite(lr))
    return el_error_set(err, EL_EINVAL,
                        "adamw: bad settings (beta1 %g, beta2 %g, eps %g, layer_decay %g, lr %g)",
                        (double)o->beta1, (double)o->beta2, (double)o->eps,
                        (double)o->layer_decay, lr);
  double norm = el_grad_norm(p);
  if (!isfinite(norm))
    return el_error_set(err, EL_EVALUE, "adamw: gradient norm is %g; parameters not updated",
                        norm);
  double clip = 1.0;
  if (o->clip_norm > 0.0f && norm > o->clip_norm) clip = o->clip_norm / norm;
  if (stats) {
    stats->grad_norm = norm;
    stats->clip_scale = clip;
  }
  const float b1 = o->beta1, b2 = o->beta2, eps = o->eps, cs = (float)clip;
  for (int ti = 0; ti < p->n_tensors; ti++) {
    const el_param_tensor *t = &p->tensors[ti];
    const float tlr = (float)(lr * pow(o->layer_decay, t->max_depth - t->depth));
    const float wd = t->no_decay ? 0.0f : o->weight_decay;
    float *x = p->params + t->offset, *m = p->m + t->offset, *v = p->v + t->offset;
    const float *g = p->grads + t->offset;
    const long n = (long)t->count;
#pragma omp parallel for schedule(static) if (n > 32768)
    for (long i = 0; i < n; i++) {
      float gi = g[i] * cs;
      float mi = b1 * m[i] + (1.0f - b1) * gi;
      float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
      m[i] = mi;
      v[i] = vi;
      float u = mi / (sqrtf(vi) + eps) + wd * x[i];
      x[i] -= tlr * u;
    }
  }
  return EL_OK;
}
