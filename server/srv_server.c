/* The server's lifecycle (srv_server.h): load and check every model, then
 * listen, warm the models up and become ready; SIGHUP reloads atomically on a
 * loader thread; SIGTERM and SIGINT drain and exit 0. Everything here runs on
 * the loop thread except the loader thread's body. */
#include "srv_server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv_log.h"
#include "srv_metrics.h"
#include "srv_modeldir.h"
#include "sdnotify.h"

/* One load (start-up or SIGHUP) in progress. */
typedef struct loader {
  el__server *srv;
  uv_async_t done;
  pthread_t thread;
  int busy, reload;
  int queued; /* a SIGHUP came during this load: reload again when it ends */
  el__model_set *set; /* loaded, not yet warm */
  char err[1200];
  /* warm-up: one job per model */
  el__job *jobs;
  el__seq *seqs;
  int *ids;
  float *outs;
  int pending, failed;
  double t0;
} loader;

static struct {
  el__server srv;
  uv_loop_t loop;
  loader ld;
  uv_signal_t sig_term, sig_int, sig_hup;
  uv_timer_t drain_timer, watchdog_timer;
  int watchdog_on;
  double drain_start;
  int exit_code;
  int stopping;
} G;

static void shutdown_all(int code);
static void start_load(int reload);
static void load_ended(loader *ld, int ok, const char *reason);

/* ---- loading and warm-up ---- */

static void *loader_main(void *arg) {
  loader *ld = arg;
  el__server *s = ld->srv;
  ld->set = NULL;
  ld->err[0] = 0;
  if (el__model_set_load_checked(s->opt.models, s->opt.n_models, s->opt.max_batch_tokens,
                                 s->opt.max_batch_size, &ld->set, ld->err, sizeof ld->err))
    ld->set = NULL;
  uv_async_send(&ld->done);
  return NULL;
}

static void warm_free(loader *ld) {
  free(ld->jobs);
  free(ld->seqs);
  free(ld->ids);
  free(ld->outs);
  ld->jobs = NULL;
  ld->seqs = NULL;
  ld->ids = NULL;
  ld->outs = NULL;
}

static void loaded_and_warm(loader *ld) {
  el__server *s = ld->srv;
  warm_free(ld);
  ld->busy = 0;
  if (ld->failed) {
    el__log("error", "%s failed: warm-up forward pass: %s", ld->reload ? "reload" : "load",
            ld->err);
    el__model_set_unref(ld->set);
    ld->set = NULL;
    if (!ld->reload) {
      shutdown_all(1);
      return;
    }
    el__metrics_reload(0);
    el__sd_notify("READY=1\nSTATUS=reload failed; serving the previous models");
    char why[1300];
    snprintf(why, sizeof why, "warm-up forward pass: %s", ld->err);
    load_ended(ld, 0, why);
    return;
  }
  pthread_mutex_lock(&s->set_mu);
  el__model_set *old = s->set;
  s->set = ld->set;
  pthread_mutex_unlock(&s->set_mu);
  ld->set = NULL;
  if (old) el__model_set_unref(old); /* requests still holding it finish on it */
  atomic_store(&s->loaded, 1);
  if (ld->reload) el__metrics_reload(1);
  if (!atomic_load(&s->draining)) {
    atomic_store(&s->ready, 1);
    el__metrics_ready(1);
    el__sd_notifyf("READY=1\nSTATUS=serving %d model%s on port %u", s->opt.n_models,
                  s->opt.n_models == 1 ? "" : "s", s->port);
  }
  el__log("info", "%s: %d model%s loaded and warm in %.2f s; ready",
          ld->reload ? "reload done" : "start-up", s->opt.n_models,
          s->opt.n_models == 1 ? "" : "s", el__now() - ld->t0);
  load_ended(ld, 1, NULL);
}

static void warm_done(el__job *j) {
  loader *ld = j->user;
  if (j->status != EL_HERR_NONE && !ld->failed) {
    ld->failed = 1;
    snprintf(ld->err, sizeof ld->err, "%.1000s", j->errmsg);
  }
  if (--ld->pending == 0) loaded_and_warm(ld);
}

/* One short forward pass per model on the inference thread, so the first
 * request does not pay for cold caches and lazy allocations. */
static void start_warmup(loader *ld) {
  el__model_set *set = ld->set;
  enum { LEN = 16 };
  int n = set->n;
  ld->jobs = calloc((size_t)n, sizeof *ld->jobs);
  ld->seqs = calloc((size_t)n, sizeof *ld->seqs);
  ld->ids = calloc((size_t)n * LEN, sizeof *ld->ids);
  /* room for any head's output of one LEN-token sequence: QA's start and end,
   * or a classifier's num_labels logits (up to 65536) */
  size_t per = 2 * LEN;
  for (int i = 0; i < n; i++)
    if ((size_t)set->e[i].cfg->num_labels > per) per = (size_t)set->e[i].cfg->num_labels;
  ld->outs = calloc((size_t)n * per, sizeof *ld->outs);
  if (!ld->jobs || !ld->seqs || !ld->ids || !ld->outs) {
    ld->failed = 1;
    snprintf(ld->err, sizeof ld->err, "out of memory");
    ld->pending = 0;
    loaded_and_warm(ld);
    return;
  }
  ld->pending = n;
  ld->failed = 0;
  for (int i = 0; i < n; i++) {
    el__model_entry *e = &set->e[i];
    int len = LEN < e->max_len ? LEN : e->max_len;
    int *ids = ld->ids + (size_t)i * LEN;
    ids[0] = el_tokenizer_special_id(e->tok, EL_TOK_CLS);
    for (int k = 1; k < len - 1; k++) ids[k] = el_tokenizer_special_id(e->tok, EL_TOK_UNK);
    ids[len - 1] = el_tokenizer_special_id(e->tok, EL_TOK_SEP);
    ld->seqs[i] = (el__seq){.ids = ids, .len = len, .out = ld->outs + (size_t)i * per};
    el__job *j = &ld->jobs[i];
    j->model = e;
    j->seqs = &ld->seqs[i];
    j->n_seqs = 1;
    j->done = warm_done;
    j->user = ld;
    j->internal = 1; /* warm-up is not a request: /metrics does not count it */
  }
  for (int i = 0; i < n; i++) {
    el__sched_admit(ld->srv->sched, 1);
    el__sched_submit(ld->srv->sched, &ld->jobs[i]);
  }
}

static void loader_done_cb(uv_async_t *a) {
  loader *ld = a->data;
  if (!ld->busy) return;
  pthread_join(ld->thread, NULL);
  if (!ld->set) {
    ld->busy = 0;
    el__log("error", "%s failed: %s", ld->reload ? "reload" : "load", ld->err);
    if (!ld->reload) {
      shutdown_all(1);
      return;
    }
    el__log("info", "reload failed: still serving the previous models");
    el__metrics_reload(0);
    el__sd_notify("READY=1\nSTATUS=reload failed; serving the previous models");
    load_ended(ld, 0, ld->err);
    return;
  }
  if (G.stopping) {
    el__model_set_unref(ld->set);
    ld->set = NULL;
    ld->busy = 0;
    return;
  }
  start_warmup(ld);
}

static void start_load(int reload) {
  loader *ld = &G.ld;
  if (ld->busy) {
    el__log("info", "a load is already in progress; SIGHUP ignored");
    return;
  }
  ld->busy = 1;
  ld->reload = reload;
  ld->t0 = el__now();
  if (reload) el__reload_started();
  if (pthread_create(&ld->thread, NULL, loader_main, ld)) {
    ld->busy = 0;
    el__log("error", "cannot start the loader thread");
    if (!reload) shutdown_all(1);
    else el__reload_finished(0, "cannot start the loader thread", 0);
  }
}

/* A load (start-up or reload) ended and ld is free again: record a reload's
 * outcome for /info, then run the reload a SIGHUP queued meanwhile, so the
 * files' last state is what ends up served. */
static void load_ended(loader *ld, int ok, const char *reason) {
  int next = ld->queued && !G.stopping && !atomic_load(&ld->srv->draining);
  ld->queued = 0;
  if (ld->reload) el__reload_finished(ok, reason, next);
  if (!next) return;
  el__log("info", "reloading again: a SIGHUP came during the last %s",
          ld->reload ? "reload" : "load");
  el__sd_notify("RELOADING=1\nSTATUS=reloading models");
  start_load(1);
}

/* ---- draining and stopping ---- */

static void close_cb(uv_handle_t *h) { (void)h; }

/* Last step: every accepted request has its answer (or the drain timed out). */
static void shutdown_all(int code) {
  if (G.stopping) return;
  G.stopping = 1;
  G.exit_code = code;
  el__server *s = &G.srv;
  atomic_store(&s->ready, 0);
  atomic_store(&s->draining, 1);
  el__sched_drain(s->sched);
  /* the loader thread, if running, finishes its load; its result is dropped */
  if (G.ld.busy && !G.ld.jobs) {
    pthread_join(G.ld.thread, NULL);
    G.ld.busy = 0;
    if (G.ld.set) el__model_set_unref(G.ld.set);
    G.ld.set = NULL;
  }
  el__sched_close(s->sched); /* fails what still waits: resumes those connections */
  /* MHD_stop_daemon with a suspended connection is an API violation: wait
   * until every resumed connection is back in its handler */
  for (int i = 0; i < 5000 && atomic_load(&s->suspended) > 0; i++) usleep(1000);
  el__http_stop(s);
  uv_timer_stop(&G.drain_timer);
  uv_timer_stop(&G.watchdog_timer);
  uv_close((uv_handle_t *)&G.drain_timer, close_cb);
  uv_close((uv_handle_t *)&G.watchdog_timer, close_cb);
  uv_close((uv_handle_t *)&G.sig_term, close_cb);
  uv_close((uv_handle_t *)&G.sig_int, close_cb);
  uv_close((uv_handle_t *)&G.sig_hup, close_cb);
  uv_close((uv_handle_t *)&G.ld.done, close_cb);
}

/* Kept-alive connections get a short grace after the signal: a request sent
 * on one right after it is answered (503, Connection: close) rather than met
 * by a reset when the daemon stops. */
static double keepalive_grace(const el__server *s) {
  return s->opt.drain_timeout < 2.0 ? s->opt.drain_timeout : 2.0;
}

static void drain_tick(uv_timer_t *t) {
  (void)t;
  el__server *s = &G.srv;
  double waited = el__now() - G.drain_start;
  int idle = el__sched_idle(s->sched);
  int inflight = atomic_load(&s->inflight);
  double grace = keepalive_grace(s);
  int conns_open = el__http_open_connections(s) > 0 && waited < grace;
  if (idle && inflight == 0 && !G.ld.busy && !conns_open) {
    el__log("info", "drained in %.2f s; exiting", waited);
    shutdown_all(0);
    return;
  }
  if (waited > s->opt.drain_timeout) {
    static int failed_once;
    if (!failed_once) {
      failed_once = 1;
      el__log("warn", "drain timeout (%.1f s): answering %d waiting request(s) with 503",
              s->opt.drain_timeout, el__sched_depth(s->sched));
      el__sched_fail_queued(s->sched, EL_HERR_UNAVAILABLE, "the server is shutting down");
    }
    /* requests still reading their bodies or sending answers get a short
     * grace, then the daemon closes them */
    if (waited > s->opt.drain_timeout + 2.0 && idle) {
      el__log("warn", "closing %d unfinished connection(s)", inflight);
      shutdown_all(0);
    }
  }
}

static void on_term(uv_signal_t *h, int signum) {
  (void)h;
  el__server *s = &G.srv;
  if (atomic_load(&s->draining)) {
    el__log("info", "%s again: still draining", strsignal(signum));
    return;
  }
  el__log("info", "%s: draining (up to %.1f s)", strsignal(signum), s->opt.drain_timeout);
  atomic_store(&s->draining, 1);
  atomic_store(&s->ready, 0);
  el__metrics_ready(0);
  el__sd_notify("STOPPING=1\nSTATUS=draining");
  el__http_quiesce(s, keepalive_grace(s)); /* requests not fully received are closed */
  el__sched_drain(s->sched);
  G.drain_start = el__now();
  uv_timer_start(&G.drain_timer, drain_tick, 0, 20);
}

static void on_hup(uv_signal_t *h, int signum) {
  (void)h, (void)signum;
  if (atomic_load(&G.srv.draining)) return;
  if (G.ld.busy) { /* not dropped: the files may have changed after this load read them */
    G.ld.queued = 1;
    el__reload_queued();
    el__log("info", "SIGHUP during a %s: queued, the models reload again when it ends",
            G.ld.reload ? "reload" : "load");
    return;
  }
  el__log("info", "SIGHUP: reloading %d model%s", G.srv.opt.n_models,
          G.srv.opt.n_models == 1 ? "" : "s");
  el__sd_notify("RELOADING=1\nSTATUS=reloading models");
  start_load(1);
}

static void watchdog_cb(uv_timer_t *t) {
  (void)t;
  el__sd_notify("WATCHDOG=1");
}

/* The server's state from its options, before anything is started. */
static void init_state(el__server *s, const el__srv_options *opt) {
  memset(&G, 0, sizeof G);
  s->opt = *opt;
  s->lim.max_inputs = opt->max_inputs;
  s->lim.max_qa_windows = opt->max_qa_windows;
  s->lim.max_depth = 32;
  s->lim.specials_as_text = opt->specials_as_text;
  s->listen_fd = -1;
  pthread_mutex_init(&s->set_mu, NULL);
  signal(SIGPIPE, SIG_IGN);
  el__log_init(opt->log_json);
  el__metrics_init();
}

/* The inference thread and its scheduler on the loop; 0 or -1 (logged). */
static int start_inference(el__server *s, const el__srv_options *opt) {
  uv_loop_init(&G.loop);
  s->loop = &G.loop;
  s->runner = el__runner_new(opt->threads);
  /* the e2e tests' slow batch (srv_runner.h); never set in production */
  const char *delay = getenv("EL_TEST_BATCH_US_PER_TOKEN");
  const long us = delay ? atol(delay) : 0;
  if (s->runner && us > 0) {
    el__runner_test_delay(s->runner, us);
    el__log("warn", "test hook EL_TEST_BATCH_US_PER_TOKEN=%ld: every batch sleeps %ld us per "
            "token", us, us);
  }
  el__sched_config sc = {opt->max_batch_tokens, opt->max_batch_size, opt->max_wait_us,
                         opt->max_queue, opt->max_queue_tokens};
  s->sched = s->runner ? el__sched_new(&G.loop, &sc, el__runner_engine(s->runner)) : NULL;
  if (s->sched) return 0;
  el__log("error", "cannot start the inference thread");
  return -1;
}

/* Signals (TERM/INT drain, HUP reloads), the systemd watchdog and the
 * loader's completion callback, all on the loop. */
static void start_loop_handlers(el__server *s) {
  uv_async_init(&G.loop, &G.ld.done, loader_done_cb);
  G.ld.done.data = &G.ld;
  G.ld.srv = s;
  uv_timer_init(&G.loop, &G.drain_timer);
  uv_timer_init(&G.loop, &G.watchdog_timer);
  uv_signal_init(&G.loop, &G.sig_term);
  uv_signal_init(&G.loop, &G.sig_int);
  uv_signal_init(&G.loop, &G.sig_hup);
  uv_signal_start(&G.sig_term, on_term, SIGTERM);
  uv_signal_start(&G.sig_int, on_term, SIGINT);
  uv_signal_start(&G.sig_hup, on_hup, SIGHUP);
  unsigned long long wd = el__sd_watchdog_usec();
  if (wd > 0) {
    uint64_t ms = wd / 2000 ? wd / 2000 : 1;
    uv_timer_start(&G.watchdog_timer, watchdog_cb, ms, ms);
  }
}

/* After the loop ends: the serving model set, the runner, the lock. */
static void release_state(el__server *s) {
  pthread_mutex_lock(&s->set_mu);
  el__model_set *set = s->set;
  s->set = NULL;
  pthread_mutex_unlock(&s->set_mu);
  if (set) el__model_set_unref(set);
  el__runner_free(s->runner);
  pthread_mutex_destroy(&s->set_mu);
}

int el__server_main(const el__srv_options *opt) {
  el__server *s = &G.srv;
  init_state(s, opt);
  /* Every model loads, and so is checked in full, before the server
   * listens: a missing or broken model ends the start-up here, with its
   * reason, and nothing ever answered on the port. Warm-up follows once
   * listening (/ready 503 until it is done). */
  el__sd_notify("STATUS=loading models");
  double t_load = el__now();
  el__model_set *first = NULL;
  char err[1200];
  if (el__model_set_load_checked(opt->models, opt->n_models, opt->max_batch_tokens,
                                 opt->max_batch_size, &first, err, sizeof err)) {
    el__log("error", "start-up failed: %s", err);
    pthread_mutex_destroy(&s->set_mu);
    return 1;
  }
  el__model_set_log(first);
  if (start_inference(s, opt)) {
    el__model_set_unref(first);
    return 1;
  }
  if (el__http_start(s, err, sizeof err)) {
    el__log("error", "%s", err);
    el__sched_close(s->sched);
    uv_run(&G.loop, UV_RUN_DEFAULT);
    uv_loop_close(&G.loop);
    el__runner_free(s->runner);
    el__model_set_unref(first);
    return 1;
  }
  el__log("info", "electra-server %s listening on %s:%u (http threads %d, max batch %d "
          "sequences / %d tokens)", EL_VERSION, opt->host, s->port, s->http_threads,
          opt->max_batch_size, opt->max_batch_tokens);
  if (s->probe.mhd)
    el__log("info", "probes (/health, /ready, /v2/health/*, /metrics) also on %s:%u",
            opt->host, s->probe.port);
  start_loop_handlers(s);
  el__sd_notify("STATUS=warming up");
  G.ld.busy = 1; /* the start-up load, done above: warm it as a loader's result */
  G.ld.reload = 0;
  G.ld.t0 = t_load;
  G.ld.set = first;
  start_warmup(&G.ld);
  uv_run(&G.loop, UV_RUN_DEFAULT);
  uv_loop_close(&G.loop);
  release_state(s);
  return G.exit_code;
}
