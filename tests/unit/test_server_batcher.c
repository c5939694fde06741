/* The batching scheduler with a fake runner: outputs reach the right
 * sequences, budgets hold, jobs share batches, queues are per model, the
 * bound on the queue, deadlines (also inside a running batch) and draining
 * work, jobs whose client left are dropped, admission by tokens. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srv_batcher.h"
#include "../test.h"

/* Fake runner: out[t] = 2 * ids[t] + model tag; records what it saw. */
typedef struct fake {
  int sleep_us;
  int max_seqs_seen, max_tokens_seen, batches, mixed_models;
  int over_budget; /* a batch with > budget tokens and more than one sequence */
  int budget_tokens;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int hold; /* runner blocks while hold is set */
} fake;

static int fake_run(void *ctx, void *model, el__seq *const *seqs, int n, int n_tokens,
                    char *err, size_t cap) {
  (void)err, (void)cap;
  fake *f = ctx;
  pthread_mutex_lock(&f->mu);
  while (f->hold) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  if (f->sleep_us) usleep((useconds_t)f->sleep_us);
  int tag = (int)(intptr_t)model;
  int tokens = 0;
  for (int i = 0; i < n; i++) {
    for (int t = 0; t < seqs[i]->len; t++) seqs[i]->out[t] = 2.0f * seqs[i]->ids[t] + tag;
    if (seqs[i]->ids[0] / 100000 != tag) f->mixed_models = 1;
    tokens += seqs[i]->len;
  }
  if (tokens != n_tokens) f->over_budget = 1;
  if (n > 1 && tokens > f->budget_tokens) f->over_budget = 1;
  if (n > f->max_seqs_seen) f->max_seqs_seen = n;
  if (tokens > f->max_tokens_seen) f->max_tokens_seen = tokens;
  f->batches++;
  return 0;
}

/* A job of n_seqs sequences of given lengths, ids encode model and position. */
typedef struct tjob {
  el__job job;
  el__seq seqs[8];
  int ids[8][64];
  float out[8][64];
  int done, status;
  int released, done_at_release; /* release callback: calls, done count when it ran */
  struct tctx *ctx;
} tjob;

typedef struct tctx {
  el__sched *s;
  uv_loop_t loop;
  int n_total, n_done;
  int close_when_done;
} tctx;

static void job_done(el__job *j) {
  tjob *t = j->user;
  t->done++;
  t->status = j->status;
  t->ctx->n_done++;
  if (t->ctx->close_when_done && t->ctx->n_done == t->ctx->n_total) el__sched_close(t->ctx->s);
}

static void make_job(tjob *t, tctx *c, int model, int n_seqs, int len, int first_id) {
  memset(t, 0, sizeof *t);
  t->ctx = c;
  for (int i = 0; i < n_seqs; i++) {
    for (int k = 0; k < len; k++) t->ids[i][k] = model * 100000 + first_id + i * 100 + k;
    t->seqs[i].ids = t->ids[i];
    t->seqs[i].len = len;
    t->seqs[i].out = t->out[i];
  }
  t->job.model = (void *)(intptr_t)model;
  t->job.seqs = t->seqs;
  t->job.n_seqs = n_seqs;
  t->job.done = job_done;
  t->job.user = t;
}

static int outputs_ok(const tjob *t) {
  for (int i = 0; i < t->job.n_seqs; i++)
    for (int k = 0; k < t->seqs[i].len; k++) {
      int model = t->ids[i][k] / 100000;
      if (t->out[i][k] != 2.0f * t->ids[i][k] + model) return 0;
    }
  return 1;
}

typedef struct submitter {
  tctx *c;
  tjob *jobs;
  int from, to;
} submitter;

static void *submit_thread(void *arg) {
  submitter *sb = arg;
  for (int i = sb->from; i < sb->to; i++) {
    while (el__sched_admit(sb->c->s, 0) != EL_HERR_NONE) usleep(100);
    el__sched_submit(sb->c->s, &sb->jobs[i].job);
  }
  return NULL;
}

static fake *fake_new(int budget) {
  fake *f = calloc(1, sizeof *f);
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  f->budget_tokens = budget;
  return f;
}

static void fake_release(fake *f) {
  pthread_mutex_lock(&f->mu);
  f->hold = 0;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

/* Many jobs from 4 threads, two models, mixed lengths. */
static void test_many(void) {
  enum { N = 200 };
  tctx c = {0};
  uv_loop_init(&c.loop);
  fake *f = fake_new(40);
  f->sleep_us = 200;
  el__sched_config cfg = {.max_batch_tokens = 40, .max_batch_size = 6, .max_queue = 16};
  el__runner r = {fake_run, NULL, f};
  c.s = el__sched_new(&c.loop, &cfg, r);
  CHECK(c.s != NULL, "scheduler created");
  tjob *jobs = calloc(N, sizeof *jobs);
  for (int i = 0; i < N; i++)
    make_job(&jobs[i], &c, 1 + i % 2, 1 + i % 4, 3 + (i * 7) % 30, i * 1000 % 50000);
  c.n_total = N;
  c.close_when_done = 1;
  pthread_t th[4];
  submitter sb[4];
  for (int k = 0; k < 4; k++) {
    sb[k] = (submitter){&c, jobs, k * N / 4, (k + 1) * N / 4};
    pthread_create(&th[k], NULL, submit_thread, &sb[k]);
  }
  /* The loop runs until the scheduler is closed by the last callback; the
   * submitters never let the loop go idle before that because the async
   * handle stays referenced. */
  uv_run(&c.loop, UV_RUN_DEFAULT);
  for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
  int all_once = 1, all_ok = 1, statuses = 1;
  for (int i = 0; i < N; i++) {
    if (jobs[i].done != 1) all_once = 0;
    if (jobs[i].status != EL_HERR_NONE) statuses = 0;
    if (!outputs_ok(&jobs[i])) all_ok = 0;
  }
  CHECK(c.n_done == N, "all %d jobs completed (%d)", N, c.n_done);
  CHECK(all_once, "each done callback ran exactly once");
  CHECK(statuses, "every job succeeded");
  CHECK(all_ok, "every sequence got its own outputs");
  CHECK(!f->mixed_models, "no batch mixed two models");
  CHECK(!f->over_budget, "no multi-sequence batch over the token budget");
  CHECK(f->max_seqs_seen <= 6, "batch size <= max_batch_size (max %d)", f->max_seqs_seen);
  CHECK(f->max_seqs_seen > 1, "sequences were batched together (max %d)", f->max_seqs_seen);
  free(jobs);
  free(f);
  uv_loop_close(&c.loop);
}

/* Runs the loop until cond(c) or ~2 s. */
static int spin(tctx *c, int (*cond)(tctx *), void *unused) {
  (void)unused;
  double t0 = el__now();
  while (!cond(c) && el__now() - t0 < 2.0) {
    uv_run(&c->loop, UV_RUN_NOWAIT);
    usleep(500);
  }
  return cond(c);
}

static int all_done(tctx *c) { return c->n_done == c->n_total; }

static void close_loop(tctx *c) {
  el__sched_close(c->s);
  uv_run(&c->loop, UV_RUN_DEFAULT);
  uv_loop_close(&c->loop);
}

/* c's loop and a scheduler with cfg whose fake runner (its budget the
 * batch's) blocks until fake_release. */
static fake *held_sched(tctx *c, el__sched_config cfg) {
  uv_loop_init(&c->loop);
  fake *f = fake_new(cfg.max_batch_tokens);
  f->hold = 1;
  c->s = el__sched_new(&c->loop, &cfg, (el__runner){fake_run, NULL, f});
  return f;
}

/* Jobs queued while the engine is busy share the next batch; queue bound;
 * drain refuses new work and fails what waits. */
static void test_sharing_bound_drain(void) {
  tctx c = {0};
  fake *f = held_sched(
      &c, (el__sched_config){.max_batch_tokens = 1000, .max_batch_size = 8, .max_queue = 10});
  tjob jobs[12];
  for (int i = 0; i < 12; i++) make_job(&jobs[i], &c, 1, 1, 5, i * 10);
  c.n_total = 10;
  int admitted = 0;
  for (int i = 0; i < 10; i++)
    if (el__sched_admit(c.s, 0) == EL_HERR_NONE) {
      admitted++;
      el__sched_submit(c.s, &jobs[i].job);
      if (i == 0) { /* let the first one start alone and block the runner */
        for (int k = 0; k < 20; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
      }
    }
  CHECK(admitted == 10, "10 admitted up to max_queue");
  CHECK(el__sched_admit(c.s, 0) == EL_HERR_OVERLOADED, "11th request overloaded");
  CHECK(el__sched_depth(c.s) == 10, "depth 10");
  for (int k = 0; k < 10; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(200);
  fake_release(f);
  spin(&c, all_done, NULL);
  CHECK(c.n_done == 10, "all 10 answered");
  CHECK(f->batches == 3, "1 + 8 + 1 sequences ran in 3 batches (got %d)", f->batches);
  CHECK(jobs[1].job.max_batch_seqs == 8, "queued jobs shared a batch of 8 (got %d)",
        jobs[1].job.max_batch_seqs);
  CHECK(el__sched_depth(c.s) == 0, "depth back to 0");

  /* drain */
  f->hold = 1;
  c.n_total = 12;
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &jobs[10].job);
  for (int k = 0; k < 20; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &jobs[11].job);
  for (int k = 0; k < 5; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(200);
  el__sched_drain(c.s);
  CHECK(el__sched_admit(c.s, 0) == EL_HERR_UNAVAILABLE, "admit refused while draining");
  el__sched_fail_queued(c.s, EL_HERR_UNAVAILABLE, "draining");
  CHECK(jobs[11].done == 1 && jobs[11].status == EL_HERR_UNAVAILABLE,
        "queued job failed with 503 on drain");
  CHECK(jobs[10].done == 0, "running job not failed");
  CHECK(!el__sched_idle(c.s), "not idle while a batch runs");
  fake_release(f);
  spin(&c, all_done, NULL);
  CHECK(jobs[10].done == 1 && jobs[10].status == EL_HERR_NONE && outputs_ok(&jobs[10]),
        "running job finished normally during drain");
  CHECK(el__sched_idle(c.s), "idle after drain");
  close_loop(&c);
  free(f);
}

/* A deadline passing while queued gives 504 without running it. */
static void test_deadline(void) {
  tctx c = {0};
  fake *f = held_sched(
      &c, (el__sched_config){.max_batch_tokens = 1000, .max_batch_size = 8, .max_queue = 10});
  tjob a, b;
  make_job(&a, &c, 1, 1, 4, 0);
  make_job(&b, &c, 1, 2, 4, 50);
  c.n_total = 2;
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &a.job);
  for (int k = 0; k < 20; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
  /* dt counts from the moment the deadline is set (measured from after the
   * submit, a descheduled test saw 16 ms on a busy machine) */
  double t0 = el__now();
  b.job.deadline = t0 + 0.05;
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &b.job);
  while (!b.done && el__now() - t0 < 1.0) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(1000);
  double dt = el__now() - t0;
  CHECK(b.done == 1 && b.status == EL_HERR_TIMEOUT, "queued job timed out (status %d)",
        b.status);
  CHECK(dt >= 0.04 && dt < 0.2, "timeout after ~50 ms (%.3f s)", dt);
  fake_release(f);
  spin(&c, all_done, NULL);
  CHECK(a.status == EL_HERR_NONE && outputs_ok(&a), "running job unaffected");
  CHECK(f->batches == 1, "the expired job never ran");
  close_loop(&c);
  free(f);
}

static void job_released(el__job *j) {
  tjob *t = j->user;
  t->released++;
  t->done_at_release = t->done;
}

/* A deadline passing while a job's sequences are in the running batch: a
 * job with a release callback is answered (504) at its deadline and released
 * only once the batch has returned; its sequences still queued never run. A
 * job without one keeps its result. A job whose deadline has passed is never
 * packed into a new batch. */
static void test_deadline_in_batch(void) {
  tctx c = {0};
  fake *f = held_sched(
      &c, (el__sched_config){.max_batch_tokens = 1000, .max_batch_size = 3, .max_queue = 10});
  tjob a, b, e, d;
  make_job(&a, &c, 1, 1, 4, 0);  /* release callback, all in the batch */
  make_job(&b, &c, 1, 1, 4, 20); /* no release callback */
  make_job(&e, &c, 1, 2, 4, 40); /* release callback, one sequence in, one queued */
  make_job(&d, &c, 1, 1, 4, 80); /* deadline already passed when submitted */
  a.job.release = e.job.release = d.job.release = job_released;
  c.n_total = 4;
  double t0 = el__now();
  a.job.deadline = b.job.deadline = e.job.deadline = t0 + 0.1;
  tjob *first[3] = {&a, &b, &e};
  for (int i = 0; i < 3; i++) {
    el__sched_admit(c.s, 0);
    el__sched_submit(c.s, &first[i]->job);
  }
  while (!(a.done && e.done) && el__now() - t0 < 2.0) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(1000);
  double dt = el__now() - t0;
  CHECK(f->batches == 0 && a.job.running == 1 && b.job.running == 1 && e.job.running == 1,
        "a, b and e's first sequence are in the batch, held running");
  CHECK(a.done == 1 && a.status == EL_HERR_TIMEOUT && e.done == 1 && e.status == EL_HERR_TIMEOUT,
        "jobs with a release callback answered 504 while their batch runs (a %d/%d, e %d/%d)",
        a.done, a.status, e.done, e.status);
  CHECK(dt >= 0.09 && dt < 0.3, "at their deadline: %.3f s after the submit (deadline 0.1 s)", dt);
  CHECK(a.released == 0 && e.released == 0, "not released while the batch runs");
  CHECK(b.done == 0, "the job without a release callback waits for its batch");
  CHECK(el__sched_depth(c.s) == 1, "answered jobs leave the queue's depth (%d)",
        el__sched_depth(c.s));
  double t1;
  d.job.deadline = el__now() - 0.01;
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &d.job);
  t1 = el__now();
  while (!d.done && el__now() - t1 < 1.0) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(1000);
  CHECK(d.done == 1 && d.status == EL_HERR_TIMEOUT && d.released == 1 && d.done_at_release == 1,
        "a job already past its deadline: 504 and released at once (done %d, released %d)",
        d.done, d.released);
  fake_release(f);
  t1 = el__now();
  while (!(a.released && e.released && b.done) && el__now() - t1 < 2.0)
    uv_run(&c.loop, UV_RUN_NOWAIT), usleep(1000);
  CHECK(a.released == 1 && e.released == 1 && a.done_at_release == 1 && e.done_at_release == 1,
        "released once each after the batch returned, after their one answer");
  CHECK(a.done == 1 && e.done == 1 && d.done == 1 && d.released == 1, "no second answer");
  CHECK(b.done == 1 && b.status == EL_HERR_NONE && outputs_ok(&b), "b got its result");
  for (int k = 0; k < 20; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
  CHECK(f->batches == 1, "e's queued sequence and d never ran (%d batches)", f->batches);
  CHECK(el__sched_depth(c.s) == 0 && el__sched_idle(c.s), "depth 0 and idle");
  close_loop(&c);
  free(f);
}

/* max_wait_us gathers jobs submitted within the window into one batch; a
 * lone sequence longer than the token budget still runs. */
static void test_wait_and_long(void) {
  tctx c = {0};
  uv_loop_init(&c.loop);
  fake *f = fake_new(10);
  el__sched_config cfg = {
      /* a window of 200 ms: with 30 ms, a test descheduled between the two
       * submits on a busy machine missed it */
      .max_batch_tokens = 10, .max_batch_size = 8, .max_wait_us = 200000, .max_queue = 10};
  c.s = el__sched_new(&c.loop, &cfg, (el__runner){fake_run, NULL, f});
  tjob a, b, l;
  make_job(&a, &c, 1, 1, 3, 0);
  make_job(&b, &c, 1, 1, 3, 10);
  make_job(&l, &c, 1, 1, 40, 20);
  c.n_total = 3;
  double t0 = el__now();
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &a.job);
  for (int k = 0; k < 10; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &b.job);
  while (!(a.done && b.done) && el__now() - t0 < 1.0) uv_run(&c.loop, UV_RUN_ONCE);
  double dt = el__now() - t0;
  CHECK(a.done && b.done && a.job.max_batch_seqs == 2, "two jobs gathered by max_wait_us");
  CHECK(dt >= 0.19, "the partial batch waited (%.3f s)", dt);
  el__sched_admit(c.s, 0);
  el__sched_submit(c.s, &l.job);
  spin(&c, all_done, NULL);
  CHECK(l.done && l.status == EL_HERR_NONE && outputs_ok(&l),
        "a sequence longer than the token budget ran alone");
  close_loop(&c);
  free(f);
}

/* el__job.gone: a job whose client left is dropped before it runs, its place
 * and tokens freed; max_queue_tokens refuses what would pass the bound. */
static int gone_flag;
static int job_gone(el__job *j) {
  (void)j;
  return gone_flag;
}

static void test_gone_and_tokens(void) {
  tctx c = {0};
  fake *f = held_sched(&c, (el__sched_config){.max_batch_tokens = 1000, .max_batch_size = 8,
                                              .max_queue = 10, .max_queue_tokens = 20});
  tjob a, b;
  make_job(&a, &c, 1, 1, 4, 0);
  make_job(&b, &c, 1, 2, 4, 10);
  a.job.cost = 4;
  b.job.cost = 8;
  b.job.gone = job_gone;
  c.n_total = 2;
  CHECK(el__sched_admit_cost(c.s, 0, 4) == EL_HERR_NONE, "4 tokens admitted");
  el__sched_submit(c.s, &a.job);
  for (int k = 0; k < 20; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(500);
  CHECK(el__sched_admit_cost(c.s, 0, 8) == EL_HERR_NONE, "12 of 20 tokens admitted");
  el__sched_submit(c.s, &b.job);
  CHECK(el__sched_admit_cost(c.s, 0, 12) == EL_HERR_OVERLOADED,
        "24 tokens would pass --max-queue-tokens 20: overloaded");
  CHECK(el__sched_queued_tokens(c.s) == 12, "12 tokens queued (%ld)", el__sched_queued_tokens(c.s));
  gone_flag = 1; /* b's client leaves while a runs */
  for (int k = 0; k < 40; k++) uv_run(&c.loop, UV_RUN_NOWAIT), usleep(1000);
  CHECK(b.done == 1 && b.job.cancelled && b.status == EL_HERR_UNAVAILABLE,
        "the job whose client left is dropped while another runs (done %d, cancelled %d)",
        b.done, b.job.cancelled);
  fake_release(f);
  spin(&c, all_done, NULL);
  CHECK(a.status == EL_HERR_NONE && outputs_ok(&a), "the running job unaffected");
  CHECK(f->batches == 1, "the dropped job never ran (%d batches)", f->batches);
  CHECK(el__sched_queued_tokens(c.s) == 0 && el__sched_depth(c.s) == 0 &&
            el__sched_cancelled(c.s) == 1,
        "its place and tokens are free, one cancellation counted");
  CHECK(el__sched_admit_cost(c.s, 0, 50) == EL_HERR_NONE,
        "an empty queue admits a request larger than the bound");
  el__sched_unadmit_cost(c.s, 50);
  gone_flag = 0;
  close_loop(&c);
  free(f);
}

int main(void) {
  test_gone_and_tokens();
  test_many();
  test_sharing_bound_drain();
  test_deadline();
  test_deadline_in_batch();
  test_wait_and_long();
  return el_test_done();
}
