/* The time planner of --time-limit (train/model/schedule.h) driven with synthetic
 * step times: constant, slowing down, noisy, a stall inside a step and a
 * pause between steps, periodic validation, a reserve for the final
 * validation, the --max-steps cap, a budget shorter than one step, the
 * provisional total before the measurement and a resumed session.
 *
 * Tolerance: a session ends at most one step's time before the budget and
 * (with noisy steps) at most half a step after it; the learning rate of its
 * last step is at most 2 % of the peak; the warmup is the stated share of
 * the final planned total. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "optim.h"
#include "schedule.h"
#include "../test.h"

typedef double (*step_fn)(long i, void *ctx); /* seconds of session step i (0-based) */

typedef struct sim {
  long steps;           /* steps run */
  double end;           /* elapsed seconds at the end */
  long total;           /* final planned total */
  double last_lr;       /* LR of the last step */
  double max_lr;        /* highest LR of the session */
  long warm;            /* warmup of the final total */
  double max_jump;      /* largest relative change of the total between steps, once measured */
  long total_at_meas;   /* the first measured total */
} sim;

/* Runs one session like the training loops do: LR from the current plan,
 * the step, then el__plan_step. gap(i) adds seconds outside step i
 * (validation, a pause); it may be NULL. */
static sim run(double budget, long start, long provisional, long cap, step_fn step, step_fn gap,
               void *ctx, double reserve, int tenth_cap, long warmup_steps) {
  el__plan p;
  el__plan_init(&p, budget, start, provisional, cap);
  el__plan_set_reserve(&p, reserve);
  sim s = {0};
  double t = 0, peak = 1e-3;
  long prev = -1;
  while (!el__plan_done(&p) && s.steps < 10000000) {
    long total = p.total;
    long warm = el__warmup_capped(total, warmup_steps, tenth_cap);
    double lr = el__lr_at(peak, start + s.steps, total, warm);
    s.last_lr = lr / peak;
    if (lr / peak > s.max_lr) s.max_lr = lr / peak;
    double dt = step(s.steps, ctx);
    t += dt;
    el__plan_step(&p, dt, t);
    if (gap) t += gap(s.steps, ctx);
    s.steps++;
    if (p.measured) {
      if (prev > 0) {
        double j = fabs((double)(p.total - prev)) / (double)prev;
        if (j > s.max_jump && p.total - (start + s.steps) > 50) s.max_jump = j;
      } else {
        s.total_at_meas = p.total;
      }
      prev = p.total;
    }
  }
  s.end = t;
  s.total = p.total;
  s.warm = el__warmup_capped(p.total, warmup_steps, tenth_cap);
  return s;
}

static double constant(long i, void *ctx) {
  (void)ctx;
  return i == 0 ? 0.5 : 0.1; /* the first step pays a warm-up cost */
}
static double slowing(long i, void *ctx) {
  (void)ctx;
  return 0.1 + 0.0002 * (double)i; /* 0.1 s growing to ~0.2 s over the session */
}
static double stall(long i, void *ctx) {
  (void)ctx;
  return i == 150 ? 10.0 : 0.1; /* one step stalls for 10 s */
}
static double pause_gap(long i, void *ctx) {
  (void)ctx;
  return i == 150 ? 10.0 : 0; /* the process is stopped for 10 s between steps */
}
static double validation_gap(long i, void *ctx) {
  (void)ctx;
  return (i + 1) % 100 == 0 ? 2.0 : 0.002; /* validation every 100 steps, logging */
}
static double noisy(long i, void *ctx) {
  uint64_t *x = ctx; /* xorshift: +-20 % around 0.1 s */
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  (void)i;
  return 0.1 * (0.8 + 0.4 * (double)(*x >> 11) / 9007199254740992.0);
}

/* The common checks: the session ends within [budget - reserve - late, budget
 * - reserve + early_ok], the plan is complete and the LR decayed. */
static void check_end(const char *name, const sim *s, double budget, double reserve, double step,
                      double over) {
  double lim = budget - reserve;
  CHECK(s->end <= lim + over && s->end >= lim - step,
        "%s: ends at %.2f s, within [%.2f, %.2f] (budget %.0f s, reserve %.0f s)", name, s->end,
        lim - step, lim + over, budget, reserve);
  CHECK(s->steps == s->total, "%s: the session ran its planned total (%ld steps)", name, s->steps);
  CHECK(s->last_lr <= 0.02, "%s: last LR %.4f x peak <= 0.02", name, s->last_lr);
}

/* The switch from a provisional total (warmup of 10000) to a plan of 210
 * steps (warmup 21) after 11 steps: no jump, then the plan's schedule. */
static void test_lr_ramp(void) {
  const double peak = 5e-4;
  el__lr_ramp q = {0}, same = {0};
  double prev = 0, max_rise = 0;
  int exact = 1, after = 1;
  for (long t = 0; t < 210; t++) {
    long total = t < 11 ? 100000 : 210, warm = t < 11 ? 10000 : 21;
    double lr = el__lr_ramped(&q, peak, t, total, warm);
    if (t > 0 && lr - prev > max_rise) max_rise = lr - prev;
    if (t >= 21 && fabs(lr - el__lr_at(peak, t, total, warm)) > 1e-12) after = 0;
    if (el__lr_ramped(&same, peak, t, 1000, 100) != el__lr_at(peak, t, 1000, 100)) exact = 0;
    prev = lr;
  }
  CHECK(max_rise < 1.1 * peak / 10, "plan replacing the provisional total: the LR rises at most "
        "%.2e per step (the plain schedule jumped 2.6e-04)", max_rise);
  CHECK(after, "from the end of the planned warmup on: the planned schedule exactly");
  CHECK(exact, "a total that never changes: el__lr_at exactly");
}

int main(void) {
  test_lr_ramp();
  /* constant steps, pretraining warmup rule (preset 1000, at most a tenth) */
  sim s = run(60, 0, 10000, 0, constant, NULL, NULL, 0, 1, 1000);
  check_end("constant", &s, 60, 0, 0.1, 0);
  CHECK(s.total >= 594 && s.total <= 596, "constant: 0.5 s + 0.1 s steps in 60 s -> %ld (595)",
        s.total);
  CHECK(s.warm == s.total / 10, "constant: warmup %ld = a tenth of the planned %ld", s.warm,
        s.total);
  CHECK(s.max_lr > 0.85, "constant: the LR reaches %.3f of the peak (after warmup)", s.max_lr);
  CHECK(labs(s.total_at_meas - s.total) <= 1, "constant: the first plan (%ld) is the final one",
        s.total_at_meas);
  /* an explicit --warmup-steps is not capped */
  s = run(60, 0, 10000, 0, constant, NULL, NULL, 0, 0, 100);
  CHECK(s.warm == 100, "explicit warmup 100 kept (planned %ld)", s.total);
  /* fine-tuning: warmup share of the planned total */
  CHECK(el__warmup_share(595, 0.1) == 59, "fine-tuning warmup = 10%% of 595 -> 59");
  CHECK(el__warmup_capped(595, 1000, 1) == 59 && el__warmup_capped(595, 30, 1) == 30,
        "pretraining warmup: min(preset, total / 10)");

  /* slowing down: the plan follows the step time */
  s = run(60, 0, 10000, 0, slowing, NULL, NULL, 0, 1, 1000);
  check_end("slowing", &s, 60, 0, 0.2, 0.01);
  CHECK(s.total < s.total_at_meas, "slowing: the total shrinks (%ld -> %ld)", s.total_at_meas,
        s.total);
  CHECK(s.max_jump < 0.01, "slowing: the total moves smoothly (largest change %.4f)", s.max_jump);

  /* noise around a constant mean */
  uint64_t seed = 88172645463325252ULL;
  s = run(60, 0, 10000, 0, noisy, NULL, &seed, 0, 1, 1000);
  check_end("noisy", &s, 60, 0, 0.12, 0.06);
  CHECK(s.max_jump < 0.02, "noisy: the total is stable (largest change %.4f)", s.max_jump);

  /* a 10 s stall inside one step and a 10 s pause between steps */
  s = run(60, 0, 10000, 0, stall, NULL, NULL, 0, 1, 1000);
  check_end("stall in a step", &s, 60, 0, 0.1, 0);
  CHECK(s.total >= 480 && s.total <= 500, "stall: 10 s lost -> %ld steps (~495)", s.total);
  s = run(60, 0, 10000, 0, constant, pause_gap, NULL, 0, 1, 1000);
  check_end("pause between steps", &s, 60, 0, 0.1, 0);
  CHECK(s.total >= 480 && s.total <= 500, "pause: 10 s lost -> %ld steps (~495)", s.total);

  /* periodic validation counts against the budget; a reserve is kept free */
  s = run(120, 0, 10000, 0, constant, validation_gap, NULL, 0, 1, 1000);
  check_end("validation every 100 steps", &s, 120, 0, 0.13, 0);
  s = run(60, 0, 10000, 0, constant, NULL, NULL, 5, 1, 1000);
  check_end("5 s reserve", &s, 60, 5, 0.1, 0);

  /* --max-steps stays an upper bound */
  s = run(60, 0, 10000, 300, constant, NULL, NULL, 0, 1, 1000);
  CHECK(s.steps == 300 && s.total == 300 && s.end < 40,
        "cap 300: %ld steps in %.1f s, planned %ld", s.steps, s.end, s.total);
  CHECK(s.warm == 30, "cap 300: warmup a tenth (%ld)", s.warm);

  /* a budget shorter than the first step: one step, no plan to wait for */
  s = run(0.3, 0, 10000, 0, constant, NULL, NULL, 0, 1, 1000);
  CHECK(s.steps == 1 && s.total == 1, "budget < one step: %ld step, total %ld", s.steps, s.total);
  s = run(1.0, 0, 10000, 0, constant, NULL, NULL, 0, 1, 1000);
  CHECK(s.end <= 1.0 && s.steps >= 5, "1 s budget: %ld steps in %.2f s", s.steps, s.end);

  /* before the measurement the provisional total holds */
  {
    el__plan p;
    el__plan_init(&p, 60, 0, 1500, 0);
    CHECK(p.total == 1500 && !el__plan_done(&p), "provisional total 1500 before any step");
    double t = 0;
    for (int i = 0; i < 10; i++) {
      t += constant(i, NULL);
      el__plan_step(&p, constant(i, NULL), t);
    }
    CHECK(!p.measured && p.total == 1500, "10 steps: still provisional (9 measured)");
    CHECK(el__plan_eta(&p) <= 60 - t + 1e-9,
          "while measuring, the ETA is at most the budget left (%.1f s, not 1490 steps' %.0f s)",
          el__plan_eta(&p), 1490 * el__plan_cost(&p));
    t += 0.1;
    el__plan_step(&p, 0.1, t);
    CHECK(p.measured && p.total >= 595 && p.total <= 596, "11th step: planned %ld (595-596)",
          p.total);
    CHECK(fabs(el__plan_cost(&p) - 0.1) < 1e-9 &&
              fabs(el__plan_eta(&p) - 0.1 * (double)(p.total - 11)) < 1e-9,
          "cost %.3f s/step, ETA %.1f s", el__plan_cost(&p), el__plan_eta(&p));
  }
  /* a resumed session: the plan counts from the step it starts at; a
   * provisional total behind the start (the previous plan was complete)
   * gives LR 0 until measured, not a session that ends at once */
  s = run(60, 2000, 2000, 0, constant, NULL, NULL, 0, 1, 1000);
  CHECK(s.total >= 2594 && s.total <= 2596 && s.steps == s.total - 2000,
        "resume at 2000 with 60 s: planned %ld, %ld steps", s.total, s.steps);
  CHECK(s.last_lr <= 0.02, "resume: last LR %.4f x peak", s.last_lr);
  /* a cap already reached ends the session before any step */
  {
    el__plan p;
    el__plan_init(&p, 60, 500, 500, 500);
    CHECK(el__plan_done(&p), "start at the cap: done at once");
  }
  return el_test_done();
}
