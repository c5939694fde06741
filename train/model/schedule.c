/* The time planner of the learning-rate schedule (schedule.h). Pure
 * arithmetic on the times the caller reports: no clock is read here, so the
 * unit test drives it with synthetic step times. */
#include "schedule.h"
#include "optim.h"

#include <math.h>
#include <string.h>

static long cap_total(const el__plan *p, long total) {
  return p->cap > 0 && total > p->cap ? p->cap : total;
}

void el__plan_init(el__plan *p, double budget_s, long start_step, long provisional_total,
                   long cap) {
  memset(p, 0, sizeof *p);
  p->budget = budget_s;
  p->start = start_step;
  p->cap = cap;
  p->step_s = NAN;
  p->total = cap_total(p, provisional_total);
}

void el__plan_set_reserve(el__plan *p, double seconds) {
  p->reserve = seconds > 0 ? seconds : 0;
}

double el__plan_cost(const el__plan *p) {
  if (p->n == 0) return NAN;
  double step = p->n_meas ? p->step_s : p->first_s;
  /* time outside the steps (validation, saving, logging, stalls), spread
   * over the steps so far: periodic work recurs at about this rate */
  double outside = p->elapsed - p->busy_s;
  return step + (outside > 0 ? outside / (double)p->n : 0);
}

double el__plan_eta(const el__plan *p) {
  long left = p->total - (p->start + p->n);
  double c = el__plan_cost(p);
  double eta = left > 0 && isfinite(c) ? (double)left * c : 0;
  /* Still measuring: the provisional total is no estimate (a 64 s fine-tune
   * showed "ETA 9m47s"), but the plan ends within the budget. */
  if (!p->measured) {
    double rest = p->budget - p->reserve - p->elapsed;
    eta = rest > 0 ? (left > 0 && isfinite(c) ? fmin(eta, rest) : rest) : 0;
  }
  return eta;
}

/* Whether to end the measurement after this step: enough steps, enough of
 * the budget, or no room to wait for more. */
static int measurement_over(const el__plan *p) {
  if (p->n_meas >= EL__PLAN_MEASURE_STEPS) return 1;
  if (p->n_meas >= 1 && p->elapsed >= EL__PLAN_MEASURE_SHARE * p->budget) return 1;
  return p->elapsed + el__plan_cost(p) >= p->budget - p->reserve;
}

long el__plan_step(el__plan *p, double step_s, double elapsed_s) {
  if (!(step_s >= 0)) step_s = 0; /* NaN or a clock going backwards */
  p->n++;
  p->busy_s += step_s;
  p->elapsed = elapsed_s;
  if (p->n == 1) {
    p->first_s = step_s; /* warm-up cost: not representative */
  } else if (p->n_meas < EL__PLAN_MEASURE_STEPS) {
    p->n_meas++; /* the mean of the first steps, then an average that forgets */
    p->meas_s += step_s;
    p->step_s = p->meas_s / (double)p->n_meas;
  } else {
    double x = p->step_s > 0 ? fmin(step_s, EL__PLAN_CLIP * p->step_s) : step_s;
    p->step_s += EL__PLAN_EMA * (x - p->step_s);
  }
  if (!p->measured) {
    if (!measurement_over(p)) return p->total;
    p->measured = 1;
  }
  long step = p->start + p->n;
  double left = p->budget - p->reserve - p->elapsed, cost = el__plan_cost(p);
  long more = 0;
  if (left > 0 && cost > 0) {
    double m = floor(left / cost);
    more = m > 1e15 ? (long)1e15 : (long)m;
  } else if (left > 0) {
    more = p->cap > 0 ? p->cap : (long)1e15; /* steps that take no time */
  }
  p->total = cap_total(p, step + more);
  if (p->total < step) p->total = step; /* a cap already passed: stop here */
  return p->total;
}

int el__plan_done(const el__plan *p) {
  long step = p->start + p->n;
  if (p->cap > 0 && step >= p->cap) return 1;
  return p->measured && step >= p->total;
}

long el__warmup_capped(long total, long steps, int tenth_cap) {
  return tenth_cap && steps > total / 10 ? total / 10 : steps;
}

long el__warmup_share(long total, double share) { return (long)(share * (double)total); }

double el__lr_ramped(el__lr_ramp *q, double peak, long t, long total, long warm) {
  if (q->state == 0) q->state = 1, q->total0 = total;
  if (q->state == 1 && total != q->total0) { /* the plan's first total */
    q->state = 2;
    q->s0 = t;
    q->end = warm > t + EL__PLAN_MEASURE_STEPS ? warm : t + EL__PLAN_MEASURE_STEPS;
    if (q->end > total) q->end = total;
  }
  if (q->state == 1) return q->lr0 = el__lr_at(peak, t, total, warm);
  if (t >= q->end || q->end <= q->s0) return el__lr_at(peak, t, total, warm);
  double to = el__lr_at(peak, q->end, total, warm);
  return q->lr0 + (to - q->lr0) * (double)(t - q->s0) / (double)(q->end - q->s0);
}
