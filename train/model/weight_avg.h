/* An exponential moving average of a parameter block (Polyak averaging), for
 * the fine-tuner's --average-weights: dev evaluations and the saved
 * checkpoint read the average instead of the last step's weights, which on a
 * small training set wander from batch to batch (FCE GED's dev F0.5 moves by
 * +-0.01 between neighbouring epochs).
 *
 *   avg = d_t avg + (1 - d_t) w     after every optimizer step t = 1, 2, ...
 *   d_t = min(decay, (1 + t) / (10 + t))
 *
 * d_t is the decay of TensorFlow's ExponentialMovingAverage with num_updates:
 * the early average follows the weights closely instead of remembering the
 * initial ones for thousands of steps. The average starts as the weights.
 *
 * Ownership: el__weight_avg owns avg (one allocation); the weights stay the
 * caller's. */
#ifndef EL_TRAIN_WEIGHT_AVG_H
#define EL_TRAIN_WEIGHT_AVG_H

#include <stddef.h>

#include "electra/error.h"

typedef struct el__weight_avg {
  float *avg;   /* n floats, 64-byte aligned */
  size_t n;
  double decay; /* the longest memory: 0.999 ~ the last thousand steps */
  long updates; /* t of the last update */
} el__weight_avg;

/* avg = a copy of w (n floats); decay in (0, 1). */
int el__weight_avg_init(el__weight_avg *a, const float *w, size_t n, double decay, el_error *err);

/* d_t for the update number t (1 for the first): the schedule above. */
double el__weight_avg_decay_at(double decay, long t);

/* One update with the weights after an optimizer step. */
void el__weight_avg_update(el__weight_avg *a, const float *w);

/* Exchanges the average and the weights in place (no second block): call
 * before reading the averaged model and again after, which restores both. */
void el__weight_avg_swap(el__weight_avg *a, float *w);

void el__weight_avg_free(el__weight_avg *a);

#endif
