/* electra-server's shared state: what the HTTP layer (http.c) and the
 * lifecycle (srv_server.c: load, warm-up, ready, SIGHUP reload, SIGTERM
 * drain) both read, and the one accessor both use (srv_state.c). The
 * lifecycle drives the HTTP layer (srv_http.h); the HTTP layer calls nothing
 * of the lifecycle, only this accessor.
 *
 * Threads: main runs the libuv loop (batcher, signals, loader completion,
 * watchdog); libmicrohttpd runs its pool; one inference thread runs the
 * engine; a loader thread exists while models load. */
#ifndef EL_SERVER_STATE_H
#define EL_SERVER_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "srv_api.h"
#include "srv_batcher.h"
#include "srv_models.h"
#include "srv_options.h"
#include "srv_runner.h"

struct MHD_Daemon;
struct el__conns;
struct el__workq;

/* One listening port of the HTTP layer (http.c): the API's, or the probe
 * port (--health-port) that serves only the health routes and /metrics, on
 * its own connections, so a flood that fills the API's --max-connections
 * does not reach the probes. */
typedef struct el__listener {
  struct el__server *srv;
  struct MHD_Daemon *mhd;  /* NULL: not listening */
  struct el__conns *conns; /* its open connections and their deadlines (srv_conns.h) */
  int probes_only;
  int max_connections;     /* refused at once past this many */
  unsigned port;           /* the bound port */
} el__listener;

typedef struct el__server {
  el__srv_options opt;
  el__api_limits lim;
  uv_loop_t *loop;
  el__sched *sched;
  el__runner_ctx *runner;
  el__listener api;   /* the API's port */
  el__listener probe; /* --health-port; probe.mhd is NULL when not given */
  int listen_fd;      /* returned by MHD_quiesce_daemon, closed after stop */
  unsigned port;      /* the API's bound port */
  int http_threads;   /* libmicrohttpd pool size in use */
  struct el__workq *prep; /* threads that parse and tokenize POST bodies (http.c) */

  pthread_mutex_t set_mu;
  el__model_set *set; /* current models; NULL until the first load */

  atomic_int loaded;   /* a model set is in place (stays 1 during reloads) */
  atomic_int ready;    /* loaded, warm and not draining */
  atomic_int draining;
  atomic_int inflight; /* requests begun and not completed (HTTP layer) */
  atomic_int suspended; /* connections suspended and not yet back in a handler */
  atomic_long refused;  /* connections refused at --max-connections */
  /* bytes of request bodies and answers held now, at most
   * --max-bytes-in-flight (el__server_hold) */
  atomic_long bytes_held;
  atomic_long budget_refused; /* requests refused at --max-bytes-in-flight */
} el__server;

/* A new reference on the current model set, or NULL before the first load. */
el__model_set *el__server_models(el__server *s);

/* The memory budget of requests in flight (--max-bytes-in-flight): holds n
 * more bytes and returns 1 when they fit, else 0 (nothing held). Release
 * gives back what a hold took. Thread-safe. */
int el__server_hold(el__server *s, long n);
void el__server_release(el__server *s, long n);

#endif
