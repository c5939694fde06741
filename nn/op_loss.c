/* Cross-entropy losses of the two ELECTRA heads: softmax over the vocabulary
 * at the generator's masked positions, sigmoid per token for the
 * discriminator (the fine-tuning heads' losses are op_loss_head.c's). Row
 * losses are summed in row order (in double), so the result does not depend
 * on the thread count. */
#include <math.h>
#include <stdlib.h>
#include "op_fastmath.h"
#include "op_pool.h"
#include "ops.h"

typedef struct sx_job {
  float *probs, *dlogits;
  const float *logits, *weights, *saved; /* saved: backward's probs */
  const int *targets;
  int V;
  float scale;
  double *row_loss;
  int *row_hit;
} sx_job;

static void forward_rows(void *p, size_t lo, size_t hi) {
  const sx_job *jb = p;
  const int V = jb->V;
  for (size_t i = lo; i < hi; i++) {
    const float *x = jb->logits + i * V;
    float *pr = jb->probs + i * V;
    /* max first (vectorises), then the first index holding it */
    float mx = x[0];
#pragma omp simd reduction(max : mx)
    for (int j = 1; j < V; j++) mx = x[j] > mx ? x[j] : mx;
    int arg = 0;
    while (arg < V - 1 && x[arg] != mx) arg++; /* bounded: NaN never compares equal */
    const float xt = x[jb->targets[i]];
    /* float partial sums over blocks of 256, added in double */
    double sum = 0.0;
    for (int j0 = 0; j0 < V; j0 += 256) {
      const int j1 = j0 + 256 < V ? j0 + 256 : V;
      float part = 0.0f;
#pragma omp simd reduction(+ : part)
      for (int j = j0; j < j1; j++) {
        const float e = el__expf(x[j] - mx);
        pr[j] = e;
        part += e;
      }
      sum += part;
    }
    const float inv = (float)(1.0 / sum);
#pragma omp simd
    for (int j = 0; j < V; j++) pr[j] *= inv;
    const double w = jb->weights ? jb->weights[i] : 1.0;
    jb->row_loss[i] = w * (log(sum) - ((double)xt - mx));
    jb->row_hit[i] = w > 0.0 && arg == jb->targets[i];
  }
}

double el__softmax_xent_forward(float *probs, const float *logits, const int *targets,
                               const float *weights, int n, int V, int *correct) {
  if (n <= 0) {
    if (correct) *correct = 0;
    return 0.0;
  }
  sx_job jb = {.probs = probs, .logits = logits, .weights = weights, .targets = targets, .V = V};
  jb.row_loss = malloc(sizeof(double) * (size_t)n);
  jb.row_hit = malloc(sizeof(int) * (size_t)n);
  if (!jb.row_loss || !jb.row_hit) {
    free(jb.row_loss);
    free(jb.row_hit);
    return NAN;
  }
  el__pool_for((size_t)n, (long)n * V > 65536 ? 8 : (size_t)n, forward_rows, &jb);
  double loss = 0.0;
  int hits = 0;
  for (int i = 0; i < n; i++) {
    loss += jb.row_loss[i];
    hits += jb.row_hit[i];
  }
  free(jb.row_loss);
  free(jb.row_hit);
  if (correct) *correct = hits;
  return loss;
}

/* In place (dlogits == probs) each element is overwritten by its own
 * gradient, which reads only that element's prob. */
static void backward_rows(void *p, size_t lo, size_t hi) {
  const sx_job *jb = p;
  const int V = jb->V;
  const int in_place = jb->dlogits == jb->saved;
  for (size_t i = lo; i < hi; i++) {
    const float c = jb->scale * (jb->weights ? jb->weights[i] : 1.0f);
    const float *pr = jb->saved + i * V;
    float *d = jb->dlogits + i * V;
    if (in_place) {
#pragma omp simd
      for (int j = 0; j < V; j++) d[j] = c * pr[j];
    } else {
      if (c == 0.0f) continue;
      for (int j = 0; j < V; j++) d[j] += c * pr[j];
    }
    d[jb->targets[i]] -= c;
  }
}

void el__softmax_xent_backward(float *dlogits, const float *probs, const int *targets,
                              const float *weights, float scale, int n, int V) {
  if (n <= 0) return;
  sx_job jb = {.dlogits = dlogits, .saved = probs, .weights = weights,
               .targets = targets, .V = V, .scale = scale};
  el__pool_for((size_t)n, (long)n * V > 65536 ? 8 : (size_t)n, backward_rows, &jb);
}

/* BCE(sigmoid(x), y) = max(x, 0) - x y + log(1 + exp(-|x|)) */
double el__sigmoid_xent_forward(const float *logits, const float *labels, const float *weights,
                               int n) {
  double loss = 0.0;
  for (int i = 0; i < n; i++) {
    const double x = logits[i], y = labels[i];
    const double l = (x > 0 ? x : 0.0) - x * y + log1p(exp(-fabs(x)));
    loss += (weights ? weights[i] : 1.0) * l;
  }
  return loss;
}

void el__sigmoid_xent_backward(float *dlogits, const float *logits, const float *labels,
                              const float *weights, float scale, int n) {
  const int in_place = dlogits == logits;
  for (int i = 0; i < n; i++) {
    const float c = scale * (weights ? weights[i] : 1.0f);
    if (!in_place)
      dlogits[i] += c * (el__sigmoidf(logits[i]) - labels[i]);
    else if (weights && weights[i] == 0.0f)
      dlogits[i] = 0.0f;
    else
      dlogits[i] = c * (el__sigmoidf(logits[i]) - labels[i]);
  }
}
