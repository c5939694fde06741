/* Small element-wise ops: dropout with a precomputed mask, residual add,
 * product, sigmoid. */
#include <math.h>
#include "op_pool.h"
#include "ops.h"

/* Element-wise loops are split into blocks of this many elements. */
#define BLOCK 65536

typedef struct ew_job {
  float *y;
  const float *x, *mask;
} ew_job;

static void mul_range(void *p, size_t lo, size_t hi) {
  const ew_job *j = p;
  for (size_t i = lo; i < hi; i++) j->y[i] = j->x[i] * j->mask[i];
}
static void mul_add_range(void *p, size_t lo, size_t hi) {
  const ew_job *j = p;
  for (size_t i = lo; i < hi; i++) j->y[i] += j->x[i] * j->mask[i];
}
static void add_range(void *p, size_t lo, size_t hi) {
  const ew_job *j = p;
  for (size_t i = lo; i < hi; i++) j->y[i] += j->x[i];
}

void el__dropout_forward(float *out, const float *in, const float *mask, size_t n) {
  ew_job j = {out, in, mask};
  el__pool_for(n, BLOCK, mul_range, &j);
}

void el__dropout_backward(float *din, const float *dout, const float *mask, size_t n) {
  ew_job j = {din, dout, mask};
  el__pool_for(n, BLOCK, mul_add_range, &j);
}

void el__add_inplace(float *y, const float *x, size_t n) {
  ew_job j = {y, x, NULL};
  el__pool_for(n, BLOCK, add_range, &j);
}

void el__mul_inplace(float *y, const float *x, size_t n) {
  ew_job j = {y, y, x}; /* dropout's y = x * mask, with y as x */
  el__pool_for(n, BLOCK, mul_range, &j);
}

float el__sigmoidf(float x) {
  if (x >= 0) return 1.0f / (1.0f + expf(-x));
  float e = expf(x);
  return e / (1.0f + e);
}
