/* Exact (erf) GELU, as HF "gelu" and Google's modeling.gelu compute it.
 * A layer's backward that recomputes the activation instead of keeping it
 * (train/model/tmodel.c) takes both from el__gelu_forward_grad: one erfc per
 * element where recompute + backward took two. */
#include <math.h>
#include "op_fastmath.h"
#include "op_pool.h"
#include "ops.h"

#define GELU_BLOCK 16384 /* elements per task */

typedef struct gelu_job {
  float *out, *grad;
  const float *in, *dout;
} gelu_job;

/* With the vectorisable GELU of op_fastmath.h. */
static void forward_range(void *p, size_t lo, size_t hi) {
  const gelu_job *j = p;
#pragma omp simd
  for (size_t i = lo; i < hi; i++) j->out[i] = el__geluf(j->in[i]);
}

void el__gelu_forward(float *out, const float *in, size_t n) {
  gelu_job j = {out, NULL, in, NULL};
  el__pool_for(n, GELU_BLOCK, forward_range, &j);
}

void el__gelu_forward_naive(float *out, const float *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    out[i] = (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
  }
}

/* d/dx [x Phi(x)] = Phi(x) + x phi(x), given Phi(x) */
#define EL_INV_SQRT_2PI 0.39894228040143267794f
static inline float gelu_grad(float x, float cdf) {
  return cdf + x * EL_INV_SQRT_2PI * el__expf(-0.5f * x * x);
}

static void backward_range(void *p, size_t lo, size_t hi) {
  const gelu_job *j = p;
#pragma omp simd
  for (size_t i = lo; i < hi; i++) {
    const float x = j->in[i];
    j->out[i] += j->dout[i] * gelu_grad(x, el__normal_cdff(x));
  }
}

void el__gelu_backward(float *din, const float *in, const float *dout, size_t n) {
  gelu_job j = {din, NULL, in, dout};
  el__pool_for(n, GELU_BLOCK, backward_range, &j);
}

void el__gelu_backward_naive(float *din, const float *in, const float *dout, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double x = in[i];
    double cdf = 0.5 * (1.0 + erf(x / sqrt(2.0)));
    double pdf = exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
    din[i] += (float)(dout[i] * (cdf + x * pdf));
  }
}

/* out = x Phi(x) and grad = Phi(x) + x phi(x) in one pass. */
static void forward_grad_range(void *p, size_t lo, size_t hi) {
  const gelu_job *j = p;
#pragma omp simd
  for (size_t i = lo; i < hi; i++) {
    const float x = j->in[i], cdf = el__normal_cdff(x);
    j->out[i] = x * cdf;
    j->grad[i] = gelu_grad(x, cdf);
  }
}

void el__gelu_forward_grad(float *out, float *grad, const float *in, size_t n) {
  gelu_job j = {out, grad, in, NULL};
  el__pool_for(n, GELU_BLOCK, forward_grad_range, &j);
}
