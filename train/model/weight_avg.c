/* Exponential moving average of the weights (weight_avg.h). */
#include "weight_avg.h"

#include <stdlib.h>
#include <string.h>

int el__weight_avg_init(el__weight_avg *a, const float *w, size_t n, double decay, el_error *err) {
  memset(a, 0, sizeof *a);
  if (!(decay > 0 && decay < 1))
    return el_error_set(err, EL_EINVAL, "weight average: decay %g is not in (0, 1)", decay);
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  a->avg = aligned_alloc(64, bytes ? bytes : 64);
  if (!a->avg) return el_error_set(err, EL_ENOMEM, "weight average: out of memory (%zu floats)", n);
  memcpy(a->avg, w, n * sizeof(float));
  a->n = n;
  a->decay = decay;
  return EL_OK;
}

double el__weight_avg_decay_at(double decay, long t) {
  double warm = (1.0 + (double)t) / (10.0 + (double)t);
  return warm < decay ? warm : decay;
}

void el__weight_avg_update(el__weight_avg *a, const float *w) {
  const float d = (float)el__weight_avg_decay_at(a->decay, ++a->updates), keep = 1.0f - d;
  float *restrict avg = a->avg;
  const float *restrict x = w;
  for (size_t i = 0; i < a->n; i++) avg[i] = d * avg[i] + keep * x[i];
}

void el__weight_avg_swap(el__weight_avg *a, float *w) {
  for (size_t i = 0; i < a->n; i++) {
    float t = w[i];
    w[i] = a->avg[i];
    a->avg[i] = t;
  }
}

void el__weight_avg_free(el__weight_avg *a) {
  free(a->avg);
  memset(a, 0, sizeof *a);
}
