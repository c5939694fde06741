/* Time-planned learning-rate schedules (--time-limit of pretrain and
 * finetune): how many optimizer steps fit in the time a session has, so that
 * the linear warmup + decay of el__lr_at ends at the limit instead of being
 * cut off mid-way.
 *
 * The plan is per session. The caller tells the planner the seconds it may
 * spend, the step it starts at, and after every step the step's seconds and
 * the seconds elapsed since the session began; the planner returns the
 * planned total: the absolute step at which the learning rate reaches 0.
 *
 * How the total is computed:
 *  - Measurement: the first step (allocation, cold caches) is left out of the
 *    estimate. The plan starts after 10 more steps, or earlier once 5% of the
 *    budget has gone (at least one measured step), or at once if waiting
 *    longer could overrun the budget. Until then the caller's provisional
 *    total holds (the schedule the run would have without a plan).
 *  - Cost of a further step = the smoothed step time + the time spent outside
 *    steps so far (validation, checkpoints, logging, pauses) averaged over the
 *    session's steps, so periodic validation and saving count against the
 *    budget. The step time is the mean of the first 10 measured steps, then
 *    an exponential average (weight 1/20) of step times clipped at 3x the
 *    current estimate: a single stall does not collapse the plan, a lasting
 *    slowdown is followed within a few dozen steps.
 *  - total = step + floor((budget - reserve - elapsed) / cost), at most cap,
 *    re-computed after every step; reserve is the time kept for the work that
 *    follows the last step (final validation and save), as the caller last
 *    measured it. The session is over when the total is reached: the last
 *    step starts only if its expected cost still fits, so the run ends at or
 *    just before the limit with the learning rate at its last value of the
 *    linear decay (peak / total), as a run planned with --max-steps does. */
#ifndef EL_TRAIN_SCHEDULE_H
#define EL_TRAIN_SCHEDULE_H

/* A --max-steps value meaning "no step bound": a pretraining run given
 * --time-limit and no --max-steps (the time limit alone decides). The
 * option's own upper bound, so it can also be given explicitly. */
#define EL__STEPS_UNBOUNDED 1000000000000L

#define EL__PLAN_MEASURE_STEPS 10 /* measured steps before the first plan */
#define EL__PLAN_MEASURE_SHARE 0.05 /* ... or this share of the budget */
#define EL__PLAN_EMA 0.05         /* weight of a new step time in the estimate */
#define EL__PLAN_CLIP 3.0         /* a step time counts at most this x the estimate */

typedef struct el__plan {
  double budget;   /* seconds the session may take (from the first step's start) */
  long start;      /* step at the session start */
  long cap;        /* upper bound of the total (--max-steps or epochs); <= 0: none */
  long total;      /* planned total: the LR reaches 0 at this step */
  int measured;    /* the measurement is over: total follows the budget */
  long n;          /* steps seen this session */
  long n_meas;     /* steps in the measurement mean (the first is left out) */
  double first_s;  /* the first step's seconds */
  double meas_s;   /* sum of the measured steps' seconds */
  double step_s;   /* estimated seconds per step (valid when n_meas > 0) */
  double busy_s;   /* seconds inside steps this session */
  double elapsed;  /* seconds since the session start at the last update */
  double reserve;  /* seconds kept free at the end */
} el__plan;

/* A plan for budget_s seconds starting at start_step; total is
 * min(provisional_total, cap) until measured. */
void el__plan_init(el__plan *p, double budget_s, long start_step, long provisional_total,
                   long cap);

/* Records one step of step_s seconds; elapsed_s = seconds since the session
 * started (steps and everything between them). Returns the planned total. */
long el__plan_step(el__plan *p, double step_s, double elapsed_s);

/* Seconds to keep for the work after the last step (final validation and
 * save); applies from the next el__plan_step. */
void el__plan_set_reserve(el__plan *p, double seconds);

/* The session is over: the plan is measured and its total reached. */
int el__plan_done(const el__plan *p);

/* Expected seconds of one more step, overhead included (NAN before any
 * step), and the expected seconds until the planned total (while still
 * measuring, at most what is left of the budget). */
double el__plan_cost(const el__plan *p);
double el__plan_eta(const el__plan *p);

/* The learning rate of step t, continuous where a time plan replaces the
 * provisional total: until the total first changes it is el__lr_at's; from
 * then on it ramps linearly from the last rate of the provisional schedule
 * to the planned schedule's, over the rest of the planned warmup (at least
 * EL__PLAN_MEASURE_STEPS steps), then follows the planned schedule. (The
 * provisional total is long, so its warmup had hardly begun: pretraining
 * jumped from 5.0e-06 to 2.6e-04 in one step.) Zero-initialise; one per
 * session; a run whose total never changes gets el__lr_at exactly. */
typedef struct el__lr_ramp {
  int state;      /* 0: no step yet, 1: provisional total, 2: planned */
  long total0;    /* the provisional total */
  long s0, end;   /* the ramp: from step s0 to step end */
  double lr0;     /* the last rate of the provisional schedule */
} el__lr_ramp;
double el__lr_ramped(el__lr_ramp *q, double peak, long t, long total, long warm);

/* Warmup steps for a (planned) total. Pretraining: `steps`, and with
 * tenth_cap at most total / 10 (the preset rule; a --warmup-steps the user
 * gave is kept as is). Fine-tuning: el__warmup_share. */
long el__warmup_capped(long total, long steps, int tenth_cap);
long el__warmup_share(long total, double share);

#endif
