/* Cross-entropy losses of the two ELECTRA heads: softmax over the vocabulary
 * at the generator's masked positions, sigmoid per token for the
 * discriminator. Row losses are summed in row order (in double), so the
 * result does not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include "op_fastmath.h"
#include "ops.h"

double el_softmax_xent_forward(float *probs, const float *logits, const int *targets,
                               const float *weights, int n, int V, int *correct) {
  double *row_loss = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  int *row_hit = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!row_loss || !row_hit) {
    free(row_loss);
    free(row_hit);
    return NAN;
  }
#pragma omp parallel for schedule(static) if ((long)n * V > 65536)
  for (int i = 0; i < n; i++) {
    const float *x = logits + (size_t)i * V;
    float *p = probs + (size_t)i * V;
    int arg = 0;
    float mx = x[0];
    for (int j = 1; j < V; j++)
      if (x[j] > mx) {
        mx = x[j];
        arg = j;
      }
    const float xt = x[targets[i]];
    /* float partial sums over blocks of 256, added in double */
    double sum = 0.0;
    for (int j0 = 0; j0 < V; j0 += 256) {
      const int j1 = j0 + 256 < V ? j0 + 256 : V;
      float part = 0.0f;
#pragma omp simd reduction(+ : part)
      for (int j = j0; j < j1; j++) {
        const float e = el__expf(x[j] - mx);
        p[j] = e;
        part += e;
      }
      sum += part;
    }
    const float inv = (float)(1.0 / sum);
#pragma omp simd
    for (int j = 0; j < V; j++) p[j] *= inv;
    const double w = weights ? weights[i] : 1.0;
    row_loss[i] = w * (log(sum) - ((double)xt - mx));
    row_hit[i] = w > 0.0 && arg == targets[i];
  }
  double loss = 0.0;
  int hits = 0;
  for (int i = 0; i < n; i++) {
    loss += row_loss[i];
    hits += row_hit[i];
  }
  free(row_loss);
  free(row_hit);
  if (correct) *correct = hits;
  return loss;
}

void el_softmax_xent_backward(float *dlogits, const float *probs, const int *targets,
                              const float *weights, float scale, int n, int V) {
#pragma omp parallel for schedule(static) if ((long)n * V > 65536)
  for (int i = 0; i < n; i++) {
    const float c = scale * (weights ? weights[i] : 1.0f);
    if (c == 0.0f) continue;
    const float *p = probs + (size_t)i * V;
    float *d = dlogits + (size_t)i * V;
    for (int j = 0; j < V; j++) d[j] += c * p[j];
    d[targets[i]] -= c;
  }
}

/* BCE(sigmoid(x), y) = max(x, 0) - x y + log(1 + exp(-|x|)) */
double el_sigmoid_xent_forward(const float *logits, const float *labels, const float *weights,
                               int n) {
  double loss = 0.0;
  for (int i = 0; i < n; i++) {
    const double x = logits[i], y = labels[i];
    const double l = (x > 0 ? x : 0.0) - x * y + log1p(exp(-fabs(x)));
    loss += (weights ? weights[i] : 1.0) * l;
  }
  return loss;
}

void el_sigmoid_xent_backward(float *dlogits, const float *logits, const float *labels,
                              const float *weights, float scale, int n) {
  for (int i = 0; i < n; i++)
    dlogits[i] += scale * (weights ? weights[i] : 1.0f) * (el_sigmoidf(logits[i]) - labels[i]);
}
