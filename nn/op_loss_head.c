/* The fine-tuning heads' losses (nn/ops.h): softmax cross-entropy over one
 * segment (a sequence's class logits, or a QA window's start or end logits),
 * squared error, and sigmoid cross-entropy with an "unlabelled" label. Their
 * rows are short (K labels, a window's tokens), so every term is computed in
 * double and at no cost; the vocabulary-wide pretraining losses, where speed
 * matters, are op_loss.c's. The forwards add term by term into the caller's
 * sum, so a batch passed row by row sums in the order of a single pass. */
#include <math.h>
#include "ops.h"

/* the largest of the segment's logits (a float, as the head wrote them) */
static float seg_max(const float *x, int n, int stride) {
  float mx = -INFINITY;
  for (int k = 0; k < n; k++) mx = x[(long)k * stride] > mx ? x[(long)k * stride] : mx;
  return mx;
}

/* sum_k exp(x_k - mx) in double */
static double seg_sum_exp(const float *x, int n, int stride, float mx) {
  double z = 0;
  for (int k = 0; k < n; k++) z += exp((double)x[(long)k * stride] - mx);
  return z;
}

void el__seg_xent_forward(double *sum, const float *x, int n, int stride, int target, double w) {
  const float mx = seg_max(x, n, stride);
  const double z = seg_sum_exp(x, n, stride, mx);
  *sum += w * -((double)x[(long)target * stride] - mx - log(z));
}

void el__seg_xent_backward(float *dx, const float *x, int n, int stride, int target, double w,
                           double norm) {
  const float mx = seg_max(x, n, stride);
  const double z = seg_sum_exp(x, n, stride, mx);
  for (int k = 0; k < n; k++) {
    const long i = (long)k * stride;
    dx[i] += (float)(w * (exp((double)x[i] - mx) / z - (k == target)) / norm);
  }
}

void el__sq_err_forward(double *sum, const float *x, const float *y, int n) {
  for (int i = 0; i < n; i++) {
    const double r = (double)x[i] - y[i];
    *sum += r * r;
  }
}

void el__sq_err_backward(float *dx, const float *x, const float *y, int n, double norm) {
  for (int i = 0; i < n; i++) dx[i] += (float)(2 * ((double)x[i] - y[i]) / norm);
}

/* softplus(x) - y x, stable on both sides of 0 */
void el__label_xent_forward(double *sum, const float *x, const signed char *y, int n) {
  for (int i = 0; i < n; i++) {
    if (y[i] < 0) continue;
    const double z = x[i];
    *sum += (z > 0 ? z + log1p(exp(-z)) : log1p(exp(z))) - y[i] * z;
  }
}

void el__label_xent_backward(float *dx, const float *x, const signed char *y, int n,
                             double norm) {
  for (int i = 0; i < n; i++) {
    if (y[i] < 0) continue;
    const double p = 1 / (1 + exp(-(double)x[i]));
    dx[i] += (float)((p - y[i]) / norm);
  }
}
