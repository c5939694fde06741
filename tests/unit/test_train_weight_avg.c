/* The fine-tuner's moving average of the weights (train/model/weight_avg.h)
 * against a naive double-precision reference of the stated recurrence:
 * the decay schedule min(decay, (1+t)/(10+t)), updates over many steps of
 * changing weights, the swap in place and back, and the refused decays. */
#include <math.h>
#include <string.h>
#include "weight_avg.h"
#include "../test.h"

enum { N = 1000, STEPS = 3000 };

/* weights of step t: a drift plus a per-element wobble */
static float weight_at(long t, int i) {
  return (float)(0.001 * (double)t + sin(0.37 * (double)i + 0.05 * (double)t));
}

int main(void) {
  CHECK_NEAR(el__weight_avg_decay_at(0.999, 1), 2.0 / 11.0, 1e-15, 0, "t=1: (1+1)/(10+1)");
  CHECK_NEAR(el__weight_avg_decay_at(0.999, 100), 101.0 / 110.0, 1e-15, 0, "t=100: 101/110");
  CHECK_NEAR(el__weight_avg_decay_at(0.999, 100000), 0.999, 1e-15, 0, "late: the decay itself");

  static float w[N], ref_w[N];
  static double ref[N];
  for (int i = 0; i < N; i++) ref[i] = w[i] = weight_at(0, i);
  el__weight_avg a;
  el_error err = {0};
  CHECK(el__weight_avg_init(&a, w, N, 0.999, &err) == EL_OK, "init: %s", err.msg);
  CHECK(!memcmp(a.avg, w, sizeof w), "the average starts as the weights");
  for (long t = 1; t <= STEPS; t++) {
    for (int i = 0; i < N; i++) w[i] = weight_at(t, i);
    el__weight_avg_update(&a, w);
    double d = fmin(0.999, (1.0 + (double)t) / (10.0 + (double)t));
    for (int i = 0; i < N; i++) ref[i] = d * ref[i] + (1 - d) * (double)w[i];
  }
  double worst = 0, moved = 0;
  for (int i = 0; i < N; i++) {
    worst = fmax(worst, fabs((double)a.avg[i] - ref[i]));
    moved = fmax(moved, fabs((double)a.avg[i] - (double)w[i]));
  }
  CHECK(a.updates == STEPS, "%ld updates counted", a.updates);
  CHECK(worst < 2e-5, "%d steps: the average within %.2g of the double reference (< 2e-5)", STEPS,
        worst);
  CHECK(moved > 0.1, "the average lags the drifting weights (%.3f from the last step's)", moved);

  memcpy(ref_w, w, sizeof w);
  float avg_before[N];
  memcpy(avg_before, a.avg, sizeof avg_before);
  el__weight_avg_swap(&a, w);
  CHECK(!memcmp(w, avg_before, sizeof w) && !memcmp(a.avg, ref_w, sizeof w),
        "swap: the weights hold the average and the average the weights");
  el__weight_avg_swap(&a, w);
  CHECK(!memcmp(w, ref_w, sizeof w) && !memcmp(a.avg, avg_before, sizeof w),
        "a second swap restores both bit for bit");
  el__weight_avg_free(&a);
  CHECK(!a.avg && !a.n, "free: emptied");

  CHECK(el__weight_avg_init(&a, w, N, 1.0, &err) == EL_EINVAL && strstr(err.msg, "decay 1"),
        "decay 1 refused: %s", err.msg);
  CHECK(el__weight_avg_init(&a, w, N, 0, &err) == EL_EINVAL, "decay 0 refused: %s", err.msg);
  CHECK(!a.avg, "nothing allocated on a refused decay");
  return el_test_done();
}
