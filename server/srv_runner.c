/* Engine runner (srv_runner.h): packs the batch, then the model's head runs
 * it (srv_heads.c). Scratch buffers grow to the largest batch seen and belong
 * to the inference thread. */
#include "srv_runner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv_models.h"

struct el__runner_ctx {
  int threads;
  int *ids, *types, *lens;
  el__seq **fwd; /* the batch's forward-pass sequences (its work jobs left out) */
  el__head_scratch out;
  size_t cap_tok, cap_types, cap_seq, cap_fwd;
  long test_us_per_token; /* el__runner_test_delay */
};

el__runner_ctx *el__runner_new(int threads) {
  el__runner_ctx *r = calloc(1, sizeof *r);
  if (r) r->threads = threads;
  return r;
}

void el__runner_free(el__runner_ctx *r) {
  if (!r) return;
  free(r->ids);
  free(r->types);
  free(r->lens);
  free(r->fwd);
  free(r->out.a);
  free(r->out.b);
  free(r);
}

static void thread_init(void *ctx) {
  el__runner_ctx *r = ctx;
  el_set_threads(r->threads);
}

/* One packed forward pass over n sequences of n_tokens tokens in all. */
static int forward(el__runner_ctx *r, el__model_entry *e, el__seq *const *seqs, int n,
                   int n_tokens, char *err, size_t errcap) {
  size_t T = (size_t)n_tokens;
  if (el__grow((void **)&r->ids, &r->cap_tok, T, sizeof(int)) ||
      el__grow((void **)&r->types, &r->cap_types, T, sizeof(int)) ||
      el__grow((void **)&r->lens, &r->cap_seq, (size_t)n, sizeof(int))) {
    snprintf(err, errcap, "out of memory for %d tokens", n_tokens);
    return -1;
  }
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    memcpy(r->ids + off, seqs[i]->ids, (size_t)seqs[i]->len * sizeof(int));
    if (seqs[i]->type_ids)
      memcpy(r->types + off, seqs[i]->type_ids, (size_t)seqs[i]->len * sizeof(int));
    else
      memset(r->types + off, 0, (size_t)seqs[i]->len * sizeof(int));
    r->lens[i] = seqs[i]->len;
    off += (size_t)seqs[i]->len;
  }
  el_batch b = {n, r->lens, r->ids, r->types};
  el_error er = {0};
  int rc = el__srv_head_of(e->cfg->arch)->run(&r->out, e, &b, seqs, n, &er);
  if (r->test_us_per_token > 0) {
    double us = (double)r->test_us_per_token * (double)n_tokens;
    struct timespec ts = {(time_t)(us / 1e6), (long)(fmod(us, 1e6) * 1e3)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) { /* the rest after a signal */
    }
  }
  if (rc) {
    snprintf(err, errcap, "%s", er.msg);
    return -1;
  }
  return 0;
}

/* A batch may mix forward-pass sequences with work jobs (a /score with
 * "suggestions" queues its check beside its texts, srv_batcher.h): the
 * forward pass runs first over the others, then each work job. */
static int run(void *ctx, void *model, el__seq *const *seqs, int n, int n_tokens, char *err,
               size_t errcap) {
  el__runner_ctx *r = ctx;
  if (el__grow((void **)&r->fwd, &r->cap_fwd, (size_t)(n ? n : 1), sizeof *r->fwd)) {
    snprintf(err, errcap, "out of memory for %d sequences", n);
    return -1;
  }
  int nf = 0, tokens = 0;
  for (int i = 0; i < n; i++)
    if (!seqs[i]->work) {
      r->fwd[nf++] = seqs[i];
      tokens += seqs[i]->len;
    }
  (void)n_tokens; /* counts the work jobs' cost too */
  if (nf && forward(r, model, r->fwd, nf, tokens, err, errcap)) return -1;
  for (int i = 0; i < n; i++)
    if (seqs[i]->work) seqs[i]->work(seqs[i]->arg);
  return 0;
}

void el__runner_test_delay(el__runner_ctx *r, long us_per_token) {
  r->test_us_per_token = us_per_token > 0 ? us_per_token : 0;
}

el__runner el__runner_engine(el__runner_ctx *r) {
  el__runner x = {run, thread_init, r};
  return x;
}
