/* Batching scheduler (srv_batcher.h). */
#include "srv_batcher.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_metrics.h"

double el__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Per-model FIFO of jobs with sequences still to dispatch. */
typedef struct mqueue {
  void *model;
  el__job *head, *tail;
  struct mqueue *next;
} mqueue;

/* The one batch handed to the inference thread. */
typedef struct batch {
  void *model;
  el__seq **seqs;
  el__job **jobs; /* job of each sequence */
  int n, tokens;
  int rc;
  char err[200];
  double t0, t1;
} batch;

struct el__sched {
  uv_loop_t *loop;
  el__sched_config cfg;
  el__runner runner;
  uv_async_t wake;
  uv_timer_t wait_timer, deadline_timer;
  int handles_open;

  /* shared with other threads, under mu */
  pthread_mutex_t mu;
  pthread_cond_t cond;
  el__job *in_head, *in_tail; /* submitted, not yet seen by the loop */
  int depth;                  /* admitted and not yet answered */
  long tokens;                /* their reserved tokens */
  long cancelled;             /* jobs whose client left */
  int draining;
  int batch_posted;           /* loop -> inference: cur is ready to run */
  int batch_finished;         /* inference -> loop: cur has run */
  int quit;
  batch cur;
  pthread_t thread;
  int thread_started;

  /* loop thread only */
  mqueue *queues;
  int busy;      /* a batch is posted or running */
  int waiting;   /* wait_timer armed for a fuller batch */
  int queued_jobs;
};

/* Answers j: done runs, once. Without a release callback j may be freed by
 * done: the caller must not touch it afterwards. */
static void answer_job(el__sched *s, el__job *j) {
  j->t_done = el__now();
  j->answered = 1;
  if (j->admitted) {
    pthread_mutex_lock(&s->mu);
    s->depth--;
    s->tokens -= j->cost;
    if (j->cancelled) s->cancelled++;
    int d = s->depth;
    pthread_mutex_unlock(&s->mu);
    el__metrics_queue_depth(d);
  }
  j->done(j);
}

/* j has no sequence left to dispatch. Once none runs it is answered (if not
 * yet) and released; while some run, early = 1 answers it now when it has a
 * release callback (its deadline passed), and the release waits for the
 * batch. The caller must not touch j afterwards unless some still run. */
static void end_job(el__sched *s, el__job *j, int early) {
  if (j->running > 0) {
    if (early && j->release && !j->answered) answer_job(s, j);
    return;
  }
  void (*release)(el__job *) = j->release;
  if (!j->answered) answer_job(s, j);
  if (release) release(j);
}

static mqueue *queue_for(el__sched *s, void *model) {
  for (mqueue *q = s->queues; q; q = q->next)
    if (q->model == model) return q;
  mqueue *q = calloc(1, sizeof *q);
  if (!q) return NULL;
  q->model = model;
  q->next = s->queues;
  s->queues = q;
  return q;
}

static void drop_empty_queues(el__sched *s) {
  mqueue **pp = &s->queues;
  while (*pp) {
    if (!(*pp)->head) {
      mqueue *dead = *pp;
      *pp = dead->next;
      free(dead);
    } else {
      pp = &(*pp)->next;
    }
  }
}

/* Removes j from queue q (j must be in it). */
static void queue_remove(mqueue *q, el__job *j) {
  el__job *prev = NULL;
  for (el__job *x = q->head; x; prev = x, x = x->next) {
    if (x != j) continue;
    if (prev)
      prev->next = x->next;
    else
      q->head = x->next;
    if (q->tail == x) q->tail = prev;
    x->next = NULL;
    return;
  }
}

/* Moves submitted jobs into their model queues. */
static void take_incoming(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  el__job *j = s->in_head;
  s->in_head = s->in_tail = NULL;
  pthread_mutex_unlock(&s->mu);
  while (j) {
    el__job *next = j->next;
    j->next = NULL;
    if (j->n_seqs <= 0) {
      end_job(s, j, 0);
    } else {
      mqueue *q = queue_for(s, j->model);
      if (!q) {
        j->status = EL_HERR_INTERNAL;
        snprintf(j->errmsg, sizeof j->errmsg, "out of memory queueing the request");
        end_job(s, j, 0);
      } else {
        if (q->tail)
          q->tail->next = j;
        else
          q->head = j;
        q->tail = j;
        s->queued_jobs++;
      }
    }
    j = next;
  }
}

static void finish_batch(el__sched *s) {
  batch *b = &s->cur;
  double dt = b->t1 - b->t0;
  int counted = 0, counted_tokens = 0; /* warm-up and other internal work left out */
  for (int i = 0; i < b->n; i++)
    if (!b->jobs[i]->internal) counted++, counted_tokens += b->seqs[i]->len;
  if (b->rc == 0 && counted) el__metrics_batch(counted, counted_tokens, dt);
  for (int i = 0; i < b->n; i++) {
    el__job *j = b->jobs[i];
    if (b->rc && j->status == EL_HERR_NONE) {
      j->status = EL_HERR_INTERNAL;
      snprintf(j->errmsg, sizeof j->errmsg, "inference failed: %.170s", b->err);
    }
    j->running--;
    /* its last sequence in this batch: j may be released (freed) here */
    if (j->running == 0 && j->next_seq >= j->n_seqs) end_job(s, j, 0);
  }
  b->n = 0;
  s->busy = 0;
}

static void expire(el__sched *s, double now) {
  for (mqueue *q = s->queues; q; q = q->next) {
    el__job *j = q->head;
    while (j) {
      el__job *next = j->next;
      if (j->deadline > 0 && now >= j->deadline) {
        queue_remove(q, j);
        s->queued_jobs--;
        j->status = EL_HERR_TIMEOUT;
        snprintf(j->errmsg, sizeof j->errmsg, "no result within the request timeout");
        j->next_seq = j->n_seqs; /* dispatch nothing more */
        end_job(s, j, 1);
      }
      j = next;
    }
  }
  drop_empty_queues(s);
}

/* Jobs whose every sequence is in the running batch and whose deadline has
 * passed: those that can be released later are answered now (504) instead
 * of when the batch returns; its results for them are then dropped. Jobs
 * still queued in part are expire's. */
static void expire_running(el__sched *s, double now) {
  if (!s->busy) return;
  batch *b = &s->cur;
  for (int i = 0; i < b->n; i++) {
    el__job *j = b->jobs[i];
    if (j->answered || !j->release || j->deadline <= 0 || now < j->deadline ||
        j->next_seq < j->n_seqs)
      continue;
    if (j->status == EL_HERR_NONE) {
      j->status = EL_HERR_TIMEOUT;
      snprintf(j->errmsg, sizeof j->errmsg, "no result within the request timeout");
    }
    end_job(s, j, 1);
  }
}

/* Drops the work of jobs nobody waits for: their sequences not yet
 * dispatched are skipped, so the next batch holds only live requests. */
static void reap_gone(el__sched *s) {
  for (mqueue *q = s->queues; q; q = q->next) {
    el__job *j = q->head;
    while (j) {
      el__job *next = j->next;
      if (j->gone && j->gone(j)) {
        queue_remove(q, j);
        s->queued_jobs--;
        j->cancelled = 1;
        j->status = EL_HERR_UNAVAILABLE;
        snprintf(j->errmsg, sizeof j->errmsg, "the client closed the connection");
        j->next_seq = j->n_seqs;
        end_job(s, j, 0);
      }
      j = next;
    }
  }
  drop_empty_queues(s);
}

static void post_batch(el__sched *s);

static void wait_timer_cb(uv_timer_t *t) {
  el__sched *s = t->data;
  s->waiting = 0;
  post_batch(s);
}

/* Packs the next batch and hands it to the inference thread. */
/* The queue whose head job is oldest; NULL when every queue is empty. */
static mqueue *oldest_queue(el__sched *s) {
  mqueue *best = NULL;
  for (mqueue *q = s->queues; q; q = q->next)
    if (q->head && (!best || q->head->t_enqueue < best->head->t_enqueue)) best = q;
  return best;
}

/* With a wait budget, a partial batch is held until it fills or the oldest
 * sequence has waited max_wait_us: 1 (and the timer armed) while holding. */
static int hold_partial(el__sched *s, const mqueue *best, double now) {
  if (s->cfg.max_wait_us <= 0) return 0;
  int n = 0, tokens = 0, full = 0;
  for (el__job *j = best->head; j && !full; j = j->next)
    for (int i = j->next_seq; i < j->n_seqs; i++) {
      if (n + 1 > s->cfg.max_batch_size || tokens + j->seqs[i].len > s->cfg.max_batch_tokens) {
        full = 1;
        break;
      }
      n++;
      tokens += j->seqs[i].len;
    }
  double waited_us = (now - best->head->t_enqueue) * 1e6;
  if (full || waited_us >= s->cfg.max_wait_us) return 0;
  if (!s->waiting) {
    uint64_t ms = (uint64_t)((s->cfg.max_wait_us - waited_us) / 1000.0) + 1;
    s->waiting = 1;
    uv_timer_start(&s->wait_timer, wait_timer_cb, ms, 0);
  }
  return 1;
}

/* Fills s->cur with the queue's sequences in arrival order up to the batch
 * limits (a job may be split across batches); finished jobs leave the queue. */
static void fill_batch(el__sched *s, mqueue *best, double now) {
  batch *b = &s->cur;
  b->model = best->model;
  b->n = 0;
  b->tokens = 0;
  b->rc = 0;
  b->err[0] = 0;
  el__job *j = best->head;
  while (j) {
    int stop = 0;
    while (j->next_seq < j->n_seqs) {
      el__seq *q = &j->seqs[j->next_seq];
      if (b->n > 0 && (b->n + 1 > s->cfg.max_batch_size ||
                       b->tokens + q->len > s->cfg.max_batch_tokens)) {
        stop = 1;
        break;
      }
      b->seqs[b->n] = q;
      b->jobs[b->n] = j;
      b->n++;
      b->tokens += q->len;
      j->next_seq++;
      j->running++;
      if (j->t_first_run == 0) {
        j->t_first_run = now;
        if (!j->internal) el__metrics_queue_time(now - j->t_enqueue);
      }
    }
    el__job *next = j->next;
    if (j->next_seq >= j->n_seqs) {
      queue_remove(best, j);
      s->queued_jobs--;
    }
    if (stop) break;
    j = next;
  }
  for (int i = 0; i < b->n; i++)
    if (b->jobs[i]->max_batch_seqs < b->n) b->jobs[i]->max_batch_seqs = b->n;
}

static void post_batch(el__sched *s) {
  if (s->busy) return;
  double now = el__now();
  expire(s, now);
  reap_gone(s);
  mqueue *best = oldest_queue(s);
  if (!best || hold_partial(s, best, now)) return;
  if (s->waiting) {
    uv_timer_stop(&s->wait_timer);
    s->waiting = 0;
  }
  fill_batch(s, best, now);
  drop_empty_queues(s);
  s->busy = 1;
  pthread_mutex_lock(&s->mu);
  s->batch_posted = 1;
  pthread_cond_signal(&s->cond);
  pthread_mutex_unlock(&s->mu);
}

static void wake_cb(uv_async_t *a) {
  el__sched *s = a->data;
  pthread_mutex_lock(&s->mu);
  int finished = s->batch_finished;
  s->batch_finished = 0;
  pthread_mutex_unlock(&s->mu);
  if (finished) finish_batch(s);
  take_incoming(s);
  post_batch(s);
}

static void deadline_cb(uv_timer_t *t) {
  el__sched *s = t->data;
  if (s->queued_jobs || s->busy) {
    double now = el__now();
    expire(s, now);
    expire_running(s, now);
    reap_gone(s);
  }
}

static void *inference_main(void *arg) {
  el__sched *s = arg;
  if (s->runner.thread_init) s->runner.thread_init(s->runner.ctx);
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->batch_posted && !s->quit) pthread_cond_wait(&s->cond, &s->mu);
    if (!s->batch_posted && s->quit) break;
    pthread_mutex_unlock(&s->mu);
    batch *b = &s->cur;
    b->t0 = el__now();
    b->rc = s->runner.run(s->runner.ctx, b->model, b->seqs, b->n, b->tokens, b->err,
                          sizeof b->err);
    b->t1 = el__now();
    pthread_mutex_lock(&s->mu);
    s->batch_posted = 0;
    s->batch_finished = 1;
    uv_async_send(&s->wake);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

el__sched *el__sched_new(uv_loop_t *loop, const el__sched_config *c, el__runner runner) {
  el__sched *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->loop = loop;
  s->cfg = *c;
  if (s->cfg.max_batch_size < 1) s->cfg.max_batch_size = 1;
  if (s->cfg.max_batch_tokens < 1) s->cfg.max_batch_tokens = 1;
  s->runner = runner;
  s->cur.seqs = calloc((size_t)s->cfg.max_batch_size, sizeof *s->cur.seqs);
  s->cur.jobs = calloc((size_t)s->cfg.max_batch_size, sizeof *s->cur.jobs);
  if (!s->cur.seqs || !s->cur.jobs) goto fail;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cond, NULL);
  if (uv_async_init(loop, &s->wake, wake_cb)) goto fail_sync;
  s->wake.data = s;
  uv_timer_init(loop, &s->wait_timer);
  s->wait_timer.data = s;
  uv_timer_init(loop, &s->deadline_timer);
  s->deadline_timer.data = s;
  /* 20 ms resolution on request deadlines is plenty against seconds-long
   * timeouts; unref'd so it alone never keeps the loop running. */
  uv_timer_start(&s->deadline_timer, deadline_cb, 20, 20);
  uv_unref((uv_handle_t *)&s->deadline_timer);
  s->handles_open = 3;
  if (pthread_create(&s->thread, NULL, inference_main, s)) {
    el__sched_close(s);
    return NULL; /* freed by the close callbacks when the loop runs */
  }
  s->thread_started = 1;
  return s;
fail_sync:
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->mu);
fail:
  free(s->cur.seqs);
  free(s->cur.jobs);
  free(s);
  return NULL;
}

el__http_err el__sched_admit(el__sched *s, int force) { return el__sched_admit_cost(s, force, 0); }

el__http_err el__sched_admit_cost(el__sched *s, int force, long tokens) {
  el__http_err e = EL_HERR_NONE;
  int d;
  pthread_mutex_lock(&s->mu);
  if (!force && s->draining)
    e = EL_HERR_UNAVAILABLE;
  else if (!force && s->depth >= s->cfg.max_queue)
    e = EL_HERR_OVERLOADED;
  else if (!force && s->cfg.max_queue_tokens > 0 && s->tokens > 0 &&
           s->tokens + tokens > s->cfg.max_queue_tokens)
    e = EL_HERR_OVERLOADED;
  else
    s->depth++, s->tokens += tokens;
  d = s->depth;
  pthread_mutex_unlock(&s->mu);
  if (!e) el__metrics_queue_depth(d);
  return e;
}


void el__sched_unadmit_cost(el__sched *s, long tokens) {
  pthread_mutex_lock(&s->mu);
  s->depth--;
  s->tokens -= tokens;
  int d = s->depth;
  pthread_mutex_unlock(&s->mu);
  el__metrics_queue_depth(d);
}

void el__sched_submit(el__sched *s, el__job *job) {
  job->next = NULL;
  job->next_seq = 0;
  job->running = 0;
  job->status = EL_HERR_NONE;
  job->cancelled = 0;
  job->errmsg[0] = 0;
  job->t_first_run = job->t_done = 0;
  job->max_batch_seqs = 0;
  job->admitted = 1;
  job->answered = 0;
  job->t_enqueue = el__now();
  pthread_mutex_lock(&s->mu);
  if (s->in_tail)
    s->in_tail->next = job;
  else
    s->in_head = job;
  s->in_tail = job;
  pthread_mutex_unlock(&s->mu);
  uv_async_send(&s->wake);
}

long el__sched_queued_tokens(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  long t = s->tokens;
  pthread_mutex_unlock(&s->mu);
  return t;
}

long el__sched_cancelled(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  long c = s->cancelled;
  pthread_mutex_unlock(&s->mu);
  return c;
}

int el__sched_depth(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  int d = s->depth;
  pthread_mutex_unlock(&s->mu);
  return d;
}

void el__sched_drain(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  s->draining = 1;
  pthread_mutex_unlock(&s->mu);
}

void el__sched_fail_queued(el__sched *s, el__http_err status, const char *msg) {
  take_incoming(s);
  for (mqueue *q = s->queues; q; q = q->next) {
    while (q->head) {
      el__job *j = q->head;
      queue_remove(q, j);
      s->queued_jobs--;
      j->status = status;
      snprintf(j->errmsg, sizeof j->errmsg, "%s", msg);
      j->next_seq = j->n_seqs;
      end_job(s, j, 0);
    }
  }
  drop_empty_queues(s);
}

int el__sched_idle(el__sched *s) {
  pthread_mutex_lock(&s->mu);
  int pending = s->in_head != NULL || s->batch_finished;
  pthread_mutex_unlock(&s->mu);
  return !pending && !s->busy && s->queues == NULL;
}

static void on_close(uv_handle_t *h) {
  el__sched *s = h->data;
  if (--s->handles_open > 0) return;
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->mu);
  free(s->cur.seqs);
  free(s->cur.jobs);
  free(s);
}

void el__sched_close(el__sched *s) {
  if (s->thread_started) {
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->thread_started = 0;
    /* a batch that finished meanwhile still owes its jobs their callbacks */
    if (s->batch_finished) {
      s->batch_finished = 0;
      finish_batch(s);
    }
  }
  el__sched_fail_queued(s, EL_HERR_UNAVAILABLE, "the server is shutting down");
  uv_timer_stop(&s->wait_timer);
  uv_timer_stop(&s->deadline_timer);
  uv_close((uv_handle_t *)&s->wake, on_close);
  uv_close((uv_handle_t *)&s->wait_timer, on_close);
  uv_close((uv_handle_t *)&s->deadline_timer, on_close);
}
