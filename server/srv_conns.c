/* Connection tracking and deadlines (srv_conns.h). */
#include "srv_conns.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "srv_batcher.h" /* el__now */

struct el__conn {
  int fd;
  int phase;
  int shut;     /* shut down by a deadline or the drain already */
  double since; /* start of the phase */
  double req_at; /* header phase: when a request line arrived, else 0 */
  el__conn *prev, *next;
};

struct el__conns {
  pthread_mutex_t mu;
  pthread_cond_t cond;
  pthread_t thread;
  int started, quit;
  double header_timeout, body_timeout;
  el__conn *head;
  int n;
  long timed_out;
  double drain_at, drain_grace; /* el__conns_drain, drain_at 0 until then */
  atomic_int trim_due; /* el__conns_trim_soon was called */
  double last_trim;
};

/* During a drain: whether k holds a request not fully received that must be
 * closed now. */
static int drain_cuts(const el__conns *c, const el__conn *k, double now) {
  if (c->drain_at <= 0) return 0;
  double began = k->phase == EL_CONN_BODY ? k->since
                 : k->phase == EL_CONN_HEADER ? k->req_at : 0;
  if (began <= 0) return 0; /* answering, or idle between requests */
  return began < c->drain_at || now >= c->drain_at + c->drain_grace;
}

/* Shuts down the connections past their phase's deadline, or cut by the
 * drain. */
static void sweep(el__conns *c, double now) {
  for (el__conn *k = c->head; k; k = k->next) {
    if (k->shut) continue;
    if (drain_cuts(c, k, now)) {
      k->shut = 1;
      shutdown(k->fd, SHUT_RDWR); /* libmicrohttpd reads EOF and closes it */
      continue;
    }
    if (k->phase == EL_CONN_BUSY) continue;
    double limit = k->phase == EL_CONN_HEADER ? c->header_timeout : c->body_timeout;
    if (limit <= 0 || now - k->since < limit) continue;
    k->shut = 1;
    c->timed_out++;
    shutdown(k->fd, SHUT_RDWR);
  }
}

/* Every 50 ms (and at once on a drain): sweep the connections. */
static void *watcher_main(void *arg) {
  el__conns *c = arg;
  pthread_mutex_lock(&c->mu);
  while (!c->quit) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&c->cond, &c->mu, &ts);
    double now = el__now();
    if (atomic_load(&c->trim_due) && now - c->last_trim >= 0.5) {
      atomic_store(&c->trim_due, 0);
      c->last_trim = now;
      pthread_mutex_unlock(&c->mu);
      malloc_trim(0); /* heap freed by a burst goes back to the system */
      pthread_mutex_lock(&c->mu);
    }
    sweep(c, now);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

el__conns *el__conns_new(double header_timeout, double body_timeout) {
  el__conns *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->header_timeout = header_timeout;
  c->body_timeout = body_timeout;
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cond, NULL);
  if (pthread_create(&c->thread, NULL, watcher_main, c)) {
    el__conns_free(c);
    return NULL;
  }
  c->started = 1;
  return c;
}

void el__conns_free(el__conns *c) {
  if (!c) return;
  if (c->started) {
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
  }
  el__conn *k = c->head;
  while (k) {
    el__conn *next = k->next;
    free(k);
    k = next;
  }
  pthread_cond_destroy(&c->cond);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

el__conn *el__conns_open(el__conns *c, int fd) {
  el__conn *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->fd = fd;
  k->phase = EL_CONN_HEADER;
  k->since = el__now();
  pthread_mutex_lock(&c->mu);
  k->next = c->head;
  if (c->head) c->head->prev = k;
  c->head = k;
  c->n++;
  pthread_mutex_unlock(&c->mu);
  return k;
}

void el__conns_close(el__conns *c, el__conn *k) {
  if (!k) return;
  pthread_mutex_lock(&c->mu);
  if (k->prev)
    k->prev->next = k->next;
  else
    c->head = k->next;
  if (k->next) k->next->prev = k->prev;
  c->n--;
  pthread_mutex_unlock(&c->mu);
  free(k);
}

void el__conns_phase(el__conns *c, el__conn *k, int phase) {
  if (!k) return;
  pthread_mutex_lock(&c->mu);
  k->phase = phase;
  k->since = el__now();
  k->req_at = 0;
  pthread_mutex_unlock(&c->mu);
}

void el__conns_request(el__conns *c, el__conn *k) {
  if (!k) return;
  pthread_mutex_lock(&c->mu);
  if (k->phase == EL_CONN_HEADER) k->req_at = el__now();
  pthread_mutex_unlock(&c->mu);
}

void el__conns_drain(el__conns *c, double grace) {
  pthread_mutex_lock(&c->mu);
  if (c->drain_at <= 0) {
    c->drain_at = el__now();
    c->drain_grace = grace;
  }
  pthread_cond_signal(&c->cond); /* sweep now, not in up to 50 ms */
  pthread_mutex_unlock(&c->mu);
}

int el__conns_count(el__conns *c) {
  pthread_mutex_lock(&c->mu);
  int n = c->n;
  pthread_mutex_unlock(&c->mu);
  return n;
}

void el__conns_trim_soon(el__conns *c) { atomic_store(&c->trim_due, 1); }

long el__conns_timed_out(el__conns *c) {
  pthread_mutex_lock(&c->mu);
  long n = c->timed_out;
  pthread_mutex_unlock(&c->mu);
  return n;
}
