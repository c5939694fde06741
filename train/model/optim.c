/* AdamW without bias correction + GR's schedule (train/model/optim.h). */
#include "optim.h"

#include <math.h>
#include <stdlib.h>
#include "op_pool.h"

el__adamw el__adamw_defaults(void) {
  el__adamw o = {0.9f, 0.999f, 1e-6f, 0.01f, 1.0f, 1.0f};
  return o;
}

double el__lr_at(double peak, long t, long total_steps, long warmup_steps) {
  if (t < 0) t = 0;
  double decay = 0.0;
  if (total_steps > 0) decay = 1.0 - (double)(t < total_steps ? t : total_steps) / total_steps;
  double warm = 1.0;
  if (warmup_steps > 0 && t < warmup_steps) warm = (double)t / (double)warmup_steps;
  return peak * decay * warm;
}

/* Fixed chunks summed in order: the norm is the same for any thread count. */
#define NORM_CHUNK 65536

typedef struct norm_job {
  const float *g;
  size_t n;
  double *part;
} norm_job;

static void norm_chunks(void *p, size_t lo, size_t hi) {
  const norm_job *j = p;
  for (size_t c = lo; c < hi; c++) {
    const size_t a = c * NORM_CHUNK, b = a + NORM_CHUNK < j->n ? a + NORM_CHUNK : j->n;
    double s = 0.0;
    for (size_t i = a; i < b; i++) s += (double)j->g[i] * j->g[i];
    j->part[c] = s;
  }
}

double el__grad_norm(const el__params *p) {
  const size_t n = p->numel, n_chunks = (n + NORM_CHUNK - 1) / NORM_CHUNK;
  double *part = malloc(sizeof(double) * (n_chunks ? n_chunks : 1));
  if (!part) return NAN;
  norm_job j = {p->grads, n, part};
  el__pool_for(n_chunks, 4, norm_chunks, &j);
  double s = 0.0;
  for (size_t c = 0; c < n_chunks; c++) s += part[c];
  free(part);
  return sqrt(s);
}

typedef struct adam_job {
  el__params *p;
  float b1, b2, eps, clip;
  size_t off;
  float lr, wd;
} adam_job;

/* elements [lo, hi) of the tensor at j->off */
static void adam_range(void *q, size_t lo, size_t hi) {
  const adam_job *j = q;
  float *x = j->p->params + j->off, *m = j->p->m + j->off, *v = j->p->v + j->off;
  const float *g = j->p->grads + j->off;
  const float b1 = j->b1, b2 = j->b2, eps = j->eps, cs = j->clip, lr = j->lr, wd = j->wd;
#pragma omp simd
  for (size_t i = lo; i < hi; i++) {
    const float gi = g[i] * cs;
    const float mi = b1 * m[i] + (1.0f - b1) * gi;
    const float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    x[i] -= lr * (mi / (sqrtf(vi) + eps) + wd * x[i]);
  }
}

int el__adamw_step(el__params *p, const el__adamw *o, double lr, el__adamw_stats *stats,
                  el_error *err) {
  if (!(o->beta1 >= 0.0f && o->beta1 < 1.0f) || !(o->beta2 >= 0.0f && o->beta2 < 1.0f) ||
      !(o->eps > 0.0f) || !(o->layer_decay > 0.0f) || !isfinite(lr))
    return el_error_set(err, EL_EINVAL,
                        "adamw: bad settings (beta1 %g, beta2 %g, eps %g, layer_decay %g, lr %g)",
                        (double)o->beta1, (double)o->beta2, (double)o->eps,
                        (double)o->layer_decay, lr);
  double norm = el__grad_norm(p);
  if (!isfinite(norm))
    return el_error_set(err, EL_EVALUE, "adamw: gradient norm is %g; parameters not updated",
                        norm);
  double clip = 1.0;
  if (o->clip_norm > 0.0f && norm > o->clip_norm) clip = o->clip_norm / norm;
  if (stats) {
    stats->grad_norm = norm;
    stats->clip_scale = clip;
  }
  adam_job j = {p, o->beta1, o->beta2, o->eps, (float)clip, 0, 0.0f, 0.0f};
  for (int ti = 0; ti < p->n_tensors; ti++) {
    const el__param_tensor *t = &p->tensors[ti];
    j.off = t->offset;
    j.lr = (float)(lr * pow(o->layer_decay, t->max_depth - t->depth));
    j.wd = t->no_decay ? 0.0f : o->weight_decay;
    el__pool_for(t->count, 65536, adam_range, &j);
  }
  return EL_OK;
}
