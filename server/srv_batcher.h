/* The batching scheduler: a libuv loop owns the queues; one inference thread
 * owns every BLAS call and runs one batched forward at a time.
 *
 * Flow: an HTTP thread reserves a place (el__sched_admit: bounded queue,
 * refused while draining), then hands over a job (el__sched_submit) made of
 * sequences. The loop keeps one FIFO queue per model; whenever the inference
 * thread is free it takes the queue whose head waited longest and packs
 * sequences from its jobs, in order, up to max_batch_tokens / max_batch_size
 * (a sequence longer than the token budget runs alone), optionally waiting up
 * to max_wait_us for a fuller batch. Sequences of one job may span batches;
 * sequences of many jobs share one. When a job's last sequence is done, or its
 * deadline passes while it still waits, or the queue is failed on drain, the
 * loop calls job->done exactly once, on the loop thread.
 *
 * A deadline also passes while a job's sequences run: a job with a release
 * callback is then answered at its deadline (done with EL_HERR_TIMEOUT) and
 * released once the batch holding its sequences has returned; a job without
 * one gets done only after that batch. Expired jobs are never packed into a
 * new batch.
 *
 * Threads: admit/submit/depth from any thread; everything else on the loop
 * thread. The runner is called on the inference thread only. */
#ifndef EL_SERVER_BATCHER_H
#define EL_SERVER_BATCHER_H

#include <stddef.h>
#include <uv.h>

#include "srv_errors.h"

/* One sequence to run; ids/type_ids/out are owned by the job's submitter and
 * must stay valid until job->done. */
typedef struct el__seq {
  const int *ids, *type_ids; /* type_ids may be NULL (all zeros) */
  int len;
  float *out; /* the runner's output for this sequence (size is the runner's business) */
  /* A job kind that is no single forward pass (a grammar check runs several
   * passes of its own): when set, the inference thread calls work(arg)
   * instead of packing the sequence, and ids is unused; len is still its
   * cost in tokens for the batch budget. work keeps its own errors in arg
   * (one failed check must not fail the others in its batch). A batch may
   * mix both kinds: the runner makes the forward pass, then the work (a
   * /score with "suggestions" queues its check beside its texts). */
  void (*work)(void *arg);
  void *arg;
} el__seq;

typedef struct el__job el__job;
typedef void (*el__job_done_fn)(el__job *job);

struct el__job {
  /* filled by the submitter */
  void *model; /* opaque to the scheduler: queues and batches are per model */
  el__seq *seqs;
  int n_seqs;
  double deadline; /* el__now() seconds; 0 = none */
  el__job_done_fn done;
  void *user;
  int internal;    /* the server's own work (warm-up): not counted in /metrics */
  long cost;       /* tokens reserved by el__sched_admit_cost (0 with el__sched_admit) */
  /* May be NULL. Called on the loop thread while the job waits (before each
   * batch is packed and on the deadline tick): non-zero when nobody waits for
   * the result any more (the client closed its connection). The job's
   * sequences not yet dispatched are then dropped, and done runs with
   * status EL_HERR_UNAVAILABLE and cancelled = 1 once none is running. */
  int (*gone)(el__job *job);
  /* May be NULL. With it, done may run while some of the job's sequences
   * are still in the running batch (the deadline passed): the answer goes
   * out on time, but the job, its seqs (ids, type_ids, out) and its model
   * must stay valid until release runs. release runs exactly once, on the
   * loop thread, after done, once the scheduler and the inference thread no
   * longer touch the job; the scheduler touches nothing of it afterwards.
   * Without it, done runs only when none of its sequences runs, and the
   * job may be freed in done. */
  void (*release)(el__job *job);
  /* results, valid when done runs */
  el__http_err status; /* EL_HERR_NONE, _TIMEOUT, _UNAVAILABLE or _INTERNAL */
  char errmsg[200];
  double t_enqueue, t_first_run, t_done;
  int max_batch_seqs; /* largest batch one of its sequences ran in */
  int cancelled;      /* gone() said nobody waits: not answered */
  /* private to the scheduler */
  el__job *next;
  int next_seq, running;
  int admitted;
  int answered; /* done has run */
};

/* Runs one batch on the inference thread: all seqs belong to `model`; fill
 * each seqs[i]->out. Returns 0, or non-zero with a message in err. */
typedef struct el__runner {
  int (*run)(void *ctx, void *model, el__seq *const *seqs, int n, int n_tokens, char *err,
             size_t errcap);
  void (*thread_init)(void *ctx); /* once, on the inference thread, before any run; may be NULL */
  void *ctx;
} el__runner;

typedef struct el__sched_config {
  int max_batch_tokens, max_batch_size, max_wait_us, max_queue;
  long max_queue_tokens; /* tokens of admitted, unanswered requests before 429; 0 = no bound */
} el__sched_config;

typedef struct el__sched el__sched;

/* Monotonic clock in seconds. */
double el__now(void);

/* Creates the scheduler on loop (handles are added to it) and starts the
 * inference thread. NULL on failure. */
el__sched *el__sched_new(uv_loop_t *loop, const el__sched_config *c, el__runner runner);

/* Reserves a queue place. EL_HERR_NONE, EL_HERR_OVERLOADED (max_queue
 * requests already accepted and unanswered) or EL_HERR_UNAVAILABLE
 * (draining). force ignores both (internal work such as warm-up). */
el__http_err el__sched_admit(el__sched *s, int force);
/* el__sched_admit that also reserves tokens against max_queue_tokens: a
 * request is refused (EL_HERR_OVERLOADED) when the queue's tokens plus its
 * own would pass the bound, unless nothing is queued (a request larger than
 * the bound alone still runs). The job's cost must be set to tokens. */
el__http_err el__sched_admit_cost(el__sched *s, int force, long tokens);
/* Gives back a reserved place that will not be used. */
void el__sched_unadmit_cost(el__sched *s, long tokens);
/* Tokens of admitted, unanswered requests. */
long el__sched_queued_tokens(el__sched *s);
/* Jobs cancelled because gone() said their client left (any thread). */
long el__sched_cancelled(el__sched *s);
/* Hands over a job that holds an admitted place; done runs exactly once. */
void el__sched_submit(el__sched *s, el__job *job);
/* Requests accepted and not yet answered. */
int el__sched_depth(el__sched *s);

/* Loop thread. Refuse new work (admit -> UNAVAILABLE) from now on. */
void el__sched_drain(el__sched *s);
/* Loop thread. Completes every job still waiting with status (jobs whose
 * sequences are running finish with that status once those return). */
void el__sched_fail_queued(el__sched *s, el__http_err status, const char *msg);
/* Loop thread. 1 when nothing is queued, running or being handed over. */
int el__sched_idle(el__sched *s);
/* Loop thread, at the end: stops the inference thread (after its current
 * batch), closes the handles; free happens in their close callbacks, so
 * run the loop once more afterwards. Jobs still queued are failed first. */
void el__sched_close(el__sched *s);

#endif
