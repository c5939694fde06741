/* electra-server's process: state shared by the HTTP layer (http.c) and the
 * lifecycle (server.c: load, warm-up, ready, SIGHUP reload, SIGTERM drain).
 *
 * Threads: main runs the libuv loop (batcher, signals, loader completion,
 * watchdog); libmicrohttpd runs its pool; one inference thread runs the
 * engine; a loader thread exists while models load. */
#ifndef EL_SERVER_SERVER_H
#define EL_SERVER_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "srv_api.h"
#include "srv_batcher.h"
#include "srv_models.h"
#include "srv_options.h"
#include "srv_runner.h"

struct MHD_Daemon;

typedef struct el__server {
  el__srv_options opt;
  el__api_limits lim;
  uv_loop_t *loop;
  el__sched *sched;
  el__runner_ctx *runner;
  struct MHD_Daemon *mhd;
  int listen_fd;      /* returned by MHD_quiesce_daemon, closed after stop */
  unsigned port;      /* the bound port */
  int http_threads;   /* libmicrohttpd pool size in use */

  pthread_mutex_t set_mu;
  el__model_set *set; /* current models; NULL until the first load */

  atomic_int loaded;   /* a model set is in place (stays 1 during reloads) */
  atomic_int ready;    /* loaded, warm and not draining */
  atomic_int draining;
  atomic_int inflight; /* requests begun and not completed (HTTP layer) */
  atomic_int suspended; /* connections suspended and not yet back in a handler */
} el__server;

/* A new reference on the current model set, or NULL before the first load. */
el__model_set *el__server_models(el__server *s);

/* HTTP layer (http.c). */
int el__http_start(el__server *s, char *err, size_t cap);
void el__http_quiesce(el__server *s);
void el__http_stop(el__server *s);

/* The bodies of GET / and GET /openapi.json (page.c, openapi.c). */
extern const char el__page_html[];
extern const char el__openapi_json[];

/* Runs the whole server; returns the process exit code. */
int el__server_main(const el__srv_options *opt);
/* --healthcheck: GET /health on host:port; 0 when it answers 200. */
int el__healthcheck(const char *host, int port);

#endif
